// The admin API's request bodies for bringing data over from another instance (docs/moving-from-healthchecks.md):
// a project's kept id and keys, a check with its state and past flips, and its past pings. Everything here
// comes from a foreign database or API: every field is checked as the API checks its own, and times may
// not lie in the future.
import type { CheckImport, ImportedFlip, ImportedPing } from "../engine/check-import.ts";
import { stateProblem } from "../engine/check-import.ts";
import { isSlugSegment, isUuid } from "../engine/ids.ts";
import type { HashedApiKeys, Millis, PingKind } from "../engine/model.ts";
import { FLIP_REASONS, LIMITS, PING_KINDS, SECOND, STATUSES } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import { invalid, ok } from "../engine/outcome.ts";
import type { KeptProjectIds } from "../host/pool-api.ts";
import type { JsonObject } from "./body.ts";
import { checkRequestOf } from "./input.ts";
import { isoInstantOf } from "./field-input.ts";
import { IMPORTED_SETTINGS } from "./check-fields.ts";

/** How many pings one request may bring (more: another request). */
export const MAX_IMPORTED_PINGS = 1_000;
/** How many flips a check may bring (hcd keeps a check's newest 1,000 in cluster mode). */
export const MAX_IMPORTED_FLIPS = 1_000;
/** Largest body of the import routes, in bytes: a check's flips, or up to MAX_IMPORTED_PINGS pings with their bodies (base64). */
export const IMPORT_BODY_BYTES = 32 * 1024 * 1024;
/** A brought-over instant may be this far ahead of hcd's clock (the two machines' clocks differ). */
const CLOCK_SKEW_MS = 5 * 60 * SECOND;

const API_KEY = /^[A-Za-z0-9_-]{16,128}$/;
const HASHED_KEY = /^[^.\s]{8}\.[0-9a-f]{64}$/;

/** The ids and keys a new project keeps (POST /admin/v1/projects: "id", "api_key", "api_key_readonly", "ping_key", "hashed_api_keys"). */
export function keptProjectOf(body: JsonObject): Outcome<KeptProjectIds> {
  const kept: { -readonly [K in keyof KeptProjectIds]: KeptProjectIds[K] } = {};
  if (Object.hasOwn(body, "id")) {
    if (typeof body.id !== "string" || !isUuid(body.id)) return invalid("id", "must be a lower-case uuid");
    kept.id = body.id;
  }
  for (const [field, key] of [
    ["api_key", "apiKey"],
    ["api_key_readonly", "apiKeyReadonly"],
  ] as const) {
    if (!Object.hasOwn(body, field)) continue;
    const value = body[field];
    if (typeof value !== "string" || (value !== "" && !API_KEY.test(value)))
      return invalid(field, "must be empty or 16 to 128 letters, digits, '-' or '_'");
    kept[key] = value;
  }
  if (Object.hasOwn(body, "ping_key")) {
    const value = body.ping_key;
    if (typeof value !== "string" || value.length < 8 || value.length > 128 || !isSlugSegment(value))
      return invalid("ping_key", "must be 8 to 128 letters, digits, '-' or '_'");
    kept.pingKey = value;
  }
  if (Object.hasOwn(body, "hashed_api_keys")) {
    const hashed = hashedKeysOf(body.hashed_api_keys);
    if (!hashed.ok) return hashed;
    kept.hashedApiKeys = hashed.value;
  }
  return ok(kept);
}

/** `{"secret_key": str, "api_key": "<8>.<64 hex>" | null, "api_key_readonly": ... | null}`: Healthchecks' stored keys and its SECRET_KEY. */
function hashedKeysOf(value: unknown): Outcome<HashedApiKeys> {
  if (!isObject(value)) return invalid("hashed_api_keys", "must be an object");
  const secretKey = value.secret_key;
  if (typeof secretKey !== "string" || secretKey === "" || secretKey.length > 1024)
    return invalid("hashed_api_keys.secret_key", "must be a non-empty string");
  const key = (field: "api_key" | "api_key_readonly"): Outcome<string | null> => {
    const stored = Object.hasOwn(value, field) ? value[field] : null;
    if (stored === null) return ok(null);
    return typeof stored === "string" && HASHED_KEY.test(stored)
      ? ok(stored)
      : invalid(`hashed_api_keys.${field}`, "must be null or as Healthchecks stores a hashed key (8 characters, '.', 64 hex digits)");
  };
  const apiKey = key("api_key");
  if (!apiKey.ok) return apiKey;
  const apiKeyReadonly = key("api_key_readonly");
  if (!apiKeyReadonly.ok) return apiKeyReadonly;
  if (apiKey.value === null && apiKeyReadonly.value === null) return invalid("hashed_api_keys", "has no key");
  return ok({ secretKey, apiKey: apiKey.value, apiKeyReadonly: apiKeyReadonly.value });
}

