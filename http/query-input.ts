// The API's query strings: the check list's filters (slug, tags) and the flips' (start, end, seconds), read as
// the reference reads them (research/healthchecks-api.md §11).
import { SECOND } from "../engine/model.ts";
import type { Millis } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import { invalid, ok } from "../engine/outcome.ts";
import type { CheckQuery, FlipQuery } from "../host/pool-api.ts";

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
