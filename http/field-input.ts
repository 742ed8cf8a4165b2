// Values several request bodies share: an ISO 8601 instant (a mute's end, an import's times), a check's
// channels assignment ("*", "", or ids and names).
import type { CheckSpec, Millis } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import { invalid, ok } from "../engine/outcome.ts";

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
