// Who is calling: the API key → { project, readonly } via the pool's directory (research §2),
// the per-key request rate limit (spec §8), and the admin bearer token (CONTRACT.md).
import { createHash, timingSafeEqual } from "node:crypto";
import type { Millis } from "../engine/model.ts";
import type { Caller, Pool } from "../host/pool-api.ts";
import type { JsonObject } from "./body.ts";
import { httpError } from "./errors.ts";
import { MinuteCounts } from "../lib/minute-counts.ts";

/** Returns the API key of a request: the X-Api-Key header when present (even empty), else `api_key` of the JSON body; null when none. */
export function apiKeyOf(headers: Headers, body: JsonObject | null): string | null {
  const header = headers.get("x-api-key");
  if (header !== null) return header;
  if (body === null || !Object.hasOwn(body, "api_key")) return null;
  // the reference str()-s the value: a number or null is simply a wrong key
  const value = body.api_key;
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** Returns the caller for a key; throws 401 when it is missing, unknown, or read-only on a write endpoint (reference: 401, not 403). */
export function authorize(pool: Pool, apiKey: string | null, opts: { write: boolean }): Caller {
  if (apiKey === null || apiKey === "") throw httpError(401, "missing api key");
  const caller = pool.authenticate(apiKey);
  if (caller === null) throw httpError(401, "wrong api key");
  if (opts.write && caller.readonly) throw httpError(401, "wrong api key");
  return caller;
}

/** Fixed-window request counter per key: at most `limit` requests per key per clock minute (0 = unlimited). */
export class RateLimiter {
  readonly #limit: number;
  readonly #counts = new MinuteCounts();
  constructor(limit: number) {
    this.#limit = limit;
  }
  /** Returns true when one more request by `key` at `at` is allowed, and counts it. */
  take(key: string, at: Millis): boolean {
    return this.#limit <= 0 || this.#counts.add(key, at) <= this.#limit;
  }
  /** Returns the seconds until the current window ends (the Retry-After of a 429). */
  retryAfterSeconds(at: Millis): number {
    return Math.max(1, Math.ceil((this.#counts.windowEndsAt() - at) / 1000));
  }
}

/** Throws 429 when the caller's key is over its rate limit at `at`. */
export function enforceRateLimit(limiter: RateLimiter, apiKey: string, at: Millis): void {
  if (limiter.take(apiKey, at)) return;
  throw httpError(429, "rate limit exceeded, retry later", { "retry-after": String(limiter.retryAfterSeconds(at)) });
}

/** Throws 401 unless the request carries `Authorization: Bearer <token>` (constant-time comparison). */
export function authorizeAdmin(headers: Headers, token: string): void {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "");
  if (match === null) throw httpError(401, "missing admin token");
  // compare digests: equal lengths, so timingSafeEqual leaks nothing about the token's length either
  const given = createHash("sha256").update(match[1]).digest();
  const expected = createHash("sha256").update(token).digest();
  if (!timingSafeEqual(given, expected)) throw httpError(401, "wrong admin token");
}
