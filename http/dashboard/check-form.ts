// The add/edit form of a check and the checks table's filter: form fields ↔ the API's request body (which
// the API's own rules then judge), the schedule preview, and sorting.
import type { Check, Millis } from "../../engine/model.ts";
import { guessKind, nextAfter } from "../../engine/schedule.ts";
import { uniqueKeyOf } from "../../host/unique-key.ts";
import type { CheckFormValues } from "./check-form-page.ts";
import { ALERTING_DEFAULTS } from "./check-form-page.ts";
import type { DurationUnit } from "./duration-field.ts";
import { presetOf, secondsOf, splitSeconds, unitOf } from "./duration-field.ts";
import { EMPTY_FILTERS, filterBodyOf, filterValuesOf, filterValuesOfCheck } from "./filter-fields.ts";
import { EMPTY_RUN_RULES, runRuleBodyOf, runRuleValuesOf, runRuleValuesOfCheck } from "./run-rule-fields.ts";
import type { StatusWord } from "./pages.ts";
import type { Viewer } from "./page-frame.ts";
import type { ChecksFilter } from "./checks-list.ts";
import { STATUS_WORDS, tagsOf } from "./pages.ts";

export const NOTICES: Record<string, string> = {
  created: "Check created.",
  saved: "Changes saved.",
  pause: "Check paused.",
  resume: "Check resumed.",
  ping: "Success ping sent.",
  "ping-keyword": "Success ping sent, with one of the check's success keywords as its body (its body filter is on).",
  acknowledge: "Outage acknowledged.",
};

export const EMPTY_FORM: CheckFormValues = {
  name: "",
  slug: "",
  tags: "",
  desc: "",
  kind: "simple",
  timeout: "1",
  timeout_unit: "days",
  grace: "1",
  grace_unit: "hours",
  schedule: "",
  tz: "UTC",
  reminder_interval_unit: "hours",
  max_duration_unit: "minutes",
  push_token: "",
  ...EMPTY_FILTERS,
  ...EMPTY_RUN_RULES,
  ...ALERTING_DEFAULTS,
};

/** Returns how a viewer's URLs name a check: uuid, or unique_key for read-only keys (the uuid is a ping capability). */
export function refFor(viewer: Viewer, check: Check): string {
  return viewer.readonly ? uniqueKeyOf(check.uuid) : check.uuid;
}

export function formValuesOf(form: URLSearchParams): CheckFormValues {
  const get = (name: string) => form.get(name) ?? "";
  return {
    // a textarea sends its line breaks as CR LF whatever it was given: the API's clients write LF
    name: get("name"),
    slug: get("slug"),
    tags: get("tags"),
    desc: get("desc").replace(/\r\n/g, "\n"),
    kind: get("kind") === "cron" ? "cron" : get("kind") === "oncalendar" ? "oncalendar" : "simple",
    timeout: get("timeout").trim(),
    timeout_unit: unitOf(get("timeout_unit")),
    grace: get("grace").trim(),
    grace_unit: unitOf(get("grace_unit")),
    schedule: get("schedule"),
    tz: get("tz").trim(),
    ...filterValuesOf(form),
    failure_threshold: get("failure_threshold").trim(),
    reminder_interval: get("reminder_interval").trim(),
    reminder_interval_unit: unitOf(get("reminder_interval_unit")),
    muted_until: get("muted_until").trim(),
    max_duration: get("max_duration").trim(),
    max_duration_unit: unitOf(get("max_duration_unit")),
    depends_on: form.getAll("depends_on").join(","), // one value per chosen check
    push_token: get("push_token").trim(),
    ...runRuleValuesOf(form),
  };
}

/** The form's values with the check's description exactly as stored when the form sent it back unchanged (only its line breaks differ). */
export function keepStoredDesc(values: CheckFormValues, check: Check): CheckFormValues {
  return values.desc === check.desc.replace(/\r\n?/g, "\n") ? { ...values, desc: check.desc } : values;
}

export function formValuesOfCheck(check: Check): CheckFormValues {
  return {
    name: check.name,
    slug: check.slug,
    tags: check.tags,
    desc: check.desc,
    kind: check.kind === "simple" ? "simple" : guessKind(check.schedule),
    ...durationValues("timeout", Math.floor(check.timeoutMs / 1000)),
    ...durationValues("grace", Math.floor(check.graceMs / 1000)),
    schedule: check.schedule,
    tz: check.tz,
    ...filterValuesOfCheck(check),
    failure_threshold: String(check.failureThreshold ?? 1),
    ...durationValues("reminder_interval", Math.floor((check.reminderIntervalMs ?? 0) / 1000), EMPTY_FORM.reminder_interval_unit),
    muted_until: check.mutedUntilAt == null ? "" : new Date(check.mutedUntilAt).toISOString(),
    ...durationValues("max_duration", Math.floor((check.maxDurationMs ?? 0) / 1000), EMPTY_FORM.max_duration_unit),
    depends_on: (check.dependsOn ?? []).join(","),
    push_token: check.pushToken ?? "",
    ...runRuleValuesOfCheck(check),
  };
}

