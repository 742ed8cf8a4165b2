// The add/edit form of a check: name and description, the schedule (a simple period in minutes, hours or
// days with quick picks; or a cron or OnCalendar expression with its time zone: only the chosen kind's
// inputs show, by CSS alone) with its preview of every kind, alerting, filtering rules, and on the edit form
// what the settings would have done. Errors are shown next to their field.
import type { Channel, Millis, Project } from "../../engine/model.ts";
import { LIMITS } from "../../engine/model.ts";
import { durationText } from "./format.ts";
import type { DurationUnit } from "./duration-field.ts";
import { amountText, durationInputs, secondsOf } from "./duration-field.ts";
import type { FilterValues } from "./filter-fields.ts";
import { EMPTY_FILTERS, filterFieldset } from "./filter-fields.ts";
import type { RunRuleValues } from "./run-rule-fields.ts";
import { EMPTY_RUN_RULES, escalationFieldset, runRuleInputs } from "./run-rule-fields.ts";
import type { Html, Value } from "./html.ts";
import { html } from "./html.ts";
import type { Viewer } from "./page-frame.ts";
import { csrfField, documentOf, projectNav } from "./page-frame.ts";
import { timeHtml } from "./time-html.ts";
import { timeZoneSelect } from "./time-zones.ts";

export const SCHEDULE_KINDS = ["simple", "cron", "oncalendar"] as const;
export type ScheduleFormKind = (typeof SCHEDULE_KINDS)[number];

/** The add/edit form's values, as typed (numbers stay text until the API's rules read them; period and grace with their units). */
export type CheckFormValues = FilterValues &
  RunRuleValues & {
    readonly name: string;
    readonly slug: string;
    readonly tags: string;
    readonly desc: string;
    readonly kind: ScheduleFormKind;
    readonly timeout: string;
    readonly timeout_unit: DurationUnit;
    readonly grace: string;
    readonly grace_unit: DurationUnit;
    readonly schedule: string;
    readonly tz: string;
    readonly failure_threshold: string;
    readonly reminder_interval: string;
    readonly reminder_interval_unit: DurationUnit;
    readonly muted_until: string;
    readonly max_duration: string;
    readonly max_duration_unit: DurationUnit;
    /** The chosen dependencies' uuids, comma-separated (the API's depends_on). */
    readonly depends_on: string;
    /** An Uptime Kuma push monitor's token ("" = none). */
    readonly push_token: string;
  };

/** A simulation of the form's settings over the check's logged pings (null window: no pings logged). */
export type WhatIf = {
  readonly windowMs: Millis | null;
  readonly downCount: number;
  readonly downtimeMs: Millis;
  /** Down changes whose notification the project's maintenance windows would have held (0 when none). */
  readonly heldCount: number;
};

/** A check the form may name as a dependency: the project's other checks. */
export type DependencyChoice = { readonly uuid: string; readonly name: string };

/** The alerting fields' values of a new check: the section is folded while a form holds these. */
export const ALERTING_DEFAULTS = {
  failure_threshold: "1",
  reminder_interval: "0",
  muted_until: "",
  max_duration: "0",
  depends_on: "",
  min_duration: EMPTY_RUN_RULES.min_duration,
  max_runs_per_period: EMPTY_RUN_RULES.max_runs_per_period,
  alert_on_overlap: EMPTY_RUN_RULES.alert_on_overlap,
} as const satisfies Partial<CheckFormValues>;

/** Whether every field of `defaults` holds its default in `values` (an amount of 0 is 0 whatever its unit). */
function holdsDefaults(values: CheckFormValues, defaults: Partial<CheckFormValues>): boolean {
  return Object.entries(defaults).every(([key, value]) => values[key as keyof CheckFormValues] === value);
}

/**
 * A section of the form folded under its title while its fields hold their defaults (`folded`), so the
 * form shows what was set; the fields are still sent. Open when something in it is set or wrong.
 */
function section(cls: string, title: string, foldedWords: string, folded: boolean, body: Html): Html {
  return html`<details class="form-section ${cls}"${folded ? "" : html` open`}><summary>${title}${folded ? html` <span class="hint">(${foldedWords})</span>` : ""}</summary>
${body}</details>`;
}

/** The form's fields that show their own error (the others' errors go above the form). */
const FIELDS_WITH_ERRORS: ReadonlySet<string> = new Set([
  "name",
  "slug",
  "tags",
  "timeout",
  "schedule",
  "tz",
  "grace",
  "failure_threshold",
  "reminder_interval",
  "muted_until",
  "max_duration",
  "depends_on",
  "methods",
  "start_kw",
  "success_kw",
  "failure_kw",
  "push_token",
  "min_duration",
  "max_runs_per_period",
  "escalation",
]);

