// The check form's schedule kind against what was typed: a cron / OnCalendar expression typed while
// "Simple period" stays chosen would be dropped without a word, so the form refuses it next to the field.
import type { Failure } from "../../engine/outcome.ts";
import type { CheckFormValues } from "./pages.ts";

/** Returns the form's field error when a schedule was typed (it differs from the one the form showed) but the kind is simple. */
export function scheduleKindProblem(values: CheckFormValues, shownSchedule: string): Failure | null {
  if (values.kind !== "simple") return null;
  const typed = values.schedule.trim();
  if (typed === "" || typed === shownSchedule.trim()) return null;
  return { code: "invalid", field: "schedule", reason: `"${typed}" is typed but "Simple period" is chosen: choose "Cron or OnCalendar expression" to use it, or empty the field` };
}
