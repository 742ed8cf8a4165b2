// A check's create or update body → the engine's CheckSpec (seconds → ms; its alerting fields:
// alerting-input.ts; queries: query-input.ts). Every 400 of a body is decided for the whole request,
// before any command runs: bad input never changes state.
// Reference: research/healthchecks-api.md §3 (bodies), §4 (strict types), §5 (semantics), §11 (flip filters).
import type { CheckSpec, Millis, UniqueField } from "../engine/model.ts";
import { LIMITS, SECOND, UNIQUE_FIELDS } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import { invalid, ok } from "../engine/outcome.ts";
import { canonicalZone } from "../engine/zones.ts";
import { validateSchedule } from "../engine/schedule.ts";
import type { JsonObject } from "./body.ts";
import { isSlug } from "../engine/ids.ts";
import { slugify } from "../lib/slugify.ts";
import type { ApiVersion } from "../host/api-versions.ts";
import { slugFollowsName } from "../host/api-versions.ts";
import { alertingOf } from "./alerting-input.ts";
import { NON_NULL_FIELDS } from "./check-fields.ts";
import { channelsOf } from "./field-input.ts";

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
  for (const field of NON_NULL_FIELDS) if (has(field) && body[field] === null) return invalid(field, "is not a valid value");

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
