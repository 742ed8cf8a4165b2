// The check form's run rules and escalation (CONTRACT "Alerting, third part"): min_duration,
// max_runs_per_period and alert_on_overlap, and the check's escalation policy (the project's, or up to two
// steps of its own, each an `after` and integrations to notify). The API's fields and rules, as form inputs;
// min_duration and each `after` are a number and a unit (duration-field.ts), sent as seconds.
import type { Channel, Check } from "../../engine/model.ts";
import type { DurationUnit } from "./duration-field.ts";
import { durationInputs, secondsOf, splitSeconds, unitOf } from "./duration-field.ts";
import type { Html } from "./html.ts";
import { html } from "./html.ts";

/** The inputs as typed: numbers as text with their units, the flag "1" when ticked; each step's integrations as comma-separated ids. */
export type RunRuleValues = {
  readonly min_duration: string;
  readonly min_duration_unit: DurationUnit;
  readonly max_runs_per_period: string;
  readonly alert_on_overlap: string;
  /** "project": the project's policy (the API's null); "own": the steps below ([] = none). */
  readonly escalation_mode: "project" | "own";
  readonly escalation_1_after: string;
  readonly escalation_1_after_unit: DurationUnit;
  readonly escalation_1_channels: string;
  readonly escalation_2_after: string;
  readonly escalation_2_after_unit: DurationUnit;
  readonly escalation_2_channels: string;
};

export const EMPTY_RUN_RULES: RunRuleValues = {
  min_duration: "0",
  min_duration_unit: "minutes",
  max_runs_per_period: "0",
  alert_on_overlap: "",
  escalation_mode: "project",
  escalation_1_after: "",
  escalation_1_after_unit: "minutes",
  escalation_1_channels: "",
  escalation_2_after: "",
  escalation_2_after_unit: "minutes",
  escalation_2_channels: "",
};

const STEPS = [1, 2] as const;

/** The inputs a form sent (an unticked checkbox sends nothing: off; a multiple select one value per choice; no unit: seconds). */
export function runRuleValuesOf(form: URLSearchParams): RunRuleValues {
  const get = (name: string) => (form.get(name) ?? "").trim();
  return {
    min_duration: get("min_duration"),
    min_duration_unit: unitOf(get("min_duration_unit")),
    max_runs_per_period: get("max_runs_per_period"),
    alert_on_overlap: get("alert_on_overlap") === "" ? "" : "1",
    escalation_mode: get("escalation_mode") === "own" ? "own" : "project",
    escalation_1_after: get("escalation_1_after"),
    escalation_1_after_unit: unitOf(get("escalation_1_after_unit")),
    escalation_1_channels: form.getAll("escalation_1_channels").join(","),
    escalation_2_after: get("escalation_2_after"),
    escalation_2_after_unit: unitOf(get("escalation_2_after_unit")),
    escalation_2_channels: form.getAll("escalation_2_channels").join(","),
  };
}

export function runRuleValuesOfCheck(check: Check): RunRuleValues {
  const steps = check.escalation ?? [];
  // each in the largest unit that holds it whole; an absent step is empty, in the new form's unit
  const after = (i: number) =>
    steps[i] === undefined
      ? { amount: "", unit: EMPTY_RUN_RULES.escalation_1_after_unit }
      : splitSeconds(Math.floor(steps[i].afterMs / 1000));
  const [first, second] = [after(0), after(1)];
  const shortest = splitSeconds(Math.floor((check.minDurationMs ?? 0) / 1000), EMPTY_RUN_RULES.min_duration_unit);
  return {
    min_duration: shortest.amount,
    min_duration_unit: shortest.unit,
    max_runs_per_period: String(check.maxRunsPerPeriod ?? 0),
    alert_on_overlap: check.alertOnOverlap === true ? "1" : "",
    escalation_mode: check.escalation === undefined ? "project" : "own",
    escalation_1_after: first.amount,
    escalation_1_after_unit: first.unit,
    escalation_1_channels: (steps[0]?.channels ?? []).join(","),
    escalation_2_after: second.amount,
    escalation_2_after_unit: second.unit,
    escalation_2_channels: (steps[1]?.channels ?? []).join(","),
  };
}