/**
 * The check of PUT /admin/v1/projects/<id>/checks/<uuid> at `at`: its settings as the API takes them, "badge_key", its state ("status",
 * "n_pings", "last_ping", "last_start", "last_start_rid", "last_duration" in seconds, "created") and "flips" ([{"timestamp", "from",
 * "to", "reason"}], any order); "dry_run" answers what it would do.
 */
export function checkImportOf(uuid: string, body: JsonObject, at: Millis): Outcome<{ check: CheckImport; dryRun: boolean }> {
  if (!isUuid(uuid)) return invalid("uuid", "must be a lower-case uuid");
  const settings: Record<string, unknown> = {};
  for (const field of [...IMPORTED_SETTINGS, "channels"]) if (Object.hasOwn(body, field)) settings[field] = body[field];
  const request = checkRequestOf(settings, null);
  if (!request.ok) return request;
  const badgeKey = body.badge_key ?? uuid;
  if (typeof badgeKey !== "string" || !isUuid(badgeKey)) return invalid("badge_key", "must be a lower-case uuid");
  const status = STATUSES.find((s) => s === (body.status ?? "new"));
  if (status === undefined) return invalid("status", `must be one of ${STATUSES.join(", ")}`);
  const nPings = body.n_pings ?? 0;
  if (typeof nPings !== "number" || !Number.isSafeInteger(nPings) || nPings < 0)
    return invalid("n_pings", "must be a non-negative integer");
  const instant = (field: string, fallback: Millis | null): Outcome<Millis | null> => instantOf(body, field, fallback, at);
  const lastPing = instant("last_ping", null);
  if (!lastPing.ok) return lastPing;
  const lastStart = instant("last_start", null);
  if (!lastStart.ok) return lastStart;
  const created = instant("created", at);
  if (!created.ok) return created;
  const rid = body.last_start_rid ?? null;
  if (rid !== null && (typeof rid !== "string" || !isUuid(rid))) return invalid("last_start_rid", "must be null or a lower-case uuid");
  const duration = body.last_duration ?? null;
  if (duration !== null && (typeof duration !== "number" || !Number.isFinite(duration) || duration < 0 || duration > 100 * 365 * 86_400)) {
    return invalid("last_duration", "must be null or a non-negative number of seconds");
  }
  const flips = flipsOf(body.flips ?? [], at);
  if (!flips.ok) return flips;
  const state = {
    status,
    nPings,
    lastPingAt: lastPing.value,
    lastStartAt: lastStart.value,
    lastStartRid: rid,
    lastDurationMs: duration === null ? null : Math.round(duration * SECOND),
    createdAt: created.value ?? at,
  };
  const problem = stateProblem(state);
  if (problem !== null) return invalid("status", problem);
  const dryRun = body.dry_run ?? false;
  if (typeof dryRun !== "boolean") return invalid("dry_run", "must be a boolean");
  return ok({ check: { uuid, badgeKey, spec: request.value.spec, state, flips: flips.value }, dryRun });
}

function flipsOf(value: unknown, at: Millis): Outcome<ImportedFlip[]> {
  if (!Array.isArray(value)) return invalid("flips", "must be an array");
  if (value.length > MAX_IMPORTED_FLIPS) return invalid("flips", `has more than ${MAX_IMPORTED_FLIPS} flips (send the newest)`);
  const flips: ImportedFlip[] = [];
  for (const [i, item] of value.entries()) {
    if (!isObject(item)) return invalid(`flips[${i}]`, "must be an object");
    const when = instantOf(item, "timestamp", null, at);
    if (!when.ok) return invalid(`flips[${i}].timestamp`, "must be an ISO 8601 date and time, not in the future");
    const from = STATUSES.find((s) => s === item.from),
      to = STATUSES.find((s) => s === item.to);
    const reason = FLIP_REASONS.find((r) => r === (item.reason ?? ""));
    if (when.value === null || from === undefined || to === undefined)
      return invalid(`flips[${i}]`, `needs a timestamp, and from and to among ${STATUSES.join(", ")}`);
    if (reason === undefined)
      return invalid(`flips[${i}].reason`, `must be one of ${FLIP_REASONS.map((r) => JSON.stringify(r)).join(", ")}`);
    flips.push({ at: when.value, from, to, reason });
  }
  return ok(
    flips
      .map((flip, i) => ({ flip, i }))
      .sort((a, b) => a.flip.at - b.flip.at || a.i - b.i)
      .map(({ flip }) => flip),
  );
}