/** "With these settings, the last 3 days would have gone down 2 times, for 5 hours." */
function whatIfText(whatIf: WhatIf): string {
  if (whatIf.windowMs === null) return "No pings are logged yet: there is no history to try these settings on.";
  const times = whatIf.downCount === 1 ? "once" : `${whatIf.downCount} times`;
  const downtime = whatIf.downCount === 0 ? "" : `, for ${durationText(whatIf.downtimeMs)}`;
  const held =
    whatIf.heldCount === 0
      ? ""
      : ` Maintenance windows would have held ${whatIf.heldCount === 1 ? "one of its down notifications" : `${whatIf.heldCount} of its down notifications`}.`;
  return `With these settings, the last ${durationText(whatIf.windowMs)} would have gone down ${times}${downtime}.${held}`;
}

/** What a simple period means, for its preview: it has no timetable, each ping sets the next due time. */
function simplePeriodText(v: CheckFormValues): string {
  const words = (amount: string, unit: DurationUnit) => {
    const seconds = secondsOf(amount, unit);
    return typeof seconds === "number" ? durationText(seconds * 1000) : amountText(amount, unit);
  };
  return `Simple period: after each ping the next one is expected within ${words(v.timeout, v.timeout_unit)}, then ${words(v.grace, v.grace_unit)} of grace before the check is down. There is no fixed timetable to list.`;
}

/** An instant as the check's zone reads it ("2026-11-27 03:00:00 Europe/Riga"), with the UTC time next to it. */
function zonedTimeHtml(at: Millis, tz: string): Html {
  let local: string | null = null;
  try {
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat("en-GB", {
        timeZone: tz,
        year: "numeric",
        month: "2-digit",
        day: "2-digit",
        hour: "2-digit",
        minute: "2-digit",
        second: "2-digit",
        hourCycle: "h23",
      })
        .formatToParts(at)
        .map((p) => [p.type, p.value]),
    );
    local = `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second} ${tz}`;
  } catch {
    // not a zone Intl knows: the UTC time alone
  }
  return local === null || tz === "UTC" ? timeHtml(at) : html`<span class="zoned">${local}</span> (${timeHtml(at)})`;
}

/**
 * The schedule's preview, inside its fieldset where the schedule is typed: its button (the answer opens at
 * the list, so it shows without scrolling and without script) and the next expected pings, or what a
 * simple period means.
 */
function schedulePreview(
  v: CheckFormValues,
  opts: { readonly action: string; readonly preview: readonly Millis[]; readonly previewAsked?: boolean },
): Html {
  return html`<div class="schedule-preview" id="schedule-preview">
<button type="submit" name="action" value="preview" formaction="${opts.action}#schedule-preview">Preview the next pings</button>
${opts.preview.length === 0 ? "" : html`<p>Next expected pings:</p><ul>${opts.preview.map((at) => html`<li class="next">${zonedTimeHtml(at, v.tz || "UTC")}</li>`)}</ul>`}
${opts.previewAsked === true && v.kind === "simple" ? html`<p class="next" role="status">${simplePeriodText(v)}</p>` : ""}</div>`;
}

/**
 * The form's page. Its first button is a hidden Save: Enter in a field submits the form with the first
 * submit button, which would otherwise be the period's first quick pick.
 */