/** The API request fields the inputs stand for; a step with neither an `after` nor integrations is left out. */
export function runRuleBodyOf(values: RunRuleValues): Record<string, unknown> {
  const number = (text: string) => (/^-?\d+$/.test(text) ? Number(text) : text); // not a number: the API says so
  const body: Record<string, unknown> = { alert_on_overlap: values.alert_on_overlap === "1" };
  if (values.min_duration !== "") body.min_duration = secondsOf(values.min_duration, values.min_duration_unit);
  if (values.max_runs_per_period !== "") body.max_runs_per_period = number(values.max_runs_per_period);
  if (values.escalation_mode === "project") {
    body.escalation = null;
    return body;
  }
  const steps: Record<string, unknown>[] = [];
  for (const n of STEPS) {
    const after = values[`escalation_${n}_after`],
      channels = values[`escalation_${n}_channels`];
    if (after === "" && channels === "") continue;
    steps.push({ after: after === "" ? "" : secondsOf(after, values[`escalation_${n}_after_unit`]), channels });
  }
  body.escalation = steps;
  return body;
}

/** The run rules' inputs; `field` renders one labelled text input with its error, `duration` a number and a unit with its error. */
export function runRuleInputs(
  values: RunRuleValues,
  opts: {
    readonly field: (id: "max_runs_per_period", label: string) => Html;
    readonly duration: (id: "min_duration", label: string) => Html;
  },
): Html {
  return html`${opts.duration("min_duration", "Down when a run succeeds sooner than this after its start (0 = off)")}
${opts.field("max_runs_per_period", "Down when it succeeds more than N times in one period (0 = off)")}
<label class="check"><input type="checkbox" id="f-alert_on_overlap" name="alert_on_overlap" value="1"${values.alert_on_overlap === "1" ? html` checked` : ""}> Down when runs overlap (a start, or another run's success, while a run is still going; without this, overlaps are only noted)</label>`;
}

/** The escalation fieldset: the project's policy or the check's own steps, each with its integrations to choose from. */
export function escalationFieldset(
  values: RunRuleValues,
  opts: {
    readonly channels: readonly Pick<Channel, "id" | "name" | "kind">[];
    readonly invalid: (id: string) => Html | string;
    readonly fieldError: (id: string) => Html | string;
  },
): Html {
  const radio = (mode: RunRuleValues["escalation_mode"], label: string) =>
    html`<label class="radio"><input type="radio" name="escalation_mode" value="${mode}"${values.escalation_mode === mode ? html` checked` : ""}> ${label}</label>`;
  const step = (n: 1 | 2, label: string) => {
    const chosen = new Set(values[`escalation_${n}_channels`].split(",").filter((id) => id !== ""));
    return html`<div class="escalation-step">${durationInputs({
      id: `escalation_${n}_after`,
      label: `${label}: after this long down and not acknowledged (1 minute and more)`,
      amount: values[`escalation_${n}_after`],
      unit: values[`escalation_${n}_after_unit`],
      invalid: opts.invalid("escalation"),
      presets: false,
    })}
<label for="f-escalation_${n}_channels">${label}: also notify</label>
<select id="f-escalation_${n}_channels" name="escalation_${n}_channels" multiple size="${Math.min(Math.max(opts.channels.length, 2), 6)}">
${opts.channels.map((c) => html`<option value="${c.id}"${chosen.has(c.id) ? html` selected` : ""}>${c.name === "" ? c.kind : `${c.name} (${c.kind})`}</option>`)}</select></div>`;
  };
  return html`<fieldset class="escalation"><legend>Escalation</legend>
<p class="hint">While the check stays down and nobody acknowledges the outage, each step notifies more integrations; they hear of the recovery too.</p>
${radio("project", "The project's escalation policy")}${radio("own", "This check's own steps (none filled in: no escalation)")}
${step(1, "Escalation step 1")}${step(2, "Escalation step 2")}${opts.fieldError("escalation")}</fieldset>`;
}
