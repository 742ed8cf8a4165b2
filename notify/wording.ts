// How the reference words durations, relative times and dates in its messages (hc/lib/date.py,
// Django's naturaltime and date filters). Pure: every "now" is passed in.
import type { Millis } from "../engine/model.ts";

const SECOND_S = 1,
  MINUTE_S = 60,
  HOUR_S = 3600,
  DAY_S = 86_400,
  WEEK_S = 7 * DAY_S;

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? "" : "s"}`;
}

/** Returns a period like "1 day", "8 days", "1 hour 30 minutes" (reference format_duration; seconds dropped). */
export function formatPeriod(durationMs: Millis): string {
  let remaining = Math.floor(durationMs / 1000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ["week", WEEK_S],
    ["day", DAY_S],
    ["hour", HOUR_S],
    ["minute", MINUTE_S],
  ] as const) {
    if (unit === "week" && remaining % size !== 0) continue; // "8 days", not "1 week 1 day"
    const n = Math.floor(remaining / size);
    remaining -= n * size;
    if (n > 0) parts.push(plural(n, unit));
  }
  return parts.join(" ");
}

/** Returns a downtime like "2 days, 3 hours" or "45 seconds" (fact sheet §1, format_duration_for_sentence). */
export function formatDowntime(durationMs: Millis): string {
  const total = Math.max(0, Math.floor(durationMs / 1000));
  const days = Math.floor(total / DAY_S),
    hours = Math.floor((total % DAY_S) / HOUR_S);
  const minutes = Math.floor((total % HOUR_S) / MINUTE_S),
    seconds = total % MINUTE_S;
  if (days > 0) return `${plural(days, "day")}, ${plural(hours, "hour")}`;
  if (hours > 0) return `${plural(hours, "hour")}, ${plural(minutes, "minute")}`;
  if (minutes > 0) return `${plural(minutes, "minute")}, ${plural(seconds, "second")}`;
  return plural(seconds, "second");
}

/** Returns how long before `nowAt` the instant `at` was, like Django's naturaltime: "10 minutes ago", "now". */
export function formatAgo(at: Millis, nowAt: Millis): string {
  const seconds = Math.max(0, Math.floor((nowAt - at) / 1000));
  if (seconds >= DAY_S) return `${timeSince(seconds)} ago`;
  if (seconds === 0) return "now";
  if (seconds < MINUTE_S) return seconds === SECOND_S ? "a second ago" : `${seconds} seconds ago`;
  if (seconds < HOUR_S) {
    const minutes = Math.floor(seconds / MINUTE_S);
    return minutes === 1 ? "a minute ago" : `${minutes} minutes ago`;
  }
  const hours = Math.floor(seconds / HOUR_S);
  return hours === 1 ? "an hour ago" : `${hours} hours ago`;
}

// Django timesince: the largest non-zero unit and, if non-zero, the unit right below it
function timeSince(seconds: number): string {
  const units = [
    ["year", 365 * DAY_S],
    ["month", 30 * DAY_S],
    ["week", WEEK_S],
    ["day", DAY_S],
    ["hour", HOUR_S],
    ["minute", MINUTE_S],
  ] as const;
  const first = units.findIndex(([, size]) => seconds >= size);
  const [unit, size] = units[first];
  const n = Math.floor(seconds / size);
  const parts = [plural(n, unit)];
  const next = units[first + 1];
  if (next !== undefined) {
    const m = Math.floor((seconds - n * size) / next[1]);
    if (m > 0) parts.push(plural(m, next[0]));
  }
  return parts.join(", ");
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** Returns the UTC day like Django's 'M j, Y': "Jan 1, 2020". */
export function shortDate(at: Millis): string {
  const d = new Date(at);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

/** Returns the instant as an RFC 2822 date in UTC: "Wed, 01 Jan 2020 01:00:00 +0000". */
export function rfc2822(at: Millis): string {
  const d = new Date(at);
  const pad = (n: number) => String(n).padStart(2, "0");
  return (
    `${WEEKDAYS[d.getUTCDay()]}, ${pad(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`
  );
}
