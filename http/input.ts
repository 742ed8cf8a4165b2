// Request bodies and queries → engine commands (seconds → ms). Every 400 of the API is decided here,
// for the whole request, before any command runs: bad input never changes state.
// Reference: research/healthchecks-api.md §3 (bodies), §4 (strict types), §5 (semantics), §11 (flip filters).
import type { CheckSpec, EscalationSpecStep, Millis, UniqueField } from "../engine/model.ts";
import { LIMITS, SECOND, UNIQUE_FIELDS } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import { invalid, ok } from "../engine/outcome.ts";
import type { CheckQuery, FlipQuery } from "../host/pool-api.ts";
import { canonicalZone } from "../engine/zones.ts";
import { validateSchedule } from "../engine/schedule.ts";
import type { JsonObject } from "./body.ts";
import { isPushToken, isSlug, isUuid } from "../engine/ids.ts";
import { slugify } from "../lib/slugify.ts";
import type { ApiVersion } from "../host/api-versions.ts";
import { slugFollowsName } from "../host/api-versions.ts";

export type CheckRequest = { readonly spec: CheckSpec; readonly unique: readonly UniqueField[] };

/** Stored keywords an update starts from: the deprecated subject fields recompute filter_subject from them. */
export type StoredKeywords = { readonly successKw: string; readonly failureKw: string };

/**
 * Returns the validated create/update request (spec §4.2/§4.3, reference strict typing); invalid → 400 outcome.
 * `stored` is the check being updated (create: none), for the deprecated subject/subject_fail inputs.
 */
export function checkRequestOf(body: JsonObject, stored: StoredKeywords | null): Outcome<CheckRequest> {
  const has = (field: string) => Object.hasOwn(body, field);
  // null for any known field → 400 (reference check_nulls)
  for (const field of KNOWN_FIELDS) if (has(field) && body[field] === null) return invalid(field, "is not a valid value");

  const spec: { -readonly [K in keyof CheckSpec]: CheckSpec[K] } = {};
  const text = (field: string, maxChars: number | null): Outcome<string | undefined> => {
    if (!has(field)) return ok(undefined);
    const value = body[field];
    if (typeof value !== "string") return invalid(field, "is not a string");
    if (maxChars !== null && [...value].length > maxChars) return invalid(field, "is too long");
    return ok(value);
  };
  const seconds = (field: string): Outcome<Millis | undefined> => {
    if (!has(field)) return ok(undefined);
    const value = body[field];
    if (typeof value !== "number" || !Number.isInteger(value)) return invalid(field, "is not a number");
    if (value * SECOND < LIMITS.timeoutMinMs) return invalid(field, "is too small");
    if (value * SECOND > LIMITS.timeoutMaxMs) return invalid(field, "is too large");
    return ok(value * SECOND);
  };
  const flag = (field: string): Outcome<boolean | undefined> => {
    if (!has(field)) return ok(undefined);
    const value = body[field];
    return typeof value === "boolean" ? ok(value) : invalid(field, "is not a boolean");
  };

  // Fields in the reference Spec's order, so the first error reported is the reference's.
  const channels = text("channels", null);
  if (!channels.ok) return channels;
  const desc = text("desc", null);
  if (!desc.ok) return desc;
  const failureKw = text("failure_kw", LIMITS.keywordsMaxChars);
  if (!failureKw.ok) return failureKw;
  const filterBody = flag("filter_body");
  if (!filterBody.ok) return filterBody;
  const filterSubject = flag("filter_subject");
  if (!filterSubject.ok) return filterSubject;
  const filterHttpBody = flag("filter_http_body");
  if (!filterHttpBody.ok) return filterHttpBody;
  const filterDefaultFail = flag("filter_default_fail");
  if (!filterDefaultFail.ok) return filterDefaultFail;
  const grace = seconds("grace");
  if (!grace.ok) return grace;
  const manualResume = flag("manual_resume");
  if (!manualResume.ok) return manualResume;
  if (has("methods") && body.methods !== "" && body.methods !== "POST") return invalid("methods", "has unexpected value");
  const name = text("name", LIMITS.nameMaxChars);
  if (!name.ok) return name;
  const schedule = text("schedule", LIMITS.scheduleMaxChars);
  if (!schedule.ok) return schedule;
  const slug = text("slug", LIMITS.slugMaxChars);
  if (!slug.ok) return slug;
  if (slug.value !== undefined && !isSlug(slug.value)) return invalid("slug", "does not match pattern");
  const startKw = text("start_kw", LIMITS.keywordsMaxChars);
  if (!startKw.ok) return startKw;
  const subject = text("subject", LIMITS.keywordsMaxChars);
  if (!subject.ok) return subject;
  const subjectFail = text("subject_fail", LIMITS.keywordsMaxChars);
  if (!subjectFail.ok) return subjectFail;
  const successKw = text("success_kw", LIMITS.keywordsMaxChars);
  if (!successKw.ok) return successKw;
  const tags = text("tags", LIMITS.tagsMaxChars);
  if (!tags.ok) return tags;
  const timeout = seconds("timeout");
  if (!timeout.ok) return timeout;
  const tzText = text("tz", null);
  if (!tzText.ok) return tzText;
  let tz: string | undefined;
  if (tzText.value !== undefined) {
    // validated (and legacy names mapped) even without a schedule, as the reference does
    const zone = canonicalZone(tzText.value);
    if (zone === null) return invalid("tz", "is not a valid timezone");
    tz = zone;
  }
  const unique = uniqueOf(body);
  if (!unique.ok) return unique;
  if (schedule.value !== undefined) {
    const valid = validateSchedule(schedule.value, tz ?? "UTC");
    if (!valid.ok || schedule.value.trim() === "") return invalid("schedule", "is not a valid cron or OnCalendar expression");
  }
  const alerting = alertingOf(body);
  if (!alerting.ok) return alerting;
  let channelRefs: CheckSpec["channels"];
  if (channels.value !== undefined) {
    const resolved = channelsOf(channels.value);
    if (!resolved.ok) return resolved;
    channelRefs = resolved.value;
  }

  if (name.value !== undefined) spec.name = name.value;
  if (slug.value !== undefined) spec.slug = slug.value;
  if (tags.value !== undefined) spec.tags = tags.value;
  if (desc.value !== undefined) spec.desc = desc.value;
  if (timeout.value !== undefined) spec.timeoutMs = timeout.value;
  if (grace.value !== undefined) spec.graceMs = grace.value;
  if (schedule.value !== undefined) spec.schedule = schedule.value;
  if (tz !== undefined) spec.tz = tz;
  if (manualResume.value !== undefined) spec.manualResume = manualResume.value;
  if (has("methods")) spec.methods = body.methods === "POST" ? "POST" : "";
  if (startKw.value !== undefined) spec.startKw = startKw.value;
  // deprecated subject/subject_fail: applied first, explicit keyword and filter fields win (reference _update)
  let kwSuccess = stored?.successKw ?? "";
  let kwFailure = stored?.failureKw ?? "";
  if (subject.value !== undefined) {
    kwSuccess = subject.value;
    spec.successKw = kwSuccess;
    spec.filterSubject = kwSuccess !== "" || kwFailure !== "";
  }
  if (subjectFail.value !== undefined) {
    kwFailure = subjectFail.value;
    spec.failureKw = kwFailure;
    spec.filterSubject = kwSuccess !== "" || kwFailure !== "";
  }
  if (successKw.value !== undefined) spec.successKw = successKw.value;
  if (failureKw.value !== undefined) spec.failureKw = failureKw.value;
  if (filterSubject.value !== undefined) spec.filterSubject = filterSubject.value;
  if (filterBody.value !== undefined) spec.filterBody = filterBody.value;
  if (filterHttpBody.value !== undefined) spec.filterHttpBody = filterHttpBody.value;
  if (filterDefaultFail.value !== undefined) spec.filterDefaultFail = filterDefaultFail.value;
  if (channelRefs !== undefined) spec.channels = channelRefs;
  Object.assign(spec, alerting.value);
  return ok({ spec, unique: unique.value });
}

