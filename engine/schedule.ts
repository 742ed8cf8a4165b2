// STUB — being replaced by the schedule implementation. Signatures are fixed.
import type { Millis } from "./model.ts";
import type { Outcome } from "./outcome.ts";
import { invalid } from "./outcome.ts";

export type ScheduleKind = "cron" | "oncalendar";
/** Returns "cron" for one line of exactly 5 whitespace-separated fields, else "oncalendar". */
export function guessKind(expr: string): ScheduleKind {
  const lines = expr.trim().split("\n");
  return lines.length === 1 && lines[0].trim().split(/\s+/).length === 5 ? "cron" : "oncalendar";
}
/** Returns the canonical IANA name for `name` (legacy names mapped), or null when unknown. */
export function canonicalZone(name: string): string | null { return name === "UTC" ? "UTC" : null; }
/** Validates a schedule expression and zone; returns the kind. */
export function validateSchedule(expr: string, tz: string): Outcome<ScheduleKind> { return invalid("schedule", `not implemented: ${expr} ${tz}`); }
/** Returns the first occurrence strictly after `afterAt` (to the second), in epoch ms; null when none. */
export function nextAfter(expr: string, tz: string, afterAt: Millis): Millis | null { void expr; void tz; void afterAt; return null; }