/**
 * The pings of POST /admin/v1/projects/<id>/checks/<uuid>/pings: {"pings": [{"n", "date", "type", "scheme", "remote_addr", "method",
 * "ua", "rid", "exitstatus", "body_base64"}], "dry_run"?}; bodies are cut to the project's limit when stored.
 */
export function pingsImportOf(body: JsonObject, at: Millis): Outcome<{ pings: ImportedPing[]; dryRun: boolean }> {
  const list = body.pings;
  if (!Array.isArray(list)) return invalid("pings", "must be an array");
  if (list.length > MAX_IMPORTED_PINGS)
    return invalid("pings", `has more than ${MAX_IMPORTED_PINGS} pings (send them in several requests)`);
  const pings: ImportedPing[] = [];
  const seen = new Set<number>();
  for (const [i, item] of list.entries()) {
    const ping = pingOf(item, at);
    if (!ping.ok)
      return invalid(
        `pings[${i}]${ping.failure.code === "invalid" ? `.${ping.failure.field}` : ""}`,
        ping.failure.code === "invalid" ? ping.failure.reason : "is invalid",
      );
    if (seen.has(ping.value.record.n)) return invalid(`pings[${i}].n`, "is given twice");
    seen.add(ping.value.record.n);
    pings.push(ping.value);
  }
  const dryRun = body.dry_run ?? false;
  if (typeof dryRun !== "boolean") return invalid("dry_run", "must be a boolean");
  return ok({ pings, dryRun });
}

function pingOf(item: unknown, at: Millis): Outcome<ImportedPing> {
  if (!isObject(item)) return invalid("", "must be an object");
  const n = item.n;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1) return invalid("n", "must be a positive integer");
  const date = instantOf(item, "date", null, at);
  if (!date.ok || date.value === null) return invalid("date", "must be an ISO 8601 date and time, not in the future");
  const kind: PingKind | undefined = PING_KINDS.find((k) => k === (item.type ?? "success"));
  if (kind === undefined) return invalid("type", `must be one of ${PING_KINDS.join(", ")}`);
  const text = (field: string, fallback: string, max: number): Outcome<string> => {
    const value = item[field] ?? fallback;
    return typeof value === "string" ? ok([...value].slice(0, max).join("")) : invalid(field, "must be a string");
  };
  const scheme = text("scheme", "http", 10);
  if (!scheme.ok) return scheme;
  const method = text("method", "", 10);
  if (!method.ok) return method;
  const remoteAddr = text("remote_addr", "", 45);
  if (!remoteAddr.ok) return remoteAddr;
  const ua = text("ua", "", LIMITS.uaMaxChars);
  if (!ua.ok) return ua;
  const rid = item.rid ?? null;
  if (rid !== null && (typeof rid !== "string" || !isUuid(rid))) return invalid("rid", "must be null or a lower-case uuid");
  const exitStatus = item.exitstatus ?? null;
  if (exitStatus !== null && (typeof exitStatus !== "number" || !Number.isInteger(exitStatus) || exitStatus < 0 || exitStatus > 255)) {
    return invalid("exitstatus", "must be null or an integer from 0 to 255");
  }
  const encoded = item.body_base64 ?? null;
  if (encoded !== null && (typeof encoded !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)))
    return invalid("body_base64", "must be null or base64");
  const body = encoded === null || encoded === "" ? null : new Uint8Array(Buffer.from(encoded, "base64"));
  return ok({
    record: {
      n,
      at: date.value,
      kind,
      scheme: scheme.value,
      remoteAddr: remoteAddr.value,
      method: method.value,
      ua: ua.value,
      rid,
      exitStatus,
      bodySize: body?.length ?? 0,
    },
    body,
  });
}

/** The instant of an ISO 8601 field (absent or null: `fallback`), refused when it lies ahead of `at` by more than clock skew. */
function instantOf(body: JsonObject, field: string, fallback: Millis | null, at: Millis): Outcome<Millis | null> {
  const value = body[field] ?? null;
  if (value === null) return ok(fallback);
  const parsed = typeof value === "string" ? isoInstantOf(value) : null;
  if (parsed === null) return invalid(field, "must be null or an ISO 8601 date and time");
  if (parsed > at + CLOCK_SKEW_MS) return invalid(field, "lies in the future");
  return ok(parsed);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