/**
 * Returns a create/update request as API `version` reads it: under v1 and v2 a name also sets the slug to
 * its slugified form, unless the request sends a slug, which wins (reference _update sets it after).
 */
export function requestInVersion(request: CheckRequest, version: ApiVersion): CheckRequest {
  const { name, slug } = request.spec;
  if (!slugFollowsName(version) || name === undefined || slug !== undefined) return request;
  // the reference's upsert looks up only the fields sent: a unique slug that was not sent matches nothing
  const unique = request.unique.includes("slug") ? [] : request.unique;
  return { spec: { ...request.spec, slug: slugify(name) }, unique };
}

const KNOWN_FIELDS = [
  "name",
  "slug",
  "tags",
  "desc",
  "timeout",
  "grace",
  "schedule",
  "tz",
  "manual_resume",
  "methods",
  "channels",
  "unique",
  "start_kw",
  "success_kw",
  "failure_kw",
  "subject",
  "subject_fail",
  "filter_subject",
  "filter_body",
  "filter_http_body",
  "filter_default_fail",
  "failure_threshold",
  "reminder_interval",
  "max_duration",
  "depends_on", // not muted_until, push_token: null is their "none"
  "min_duration",
  "alert_on_overlap",
  "max_runs_per_period", // not escalation: null is its "the project's policy"
] as const;

