// Request bodies and queries → engine commands (seconds → ms). Every 400 of the API is decided here,
// for the whole request, before any command runs: bad input never changes state.
// Reference: research/healthchecks-api.md §3 (bodies), §4 (strict types), §5 (semantics), §11 (flip filters).
import type { ChannelKind, ChannelValue, CheckSpec, Millis, NtfySpec, UniqueField, WebhookSpec } from "../engine/model.ts";
import { assertNever, CHANNEL_KINDS, LIMITS, SECOND, UNIQUE_FIELDS } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import { invalid, ok } from "../engine/outcome.ts";
import type { ChannelInput, CheckQuery, FlipQuery, ProjectInput } from "../engine/host/pool-api.ts";
import { canonicalZone, validateSchedule } from "../engine/schedule.ts";
import { httpError } from "./errors.ts";
import { isHttpUrl } from "./config.ts";

/** Largest API request body accepted, in bytes (larger → 413). */
export const MAX_BODY_BYTES = 64 * 1024;

export type JsonObject = { readonly [key: string]: unknown };

/** Returns the request body bytes; throws 413 when it exceeds `limit` bytes. */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;

export async function readBodyBytes(req: Request, limit: number = MAX_BODY_BYTES): Promise<Uint8Array> {
  const tooLarge = () => httpError(413, `request body larger than ${limit} bytes`);
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > DRAIN_MAX_BYTES) throw tooLarge();
  if (req.body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    let read: ReadableStreamReadResult<Uint8Array>;
    try {
      read = await reader.read();
    } catch {
      throw httpError(400, "request body incomplete"); // the client went away mid-body: not our error
    }
    if (read.done) break;
    size += read.value.byteLength;
    // Past the limit, keep reading (and dropping) up to DRAIN_MAX_BYTES: a client still uploading
    // then gets to read the 413 instead of a connection reset.
    if (size > DRAIN_MAX_BYTES) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    if (size <= limit) chunks.push(read.value);
  }
  if (size > limit) throw tooLarge();
  return Buffer.concat(chunks, size);
}

/** Returns the body as a JSON object whatever the Content-Type (curl --data); empty → {}. Outcome failures are 400s. */
export function parseJsonObject(bytes: Uint8Array, opts: { nullAsEmpty: boolean } = { nullAsEmpty: false }): Outcome<JsonObject> {
  if (bytes.byteLength === 0) return ok({});
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return invalid("", "could not parse request body");
  }
  // project decision: pause/resume take a JSON null as an empty body (the Ansible collection sends it)
  if (value === null && opts.nullAsEmpty) return ok({});
  if (typeof value !== "object" || value === null || Array.isArray(value)) return invalid("", "json validation error: value is not an object");
  return ok(value as JsonObject);
}

/** A validated create/update request: the spec in engine units and the upsert fields. */
export type CheckRequest = { readonly spec: CheckSpec; readonly unique: readonly UniqueField[] };

/** Stored keywords an update starts from: the deprecated subject fields recompute filter_subject from them. */
export type StoredKeywords = { readonly successKw: string; readonly failureKw: string };

const SLUG_RE = /^[a-z0-9_-]*$/;

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
  if (slug.value !== undefined && !SLUG_RE.test(slug.value)) return invalid("slug", "does not match pattern");
  const startKw = text("start_kw", LIMITS.keywordsMaxChars);
  if (!startKw.ok) return startKw;
  const subject = text("subject", LIMITS.keywordsMaxChars);
  if (!subject.ok) return subject;
  const subjectFail = text("subject_fail", LIMITS.keywordsMaxChars);
  if (!subjectFail.ok) return subjectFail;
  const successKw = text("success_kw", LIMITS.keywordsMaxChars);
  if (!successKw.ok) return successKw;
  const tags = text("tags", null);
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

