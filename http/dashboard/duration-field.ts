// A duration field of the dashboard's forms as a number and a unit (minutes, hours, days; seconds for a
// stored value that is not a whole number of minutes): the check's period and grace, with the reference's
// quick picks, its reminder interval and run time limit, a maintenance window's length. The API still
// receives seconds: the form multiplies, and the API's rules judge the result.
import type { Html } from "./html.ts";
import { html } from "./html.ts";

export const DURATION_UNITS = ["seconds", "minutes", "hours", "days"] as const;
export type DurationUnit = (typeof DURATION_UNITS)[number];

const UNIT_SECONDS: Record<DurationUnit, number> = { seconds: 1, minutes: 60, hours: 3600, days: 86400 };

/** The reference's quick picks of its period and grace sliders, in seconds, with their words. */
export const DURATION_PRESETS: readonly { readonly seconds: number; readonly label: string }[] = [
  { seconds: 60, label: "1 minute" },
  { seconds: 300, label: "5 minutes" },
  { seconds: 1800, label: "30 minutes" },
  { seconds: 3600, label: "1 hour" },
  { seconds: 43200, label: "12 hours" },
  { seconds: 86400, label: "1 day" },
  { seconds: 604800, label: "1 week" },
  { seconds: 2592000, label: "30 days" },
];

/** Returns the unit named by a form's select; anything else is seconds (the exact reading of a typed number). */
export function unitOf(text: string): DurationUnit {
  return (DURATION_UNITS as readonly string[]).includes(text) ? (text as DurationUnit) : "seconds";
}

/** Returns seconds as a number in the largest unit that holds them whole: 3600 → 1 hours, 90 → 90 seconds; 0 in `zeroUnit`. */
export function splitSeconds(
  seconds: number,
  zeroUnit: DurationUnit = "seconds",
): { readonly amount: string; readonly unit: DurationUnit } {
  if (seconds === 0) return { amount: "0", unit: zeroUnit };
  for (const unit of ["days", "hours", "minutes"] as const) {
    if (seconds > 0 && seconds % UNIT_SECONDS[unit] === 0) return { amount: String(seconds / UNIT_SECONDS[unit]), unit };
  }
  return { amount: String(seconds), unit: "seconds" };
}

/**
 * Returns the seconds a typed amount of `unit` stands for, as the API takes them: a whole number, or the
 * typed text itself when it is not one (the API then refuses it, and the form says the rule).
 */
export function secondsOf(amount: string, unit: DurationUnit): number | string {
  if (!/^\d+(\.\d+)?$/.test(amount)) return amount;
  const seconds = Number(amount) * UNIT_SECONDS[unit];
  return Number.isSafeInteger(seconds) ? seconds : amount;
}

/** Returns "every 1 hour"-style words for a typed amount and unit ("1 hours" reads as "1 hour"). */
export function amountText(amount: string, unit: DurationUnit): string {
  return `${amount} ${amount === "1" ? unit.slice(0, -1) : unit}`;
}

/**
 * One duration's inputs: the number, its unit, and for period and grace the quick picks. Each pick is a
 * submit button the server answers with the form filled in (no script needed); the page's script fills
 * it in place. `idPrefix`: the inputs' ids are `${idPrefix}${id}` and `${idPrefix}${id}_unit`.
 */
export function durationInputs(opts: {
  readonly id: string;
  readonly label: string;
  readonly amount: string;
  readonly unit: DurationUnit;
  readonly invalid: Html | string;
  readonly presets?: boolean;
  readonly idPrefix?: string;
}): Html {
  const { id } = opts;
  const f = opts.idPrefix ?? "f-";
  const presets =
    opts.presets === false
      ? ""
      : html`<span class="presets" role="group" aria-label="${opts.label}: quick picks">${DURATION_PRESETS.map(
          (preset) =>
            html`<button type="submit" class="preset" name="preset" value="${id}:${preset.seconds}" formnovalidate aria-label="${opts.label}: ${preset.label}">${preset.label}</button>`,
        )}</span>`;
  return html`<div class="duration" data-duration="${id}"><label for="${f}${id}">${opts.label}</label>
<span class="duration-inputs"><input id="${f}${id}" name="${id}" value="${opts.amount}" inputmode="decimal" size="6"${opts.invalid}>
<label class="visually-hidden" for="${f}${id}_unit">${opts.label}: unit</label><select id="${f}${id}_unit" name="${id}_unit">
${DURATION_UNITS.map((unit) => html`<option value="${unit}"${unit === opts.unit ? html` selected` : ""}>${unit}</option>`)}</select></span>
${presets}</div>`;
}

/** Returns the field and seconds of a pressed quick pick ("grace:3600"), or null when none was pressed (or it is not one of ours). */
export function presetOf(form: URLSearchParams): { readonly field: "timeout" | "grace"; readonly seconds: number } | null {
  const match = /^(timeout|grace):(\d+)$/.exec(form.get("preset") ?? "");
  if (match === null) return null;
  const seconds = Number(match[2]);
  if (!DURATION_PRESETS.some((preset) => preset.seconds === seconds)) return null;
  return { field: match[1] as "timeout" | "grace", seconds };
}
