// The alerting fields of a check's create or update body (CONTRACT "Alerting fields of a check", "Alerting,
// second part", "Alerting, third part"), and an escalation policy as a body gives it (a check's or a project's).
import type { CheckSpec, EscalationSpecStep, Millis } from "../engine/model.ts";
import { LIMITS, SECOND } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import { invalid, ok } from "../engine/outcome.ts";
import { isPushToken, isUuid } from "../engine/ids.ts";
import type { JsonObject } from "./body.ts";
import { channelsOf, isoInstantOf } from "./field-input.ts";

export type AlertingSpec = Pick<
  CheckSpec,
  | "failureThreshold"
  | "reminderIntervalMs"
  | "mutedUntilAt"
  | "maxDurationMs"
  | "dependsOn"
  | "pushToken"
  | "minDurationMs"
  | "alertOnOverlap"
  | "maxRunsPerPeriod"
  | "escalation"
>;

/** Returns the alerting fields of a create/update body (CONTRACT "Alerting fields of a check", "Alerting, second part"); invalid → 400 outcome. */
export function alertingOf(body: JsonObject): Outcome<AlertingSpec> {
  const spec: { -readonly [K in keyof AlertingSpec]: AlertingSpec[K] } = {};
  if (Object.hasOwn(body, "failure_threshold")) {
    const value = body.failure_threshold;
    if (typeof value !== "number" || !Number.isInteger(value)) return invalid("failure_threshold", "is not an integer");
    if (value < LIMITS.failureThresholdMin) return invalid("failure_threshold", "is too small");
    if (value > LIMITS.failureThresholdMax) return invalid("failure_threshold", "is too large");
    spec.failureThreshold = value;
  }
  if (Object.hasOwn(body, "reminder_interval")) {
    const value = body.reminder_interval;
    if (typeof value !== "number" || !Number.isInteger(value)) return invalid("reminder_interval", "is not an integer");
    if (value !== 0 && value * SECOND < LIMITS.reminderIntervalMinMs)
      return invalid("reminder_interval", "is too small (0, or 300 and more)");
    if (value * SECOND > LIMITS.reminderIntervalMaxMs) return invalid("reminder_interval", "is too large");
    spec.reminderIntervalMs = value * SECOND;
  }
  if (Object.hasOwn(body, "max_duration")) {
    const value = body.max_duration;
    if (typeof value !== "number" || !Number.isInteger(value)) return invalid("max_duration", "is not an integer");
    if (value !== 0 && value * SECOND < LIMITS.maxDurationMinMs) return invalid("max_duration", "is too small (0, or 60 and more)");
    if (value * SECOND > LIMITS.maxDurationMaxMs) return invalid("max_duration", "is too large");
    spec.maxDurationMs = value * SECOND;
  }
  if (Object.hasOwn(body, "depends_on")) {
    // the shard judges the rest (checks of this project, no cycle): it knows the checks
    const value = body.depends_on;
    if (typeof value !== "string") return invalid("depends_on", "is not a string");
    const uuids = value
      .split(",")
      .map((part) => part.trim())
      .filter((part) => part !== "");
    if (!uuids.every(isUuid)) return invalid("depends_on", "is not a comma-separated list of check uuids");
    spec.dependsOn = uuids;
  }
  if (Object.hasOwn(body, "push_token")) {
    // unique over every project: the pool judges that (host/pool.ts)
    const value = body.push_token;
    if (value !== null && value !== "" && (typeof value !== "string" || !isPushToken(value))) {
      return invalid("push_token", "must be 10 to 128 letters, digits, '-' or '_' (an Uptime Kuma push token), or null");
    }
    spec.pushToken = value === "" ? null : value;
  }
  if (Object.hasOwn(body, "muted_until")) {
    const value = body.muted_until;
    const at = typeof value === "string" ? isoInstantOf(value) : null;
    if (value !== null && at === null) return invalid("muted_until", "is not an ISO 8601 date and time, or null");
    spec.mutedUntilAt = at;
  }
  const runs = runRulesOf(body);
  if (!runs.ok) return runs;
  Object.assign(spec, runs.value);
  if (Object.hasOwn(body, "escalation")) {
    const policy = escalationOf(body.escalation);
    if (!policy.ok) return policy;
    spec.escalation = policy.value;
  }
  return ok(spec);
}