const KNOWN_FIELDS = [
  "name", "slug", "tags", "desc", "timeout", "grace", "schedule", "tz", "manual_resume", "methods", "channels",
  "unique", "start_kw", "success_kw", "failure_kw", "subject", "subject_fail",
  "filter_subject", "filter_body", "filter_http_body", "filter_default_fail",
  "failure_threshold", "reminder_interval", // not muted_until: null is its "not muted"
] as const;

type AlertingSpec = Pick<CheckSpec, "failureThreshold" | "reminderIntervalMs" | "mutedUntilAt">;

/** Returns the alerting fields of a create/update body (CONTRACT "Alerting fields of a check"); invalid → 400 outcome. */
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
    if (value !== 0 && value * SECOND < LIMITS.reminderIntervalMinMs) return invalid("reminder_interval", "is too small (0, or 300 and more)");
    if (value * SECOND > LIMITS.reminderIntervalMaxMs) return invalid("reminder_interval", "is too large");
    spec.reminderIntervalMs = value * SECOND;
  }
  if (Object.hasOwn(body, "muted_until")) {
    const value = body.muted_until;
    const at = typeof value === "string" ? isoInstantOf(value) : null;
    if (value !== null && at === null) return invalid("muted_until", "is not an ISO 8601 date and time, or null");
    spec.mutedUntilAt = at;
  }
  return ok(spec);
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
  if (back.getUTCFullYear() !== year || back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day
    || back.getUTCHours() !== hour || back.getUTCMinutes() !== minute || back.getUTCSeconds() !== second) return null;
  const zone = (m[8] ?? "Z").toUpperCase();
  if (zone === "Z") return local;
  const digits = zone.slice(1).replace(":", "");
  const offsetMinutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || "0");
  if (offsetMinutes >= 24 * 60) return null;
  return local - (zone[0] === "+" ? 1 : -1) * offsetMinutes * 60_000;
}