export function checkFormPage(
  viewer: Viewer,
  opts: {
    project: Project;
    action: string;
    title: string;
    values: CheckFormValues;
    error: string | null;
    preview: readonly Millis[];
    whatIf?: WhatIf | null;
    previewAsked?: boolean;
    /** The field the error is about (shown next to it instead of above the form); null or absent = none. */
    errorField?: string | null;
    /** The project's other checks, by name: the choices of depends_on. */
    dependencies: readonly DependencyChoice[];
    /** The project's integrations: the choices of each escalation step. */
    channels: readonly Pick<Channel, "id" | "name" | "kind">[];
  },
): string {
  const v = opts.values;
  const fieldError = (id: string) =>
    opts.errorField === id && opts.error !== null ? html`<p class="field-error" id="e-${id}" role="alert">${opts.error}</p>` : "";
  const invalidMark = (id: string) => (opts.errorField === id ? html` aria-invalid="true" aria-describedby="e-${id}"` : "");
  const field = (id: keyof CheckFormValues, label: string, extra: Value = "") =>
    html`<label for="f-${id}">${label}</label><input id="f-${id}" name="${id}" value="${v[id]}"${extra}${invalidMark(id)}>${fieldError(id)}`;
  const duration = (id: "timeout" | "grace" | "reminder_interval" | "max_duration" | "min_duration", label: string) =>
    html`${durationInputs({ id, label, amount: v[id], unit: v[`${id}_unit`], invalid: invalidMark(id), presets: id === "timeout" || id === "grace" })}${fieldError(id)}`;
  const chosen = new Set(v.depends_on.split(",").filter((uuid) => uuid !== ""));
  const erred = (keys: readonly string[]) => opts.errorField != null && keys.includes(opts.errorField);
  const alertingFolded = holdsDefaults(v, ALERTING_DEFAULTS) && !erred(Object.keys(ALERTING_DEFAULTS));
  const filteringFolded = holdsDefaults(v, EMPTY_FILTERS) && !erred(Object.keys(EMPTY_FILTERS));
  const radio = (kind: ScheduleFormKind, label: string) =>
    html`<label class="radio"><input type="radio" name="kind" value="${kind}"${v.kind === kind ? html` checked` : ""}> ${label}</label>`;
  return documentOf({
    title: opts.title,
    viewer,
    nav: projectNav(opts.project, viewer),
    body: html`<h1>${opts.title}</h1>
${opts.error === null || FIELDS_WITH_ERRORS.has(opts.errorField ?? "") ? "" : html`<p class="error" role="alert">${opts.error}</p>`}
<form method="post" action="${opts.action}" class="check-form"${opts.action.endsWith("/edit") ? "" : html` data-suggest-slug="${LIMITS.slugMaxChars}"`}>${csrfField(viewer)}
<button type="submit" name="action" value="save" class="visually-hidden" tabindex="-1" aria-hidden="true">Save</button>
${field("name", "Name")}${field("slug", "Slug (lower-case letters, digits, _ and -)", html` pattern="[a-z0-9_\\-]*" title="lower-case letters, digits, _ and -"`)}${field("tags", "Tags (separated by spaces)")}
<label for="f-desc">Description</label><textarea id="f-desc" name="desc" rows="3">
${v.desc}</textarea>
<fieldset class="schedule"><legend>Schedule</legend>${radio("simple", "Simple period")}${radio("cron", "Cron expression")}${radio("oncalendar", "OnCalendar expression")}
<div class="kind-simple">${duration("timeout", "Period")}</div>
<div class="kind-expression"${opts.errorField === "schedule" || opts.errorField === "tz" ? html` data-error` : ""}>${field("schedule", "Schedule expression", html` placeholder="${v.kind === "oncalendar" ? "Mon *-*-* 03:00:00" : "0 3 * * *"}"`)}
<p class="hint kind-cron">Five fields: minute, hour, day of month, month, day of week; for example <code>0 3 * * *</code> is every day at 03:00.</p>
<p class="hint kind-oncalendar">systemd's OnCalendar: for example <code>Mon *-*-* 03:00:00</code> is every Monday at 03:00; several lines are several timetables.</p>
<label for="f-tz">Time zone</label>${timeZoneSelect({ chosen: v.tz === "" ? "UTC" : v.tz, invalid: invalidMark("tz") })}${fieldError("tz")}</div>
${duration("grace", "Grace time")}
${schedulePreview(v, opts)}</fieldset>
${section(
  "alerting",
  "Alerting",
  "as by default: down at the first failure, no reminders, not muted, no run limits, no dependencies",
  alertingFolded,
  html`<fieldset><legend>Alerting</legend>
${field("failure_threshold", "Down after this many failures in a row (1-100)", html` inputmode="numeric"`)}
${duration("reminder_interval", "Reminder while down, every (0 = none, or 5 minutes and more)")}
${field("muted_until", "Muted until (ISO 8601 date and time, UTC unless an offset is given; empty = not muted)", html` placeholder="2026-01-01T00:00:00Z"`)}
${duration("max_duration", "Down when a started run has not finished after (0 = off, or 1 minute to 7 days)")}
${runRuleInputs(v, { field: (id, label) => field(id, label, html` inputmode="numeric"`), duration })}
<label for="f-depends_on">Depends on (while one of these is down, this check's notifications wait; several allowed)</label>
<select id="f-depends_on" name="depends_on" multiple size="${Math.min(Math.max(opts.dependencies.length, 2), 8)}"${invalidMark("depends_on")}>
${opts.dependencies.map((c) => html`<option value="${c.uuid}"${chosen.has(c.uuid) ? html` selected` : ""}>${c.name === "" ? "(unnamed)" : c.name}</option>`)}</select>${fieldError("depends_on")}</fieldset>`,
)}
${escalationFieldset(v, { channels: opts.channels, invalid: invalidMark, fieldError })}
${section(
  "filtering",
  "Filtering rules",
  "none: every ping counts as its URL says",
  filteringFolded,
  filterFieldset(v, { field: (id, label) => field(id, label), invalid: invalidMark, fieldError }),
)}
<fieldset><legend>Uptime Kuma</legend>
${field("push_token", "Push token: Kuma's push URL /api/push/<token> pings this check (empty = none)", html` autocomplete="off" spellcheck="false" pattern="[A-Za-z0-9_\-]{10,128}"`)}</fieldset>
${opts.whatIf == null ? "" : html`<p class="what-if" role="status">${whatIfText(opts.whatIf)}</p>`}
<button type="submit" name="action" value="save">Save</button>
${opts.action.endsWith("/edit") ? html`<button type="submit" name="action" value="preview">Preview: next pings and what these settings would have done</button>` : ""}
</form><script src="/static/check-form.js" defer></script>`,
  });
}