/** The run rules of a create/update body (CONTRACT "Alerting, third part"): min_duration, alert_on_overlap, max_runs_per_period. */
function runRulesOf(body: JsonObject): Outcome<Pick<CheckSpec, "minDurationMs" | "alertOnOverlap" | "maxRunsPerPeriod">> {
  const spec: { minDurationMs?: Millis; alertOnOverlap?: boolean; maxRunsPerPeriod?: number } = {};
  if (Object.hasOwn(body, "min_duration")) {
    const value = body.min_duration;
    if (typeof value !== "number" || !Number.isInteger(value)) return invalid("min_duration", "is not an integer");
    if (value < 0) return invalid("min_duration", "is too small (0, or 1 and more)");
    if (value * SECOND > LIMITS.minDurationMaxMs) return invalid("min_duration", "is too large");
    spec.minDurationMs = value * SECOND;
  }
  if (Object.hasOwn(body, "alert_on_overlap")) {
    if (typeof body.alert_on_overlap !== "boolean") return invalid("alert_on_overlap", "is not a boolean");
    spec.alertOnOverlap = body.alert_on_overlap;
  }
  if (Object.hasOwn(body, "max_runs_per_period")) {
    const value = body.max_runs_per_period;
    if (typeof value !== "number" || !Number.isInteger(value)) return invalid("max_runs_per_period", "is not an integer");
    if (value < 0) return invalid("max_runs_per_period", "is too small (0, or 1 and more)");
    if (value > LIMITS.maxRunsPerPeriodMax) return invalid("max_runs_per_period", "is too large");
    spec.maxRunsPerPeriod = value;
  }
  return ok(spec);
}

/**
 * Returns an escalation policy as a body gives it (CONTRACT "Alerting, third part"): null (the project's),
 * or a list of at most two steps `{"after": seconds, "channels": "*" or ids or names, comma-separated}`,
 * each later than the one before; invalid → 400 outcome on the field "escalation". Also the project's.
 */
export function escalationOf(value: unknown): Outcome<EscalationSpecStep[] | null> {
  if (value === null) return ok(null);
  if (!Array.isArray(value)) return invalid("escalation", "is not a list of steps, or null");
  if (value.length > LIMITS.escalationStepsMax) return invalid("escalation", `has more than ${LIMITS.escalationStepsMax} steps`);
  const steps: EscalationSpecStep[] = [];
  for (const [i, item] of value.entries()) {
    const where = `step ${i + 1}`;
    if (typeof item !== "object" || item === null || Array.isArray(item))
      return invalid("escalation", `${where} is not an object with after and channels`);
    const { after, channels } = item as Record<string, unknown>;
    if (typeof after !== "number" || !Number.isInteger(after)) return invalid("escalation", `${where}: after is not an integer`);
    if (after * SECOND < LIMITS.escalationAfterMinMs) return invalid("escalation", `${where}: after is too small (60 and more)`);
    if (after * SECOND > LIMITS.escalationAfterMaxMs) return invalid("escalation", `${where}: after is too large`);
    if (i > 0 && after * SECOND <= steps[i - 1].afterMs) return invalid("escalation", `${where}: after must be later than the step before`);
    if (typeof channels !== "string" || channels.trim() === "")
      return invalid("escalation", `${where}: channels is not a non-empty string`);
    const refs = channelsOf(channels);
    if (!refs.ok) return invalid("escalation", `${where}: ${refs.failure.code === "invalid" ? refs.failure.reason : "bad channels"}`);
    steps.push({ afterMs: after * SECOND, channels: refs.value });
  }
  return ok(steps);
}