/** Returns the project mute's end from `{"until": ISO 8601 or null}` (null = unmute); invalid → 400 outcome. */
export function projectMuteOf(body: JsonObject): Outcome<Millis | null> {
  if (!Object.hasOwn(body, "until")) return invalid("until", "is missing (an ISO 8601 date and time, or null)");
  const value = body.until;
  if (value === null) return ok(null);
  const at = typeof value === "string" ? isoInstantOf(value) : null;
  return at === null ? invalid("until", "is not an ISO 8601 date and time, or null") : ok(at);
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
    if (value === null || value < 0 || value > TIMESTAMP_MAX) return invalid("", "invalid query parameter start: expected an integer from 0 to 10000000000");
    fromAt = value * SECOND;
  }
  const end = params.get("end");
  if (end !== null) {
    const value = pythonInt(end);
    if (value === null || value < 0 || value > TIMESTAMP_MAX) return invalid("", "invalid query parameter end: expected an integer from 0 to 10000000000");
    toAt = value * SECOND;
  }
  const seconds = params.get("seconds");
  if (seconds !== null && seconds.trim() !== "") {
    // Django IntegerField: whitespace and a trailing ".0" are accepted; 0 means no filter
    const value = pythonInt(seconds.trim().replace(/\.0*$/, ""));
    if (value === null || value < 0 || value > 31_536_000) return invalid("", "invalid query parameter seconds: expected an integer from 0 to 31536000");
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

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNIQUE_KEY_RE = /^[0-9a-f]{40}$/;

/** Returns true for a lower-case canonical uuid (upper case matches no route in the reference → 404). */
export function isUuid(text: string): boolean {
  return UUID_RE.test(text);
}

/** Returns true for a unique_key (40 lower-case hex digits). */
export function isUniqueKey(text: string): boolean {
  return UNIQUE_KEY_RE.test(text);
}

// ---- Admin API inputs (CONTRACT.md "Admin API") ----

/** Returns the project to create from an admin request body; invalid → 400 outcome. */
export function projectInputOf(body: JsonObject): Outcome<ProjectInput> {
  const name = body.name;
  if (typeof name !== "string") return invalid("name", "is required and must be a string");
  if ([...name].length > LIMITS.nameMaxChars) return invalid("name", "is too long");
  const int = (field: string, fallback: number, min: number, max: number): Outcome<number> => {
    if (!Object.hasOwn(body, field)) return ok(fallback);
    const value = body[field];
    if (typeof value !== "number" || !Number.isInteger(value)) return invalid(field, "is not an integer");
    if (value < min || value > max) return invalid(field, `must be from ${min} to ${max}`);
    return ok(value);
  };
  const checkLimit = int("check_limit", LIMITS.defaultCheckLimit, 0, 1_000_000);
  if (!checkLimit.ok) return checkLimit;
  const pingLogLimit = int("ping_log_limit", LIMITS.defaultPingLogLimit, 1, 1_000_000);
  if (!pingLogLimit.ok) return pingLogLimit;
  const pingBodyLimit = int("ping_body_limit", LIMITS.defaultPingBodyLimit, 0, 10_000_000);
  if (!pingBodyLimit.ok) return pingBodyLimit;
  return ok({ name, checkLimit: checkLimit.value, pingLogLimit: pingLogLimit.value, pingBodyLimit: pingBodyLimit.value });
}

/** Returns the channel to add from an admin request body, its value normalised per kind; invalid → 400 outcome. */
export function channelInputOf(body: JsonObject): Outcome<ChannelInput> {
  const kind = CHANNEL_KINDS.find((k) => k === body.kind);
  if (kind === undefined) return invalid("kind", `must be one of ${CHANNEL_KINDS.join(", ")}`);
  const name = Object.hasOwn(body, "name") ? body.name : "";
  if (typeof name !== "string") return invalid("name", "is not a string");
  if ([...name].length > LIMITS.nameMaxChars) return invalid("name", "is too long");
  const value = channelValueOf(kind, body.value);
  if (!value.ok) return value;
  return ok({ kind, name, value: value.value });
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+$/;
const WEBHOOK_METHODS = ["GET", "POST", "PUT"] as const;

function channelValueOf(kind: ChannelKind, value: unknown): Outcome<ChannelValue> {
  switch (kind) {
    case "email":
      if (typeof value !== "string" || !EMAIL_RE.test(value)) return invalid("value", "must be an email address");
      return ok({ kind, address: value });
    case "slack":
    case "discord":
      if (typeof value !== "string" || !isHttpUrl(value)) return invalid("value", "must be an http(s) webhook URL");
      return ok({ kind, url: value });
    case "webhook": {
      if (typeof value === "string") {
        if (!isHttpUrl(value)) return invalid("value", "must be an http(s) URL or a webhook object");
        // URL form: POST the check's JSON representation on every up and down change
        const spec: WebhookSpec = {
          method_down: "POST", url_down: value, body_down: "", headers_down: {},
          method_up: "POST", url_up: value, body_up: "", headers_up: {},
        };
        return ok({ kind, spec, json: true });
      }
      if (!isPlainObject(value)) return invalid("value", "must be an http(s) URL or a webhook object");
      const down = webhookDirectionOf(value, "down");
      if (!down.ok) return down;
      const up = webhookDirectionOf(value, "up");
      if (!up.ok) return up;
      if (down.value.url === "" && up.value.url === "") return invalid("value", "needs url_down or url_up");
      const spec: WebhookSpec = {
        method_down: down.value.method, url_down: down.value.url, body_down: down.value.body, headers_down: down.value.headers,
        method_up: up.value.method, url_up: up.value.url, body_up: up.value.body, headers_up: up.value.headers,
      };
      return ok({ kind, spec, json: false });
    }
    case "ntfy": {
      if (typeof value === "string") {
        // a topic URL: https://ntfy.sh/<topic>
        if (!isHttpUrl(value)) return invalid("value", "must be a topic URL or an ntfy object");
        const url = new URL(value);
        const parts = url.pathname.split("/").filter((p) => p !== "");
        const topic = parts.pop();
        if (topic === undefined) return invalid("value", "topic URL has no topic");
        const base = `${url.origin}${parts.length > 0 ? "/" + parts.join("/") : ""}`;
        return ok({ kind, spec: { url: base, topic: decodeURIComponent(topic), priority_down: 3, priority_up: 3 } });
      }
      if (!isPlainObject(value)) return invalid("value", "must be a topic URL or an ntfy object");
      if (typeof value.url !== "string" || !isHttpUrl(value.url)) return invalid("value.url", "must be an http(s) URL");
      if (typeof value.topic !== "string" || value.topic === "" || value.topic.includes("/")) return invalid("value.topic", "must be a topic name");
      const priority = (field: "priority_down" | "priority_up", fallback: number): Outcome<number> => {
        if (!Object.hasOwn(value, field)) return ok(fallback);
        const p = value[field];
        return typeof p === "number" && Number.isInteger(p) && p >= 0 && p <= 5 ? ok(p) : invalid(`value.${field}`, "must be an integer from 0 to 5");
      };
      const down = priority("priority_down", 3);
      if (!down.ok) return down;
      const up = priority("priority_up", 3);
      if (!up.ok) return up;
      const spec: NtfySpec = { url: value.url.replace(/\/+$/, ""), topic: value.topic, priority_down: down.value, priority_up: up.value };
      return ok({ kind, spec });
    }
    default:
      return assertNever(kind);
  }
}

function webhookDirectionOf(value: JsonObject, direction: "down" | "up"): Outcome<{ method: string; url: string; body: string; headers: Record<string, string> }> {
  const get = (field: string, fallback: unknown) => (Object.hasOwn(value, `${field}_${direction}`) ? value[`${field}_${direction}`] : fallback);
  const method = get("method", "GET");
  if (typeof method !== "string" || !WEBHOOK_METHODS.some((m) => m === method.toUpperCase())) {
    return invalid(`value.method_${direction}`, `must be one of ${WEBHOOK_METHODS.join(", ")}`);
  }
  const url = get("url", "");
  if (typeof url !== "string" || (url !== "" && !isHttpUrl(url))) return invalid(`value.url_${direction}`, "must be empty or an http(s) URL");
  const body = get("body", "");
  if (typeof body !== "string") return invalid(`value.body_${direction}`, "is not a string");
  const headers = get("headers", {});
  if (!isPlainObject(headers) || !Object.values(headers).every((v) => typeof v === "string")) {
    return invalid(`value.headers_${direction}`, "must be an object of header name to string value");
  }
  for (const header of Object.keys(headers)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) return invalid(`value.headers_${direction}`, `has an invalid header name: ${header}`);
  }
  return ok({ method: method.toUpperCase(), url, body, headers: headers as Record<string, string> });
}

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Returns the virtual clock step of an admin clock request, in ms; invalid → 400 outcome. */
export function clockAdvanceOf(body: JsonObject): Outcome<Millis> {
  const advance = body.advance;
  if (typeof advance !== "number" || !Number.isFinite(advance) || advance < 0) return invalid("advance", "must be a non-negative number of seconds");
  if (advance > 100 * 365 * 86_400) return invalid("advance", "is too large");
  return ok(Math.round(advance * SECOND));
}

/** Returns the prune cut-off: `before` (ISO 8601) or the start of the month two months before `at` (UTC); invalid → 400 outcome. */
export function pruneBeforeOf(body: JsonObject, at: Millis): Outcome<Millis> {
  if (!Object.hasOwn(body, "before")) return ok(retentionStartAt(at));
  const before = body.before;
  const parsed = typeof before === "string" ? Date.parse(before) : NaN;
  if (!Number.isFinite(parsed)) return invalid("before", "must be an ISO 8601 timestamp");
  return ok(parsed);
}

/** Returns the first instant kept by flip retention: the current month plus the two full months before it (spec §6.2). */
export function retentionStartAt(at: Millis): Millis {
  const now = new Date(at);
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, 1);
}
