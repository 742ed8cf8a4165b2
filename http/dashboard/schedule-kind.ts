// The check form's schedule kind against what was typed: a cron / OnCalendar expression typed while
// "Simple period" stays chosen would be dropped without a word, so the form refuses it next to the field;
// and an expression's time zone must be one of the picker's (or the one the check has).
import type { Failure } from "../../engine/outcome.ts";
import type { CheckFormValues } from "./check-form-page.ts";
import { timeZoneProblem } from "./time-zones.ts";

/**
 * Returns the form's field error when a schedule was typed (it differs from the one the form showed) but
 * the kind is simple, or an expression's zone is not a picker's name; `shown` is what the form showed first.
 */
export function scheduleKindProblem(values: CheckFormValues, shown: Pick<CheckFormValues, "schedule" | "tz">): Failure | null {
  if (values.kind !== "simple") return timeZoneProblem(values.tz === "" ? "UTC" : values.tz, shown.tz);
  const typed = values.schedule.trim();
  if (typed === "" || typed === shown.schedule.trim()) return null;
  return {
    code: "invalid",
    field: "schedule",
    reason: `"${typed}" is typed but "Simple period" is chosen: choose "Cron expression" or "OnCalendar expression" to use it, or empty the field`,
  };
}