type AlertingSpec = Pick<
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
function alertingOf(body: JsonObject): Outcome<AlertingSpec> {
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

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * Returns the instant of an ISO 8601 date and time ("2026-01-01T00:00:00Z", offsets, fractions; without
 * an offset: UTC), or null when it is not one or names no real time (month 13, February 30th, hour 24).
 */
export function isoInstantOf(text: string): Millis | null {
  const m = ISO_INSTANT.exec(text);
  if (m === null) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6] ?? "0"].map(Number);
  const ms = Math.floor(Number(`0.${m[7] ?? "0"}`) * 1000);
  const local = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  const back = new Date(local);
  if (
    back.getUTCFullYear() !== year ||
    back.getUTCMonth() !== month - 1 ||
    back.getUTCDate() !== day ||
    back.getUTCHours() !== hour ||
    back.getUTCMinutes() !== minute ||
    back.getUTCSeconds() !== second
  )
    return null;
  const zone = (m[8] ?? "Z").toUpperCase();
  if (zone === "Z") return local;
  const digits = zone.slice(1).replace(":", "");
  const offsetMinutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || "0");
  if (offsetMinutes >= 24 * 60) return null;
  return local - (zone[0] === "+" ? 1 : -1) * offsetMinutes * 60_000;
}

function uniqueOf(body: JsonObject): Outcome<UniqueField[]> {
  if (!Object.hasOwn(body, "unique")) return ok([]);
  const value = body.unique;
  if (!Array.isArray(value)) return invalid("unique", "is not an array");
  const fields: UniqueField[] = [];
  for (const item of value) {
    const field = UNIQUE_FIELDS.find((f) => f === item);
    if (field === undefined) return invalid("an item in 'unique'", "has unexpected value");
    if (!fields.includes(field)) fields.push(field);
  }
  return ok(fields);
}

/** Returns the channels assignment: "*" = all, "" = none, else a comma list of ids or names (no trimming). */
export function channelsOf(value: string): Outcome<NonNullable<CheckSpec["channels"]>> {
  if (value === "*") return ok({ all: true });
  if (value === "") return ok({ refs: [] });
  const refs: string[] = [];
  for (const ref of value.split(",")) {
    if (ref === "") return invalid("", "empty channel identifier");
    if (!refs.includes(ref)) refs.push(ref);
  }
  return ok({ refs });
}

/** Returns the check-list filters: `slug` (empty = none) and the distinct repeated `tag` values. */
export function checkQueryOf(params: URLSearchParams): CheckQuery {
  const slug = params.get("slug");
  const tags = [...new Set(params.getAll("tag"))];
  return slug === null || slug === "" ? { tags } : { slug, tags };
}

const TIMESTAMP_MAX = 10_000_000_000; // year 2286, the reference's sanity bound

/** Returns the flip filters for `at` (start ≥, end <, seconds back from `at`); invalid → 400 outcome (reference §11 quirks). */
export function flipQueryOf(params: URLSearchParams, at: Millis): Outcome<FlipQuery> {
  let fromAt: Millis | undefined;
  let toAt: Millis | undefined;
  const start = params.get("start");
  if (start !== null) {
    const value = pythonInt(start);
    if (value === null || value < 0 || value > TIMESTAMP_MAX)
      return invalid("", "invalid query parameter start: expected an integer from 0 to 10000000000");
    fromAt = value * SECOND;
  }
  const end = params.get("end");
  if (end !== null) {
    const value = pythonInt(end);
    if (value === null || value < 0 || value > TIMESTAMP_MAX)
      return invalid("", "invalid query parameter end: expected an integer from 0 to 10000000000");
    toAt = value * SECOND;
  }
  const seconds = params.get("seconds");
  if (seconds !== null && seconds.trim() !== "") {
    // Django IntegerField: whitespace and a trailing ".0" are accepted; 0 means no filter
    const value = pythonInt(seconds.trim().replace(/\.0*$/, ""));
    if (value === null || value < 0 || value > 31_536_000)
      return invalid("", "invalid query parameter seconds: expected an integer from 0 to 31536000");
    if (value > 0) fromAt = Math.max(fromAt ?? -Infinity, at - value * SECOND);
  }
  const query: { fromAt?: Millis; toAt?: Millis } = {};
  if (fromAt !== undefined) query.fromAt = fromAt;
  if (toAt !== undefined) query.toAt = toAt;
  return ok(query);
}

/** Returns the integer Python's int() would read from `text` (whitespace, sign, digit underscores), or null. */
function pythonInt(text: string): number | null {
  const trimmed = text.trim();
  if (!/^[+-]?\d+(_\d+)*$/.test(trimmed)) return null;
  const value = Number(trimmed.replaceAll("_", ""));
  return Number.isSafeInteger(value) ? value : null;
}

/** Returns the ping sequence number of a body URL (digits only), or null → 404. */
export function pingNumberOf(text: string): number | null {
  if (!/^\d+$/.test(text)) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : null;
}

const UNIQUE_KEY_RE = /^[0-9a-f]{40}$/;

/** Returns true for a unique_key (40 lower-case hex digits). */
export function isUniqueKey(text: string): boolean {
  return UNIQUE_KEY_RE.test(text);
}