/** A duration field's seconds as the form's amount and unit (0 in `zeroUnit`). */
function durationValues<F extends "timeout" | "grace" | "reminder_interval" | "max_duration">(
  field: F,
  seconds: number,
  zeroUnit?: DurationUnit,
) {
  const { amount, unit } = splitSeconds(seconds, zeroUnit);
  return { [field]: amount, [`${field}_unit`]: unit } as Record<F, string> & Record<`${F}_unit`, ReturnType<typeof unitOf>>;
}

/** The form's values with a pressed quick pick applied ("Period: 1 hour"); null when none was pressed. */
export function withPreset(values: CheckFormValues, form: URLSearchParams): CheckFormValues | null {
  const preset = presetOf(form);
  return preset === null ? null : { ...values, ...durationValues(preset.field, preset.seconds) };
}

/** Returns the API request body the form stands for: the API's own rules then judge it, with its error texts. */
export function checkBodyOf(values: CheckFormValues): Record<string, unknown> {
  const number = (text: string) => (/^-?\d+$/.test(text) ? Number(text) : text); // not a number: the API says so
  const body: Record<string, unknown> = {
    name: values.name,
    slug: values.slug,
    tags: values.tags,
    desc: values.desc,
    ...filterBodyOf(values),
  };
  if (values.kind === "simple") {
    if (values.timeout !== "") body.timeout = secondsOf(values.timeout, values.timeout_unit);
  } else {
    body.schedule = values.schedule;
    if (values.tz !== "") body.tz = values.tz;
  }
  if (values.grace !== "") body.grace = secondsOf(values.grace, values.grace_unit);
  if (values.failure_threshold !== "") body.failure_threshold = number(values.failure_threshold);
  if (values.reminder_interval !== "") body.reminder_interval = secondsOf(values.reminder_interval, values.reminder_interval_unit);
  if (values.max_duration !== "") body.max_duration = secondsOf(values.max_duration, values.max_duration_unit);
  body.depends_on = values.depends_on; // no check chosen: no dependency
  body.muted_until = values.muted_until === "" ? null : values.muted_until; // an emptied field unmutes
  body.push_token = values.push_token === "" ? null : values.push_token; // an emptied field takes the token away
  return { ...body, ...runRuleBodyOf(values) };
}

/** The next five expected pings of a cron / OnCalendar form (none for simple periods or invalid input). */
export function previewOf(values: CheckFormValues, at: Millis): Millis[] {
  if (values.kind === "simple" || values.schedule.trim() === "") return [];
  const next: Millis[] = [];
  let after = at;
  for (let i = 0; i < 5; i++) {
    const due = nextAfter(values.schedule, values.tz || "UTC", after);
    if (due === null) break;
    next.push(due);
    after = due;
  }
  return next;
}

/** Tags one filter may ask for at once: more are dropped (each costs a pass over the project's checks). */
const MAX_FILTER_TAGS = 20;

export function filterOf(params: URLSearchParams): ChecksFilter {
  const status = params.get("status") ?? "";
  const sort = params.get("sort");
  return {
    q: params.get("q") ?? "",
    status: (STATUS_WORDS as readonly string[]).includes(status) ? status : "",
    // every tag asked for, each once (a check shows only when it has them all); empty ones are the form's "any"
    tags: [...new Set(params.getAll("tag").filter((t) => t !== ""))].slice(0, MAX_FILTER_TAGS),
    sort: sort === "name" || sort === "last_ping" ? sort : "status",
    page: /^[1-9][0-9]{0,6}$/.test(params.get("page") ?? "") ? Number(params.get("page")) : 1, // anything else: the first page
  };
}

/**
 * Whether `check` (its status word `word`) is one the filter keeps: every tag of the filter among its
 * tags, its status when one is asked, and the search text within its name, slug, one of its tags, or (not
 * for read-only viewers, who are never shown it) its uuid.
 */
export function keptByFilter(check: Check, word: StatusWord, filter: ChecksFilter, readonly: boolean): boolean {
  const tags = filter.tags.length === 0 && filter.q === "" ? [] : tagsOf(check.tags);
  if (!filter.tags.every((t) => tags.includes(t))) return false;
  if (filter.status !== "" && word !== filter.status) return false;
  const q = filter.q.trim().toLowerCase();
  if (q === "") return true;
  return (
    check.name.toLowerCase().includes(q) ||
    check.slug.includes(q) ||
    tags.some((t) => t.toLowerCase().includes(q)) ||
    (!readonly && check.uuid.includes(q))
  );
}

/** Down first (then late, started, up, new, paused), then by name; or by name; or most recent ping first. */
export function sortChecks(checks: Check[], sort: ChecksFilter["sort"], wordOf: (check: Check) => StatusWord): void {
  const byName = (a: Check, b: Check) => a.name.localeCompare(b.name) || a.uuid.localeCompare(b.uuid);
  if (sort === "name") checks.sort(byName);
  else if (sort === "last_ping") checks.sort((a, b) => (b.lastPingAt ?? -1) - (a.lastPingAt ?? -1) || byName(a, b));
  else {
    // each check's rank once, not twice per comparison
    const ranked = checks.map((check) => ({ check, rank: STATUS_WORDS.indexOf(wordOf(check)) }));
    ranked.sort((a, b) => a.rank - b.rank || byName(a.check, b.check));
    ranked.forEach(({ check }, i) => {
      checks[i] = check;
    });
  }
}
