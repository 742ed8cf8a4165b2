// One line of a systemd OnCalendar expression (without its trailing zone), as the reference's
// `oncalendar` library reads it, turned into a WallPattern. Lines, zones and iteration: schedule.ts.
import type { WallPattern } from "./cron.ts";
import { daysInMonth, nextTable, rangeOf, stepTerm, weekdayOf } from "./cron.ts";

/** OnCalendar iteration stops at this year, like systemd. */
export const ONCALENDAR_MAX_YEAR = 2200;

const SPECIALS: ReadonlyMap<string, string> = new Map(
  Object.entries({
    minutely: "*-*-* *:*:00",
    hourly: "*-*-* *:00:00",
    daily: "*-*-* 00:00:00",
    monthly: "*-*-01 00:00:00",
    weekly: "Mon *-*-* 00:00:00",
    yearly: "*-01-01 00:00:00",
    annually: "*-01-01 00:00:00",
    quarterly: "*-01,04,07,10-01 00:00:00",
    semiannually: "*-01,07-01 00:00:00",
  }),
);

type Field = "dow" | "year" | "month" | "day" | "hour" | "minute" | "second";
const RANGES: Record<Field, readonly [number, number]> = {
  dow: [0, 6],
  year: [1970, ONCALENDAR_MAX_YEAR - 1],
  month: [1, 12],
  day: [1, 31],
  hour: [0, 23],
  minute: [0, 59],
  second: [0, 59],
};
const DAY_NAMES = ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY"];
const DAY_NAMES_SHORT = DAY_NAMES.map((name) => name.slice(0, 3));

class OnCalendarError extends Error {}

function digits(text: string): number {
  if (!/^[0-9]+$/.test(text)) throw new OnCalendarError(); // no signs, underscores or decimal seconds
  return Number(text);
}

function value(field: Field, text: string): number {
  if (field === "dow") {
    const name = text.toUpperCase();
    if (DAY_NAMES.includes(name)) return DAY_NAMES.indexOf(name); // Monday = 0
    if (DAY_NAMES_SHORT.includes(name)) return DAY_NAMES_SHORT.indexOf(name);
    throw new OnCalendarError();
  }
  let n = digits(text);
  if (field === "year" && n < 70) n += 2000;
  if (field === "year" && n < 100) n += 1900;
  const [min, max] = RANGES[field];
  if (n < min || n > max) throw new OnCalendarError();
  return n;
}

// The reference's Field.parse, check for check in the same order. `reverse`: a `~` day counted
// from the month's end, stored as -1 (last day), -2, …
function items(field: Field, text: string, reverse = false): Set<number> {
  if (field === "day" && text.startsWith("~")) return items(field, text.slice(1), true);
  const [min, max] = RANGES[field];
  if (field !== "dow" && text === "*") return new Set(rangeOf(min, max));
  if (text.includes("*")) throw new OnCalendarError(); // no `*` inside lists, ranges or steps
  if (field === "dow" && text.endsWith(",")) return items(field, text.slice(0, -1)); // "Mon, 1-1" is fine
  if (field === "dow" && text.includes("-")) return items(field, text.replaceAll("-", ".."));
  if (text.includes(",")) return new Set(text.split(",").flatMap((term) => [...items(field, term, reverse)]));
  if (text.includes("/") && field !== "dow") {
    const at = text.indexOf("/");
    const step = digits(text.slice(at + 1));
    if (step === 0) throw new OnCalendarError();
    const base = items(field, text.slice(0, at), reverse);
    return stepTerm(base, step, reverse ? 0 : max);
  }
  if (text.includes("..")) {
    const at = text.indexOf("..");
    const start = value(field, text.slice(0, at));
    const end = value(field, text.slice(at + 2));
    if (end < start) throw new OnCalendarError();
    return new Set(reverse ? rangeOf(-end, -start) : rangeOf(start, end));
  }
  const n = value(field, text);
  if (reverse && n > 28) throw new OnCalendarError(); // systemd rejects `~29` and beyond
  return new Set([reverse ? -n : n]);
}

function yearTable(years: ReadonlySet<number>): (year: number) => number {
  const [min, max] = RANGES.year;
  const next = new Int16Array(max - min + 2).fill(-1);
  for (const y of years) next[y - min] = y;
  for (let i = max - min - 1; i >= 0; i--) if (next[i] < 0) next[i] = next[i + 1];
  return (year) => (year > max ? -1 : next[Math.max(year, min) - min]);
}

/** Returns the pattern of one OnCalendar line without a trailing zone, or null when the reference would reject it. */
export function parseOnCalendarLine(line: string): WallPattern | null {
  const expression = SPECIALS.get(line.toLowerCase()) ?? line;
  const parts = expression
    .replaceAll("~", "-~")
    .split(/\s+/)
    .filter((part) => part !== "");
  if (parts.length === 0) return null;
  try {
    let hours = new Set([0]),
      minutes = new Set([0]),
      seconds = new Set([0]);
    if (parts[parts.length - 1].includes(":")) {
      const time = (parts.pop() ?? "").split(":");
      if (time.length !== 2 && time.length !== 3) return null;
      hours = items("hour", time[0]);
      minutes = items("minute", time[1]);
      seconds = items("second", time[2] ?? "0");
    }
    let years = new Set(rangeOf(...RANGES.year)),
      months = new Set(rangeOf(1, 12)),
      days = new Set(rangeOf(1, 31));
    const last = parts[parts.length - 1];
    if (last !== undefined && last.includes("-") && "0123456789*".includes(last[0])) {
      const date = (parts.pop() ?? "").split("-");
      if (date.length !== 2 && date.length !== 3) return null;
      if (date.length === 2) date.unshift("*");
      years = items("year", date[0]);
      months = items("month", date[1]);
      days = items("day", date[2]);
    }
    const weekdays = parts.length > 0 ? items("dow", parts.shift() ?? "") : new Set(rangeOf(0, 6));
    if (parts.length > 0) return null;
    const dowOk = new Uint8Array(7);
    for (const w of weekdays) dowOk[w] = 1;
    const dayOk = new Uint8Array(64); // index day + 32: -31…-1 count from the month's end, 1…31 plain
    for (const d of days) if (d >= -31 && d <= 31) dayOk[d + 32] = 1;
    const anyReverse = [...days].some((d) => d < 0);
    return {
      seconds: nextTable(seconds, 59),
      minutes: nextTable(minutes, 59),
      hours: nextTable(hours, 23),
      months: nextTable(months, 12),
      nextYear: yearTable(years),
      dayMatches: (year, month, day) =>
        dowOk[(weekdayOf(year, month, day) + 6) % 7] === 1 &&
        (dayOk[day + 32] === 1 || (anyReverse && dayOk[day - daysInMonth(year, month) - 1 + 32] === 1)),
    };
  } catch (error) {
    if (error instanceof OnCalendarError) return null;
    throw error;
  }
}
