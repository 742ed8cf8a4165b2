// The body of POST /api/v3/checks/<uuid>/simulate → candidate settings and the window start. The period
// fields, failure_threshold, the run rules and escalation go through the update's own validation
// (checkRequestOf), so they fail with the same texts.
import type { Millis } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import { invalid, ok } from "../engine/outcome.ts";
import type { SimulationSettings } from "../engine/simulate.ts";
import type { JsonObject } from "./body.ts";
import { checkRequestOf } from "./input.ts";

/** The settings a simulation may vary, as the update API names them. */
const PERIOD_FIELDS = [
  "timeout",
  "grace",
  "schedule",
  "tz",
  "failure_threshold",
  "max_duration",
  "min_duration",
  "alert_on_overlap",
  "max_runs_per_period",
  "escalation",
] as const;

export type SimulationRequest = { readonly settings: SimulationSettings; readonly sinceAt: Millis | null };

/** Returns the validated simulation request; invalid → 400 outcome. Other fields are ignored, as update ignores unknown ones. */
export function simulationRequestOf(body: JsonObject): Outcome<SimulationRequest> {
  const period: Record<string, unknown> = {};
  for (const field of PERIOD_FIELDS) if (Object.hasOwn(body, field)) period[field] = body[field];
  const request = checkRequestOf(period, null);
  if (!request.ok) return request;
  const { timeoutMs, graceMs, schedule, tz, failureThreshold, maxDurationMs, minDurationMs, alertOnOverlap, maxRunsPerPeriod, escalation } =
    request.value.spec;
  const since = sinceOf(body);
  if (!since.ok) return since;
  const settings: { -readonly [K in keyof SimulationSettings]: SimulationSettings[K] } = {};
  if (timeoutMs !== undefined) settings.timeoutMs = timeoutMs;
  if (graceMs !== undefined) settings.graceMs = graceMs;
  if (schedule !== undefined) settings.schedule = schedule;
  if (tz !== undefined) settings.tz = tz;
  if (failureThreshold !== undefined) settings.failureThreshold = failureThreshold;
  if (maxDurationMs !== undefined) settings.maxDurationMs = maxDurationMs;
  if (minDurationMs !== undefined) settings.minDurationMs = minDurationMs;
  if (alertOnOverlap !== undefined) settings.alertOnOverlap = alertOnOverlap;
  if (maxRunsPerPeriod !== undefined) settings.maxRunsPerPeriod = maxRunsPerPeriod;
  // the steps' integrations are not simulated (the counted one stands for them): when each comes is
  if (escalation !== undefined) settings.escalation = escalation === null ? null : escalation.map((step) => ({ afterMs: step.afterMs }));
  return ok({ settings, sinceAt: since.value });
}

// a date, optionally with a time and a zone: what "ISO 8601" means to clients (Date.parse alone takes much more)
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

function sinceOf(body: JsonObject): Outcome<Millis | null> {
  if (!Object.hasOwn(body, "since")) return ok(null);
  const value = body.since;
  const parsed = typeof value === "string" && ISO_8601.test(value) ? Date.parse(asUtc(value)) : NaN;
  if (!Number.isFinite(parsed)) return invalid("since", "must be an ISO 8601 timestamp");
  return ok(parsed);
}

/** A date-time without a zone is UTC (Date.parse would read it in the server's local zone). */
function asUtc(text: string): string {
  const iso = text.replace(" ", "T");
  return /T[^Z+-]*$/.test(iso) ? `${iso}Z` : iso;
}
