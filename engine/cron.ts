// Cron expressions as cronsim 2.x reads them (the reference's parser), turned into a WallPattern:
// the wall-clock pattern this file shares with OnCalendar. Iteration lives in schedule.ts.
// Why not cron-parser: it ORs `*/2` with a weekday (cronsim ANDs any day field starting with `*`),
// moves a spring-gap `30 3 * * *` to 04:30 instead of 04:00, and rejects `LW`.

/** Which wall-clock times match. Each table maps a value to the first allowed value ≥ it, or -1. */
export type WallPattern = {
  readonly seconds: Int8Array; // 61 entries, [60] = -1
  readonly minutes: Int8Array; // 61 entries, [60] = -1
  readonly hours: Int8Array; // 25 entries, [24] = -1
  readonly months: Int8Array; // 14 entries, 1–12 used, [13] = -1
  /** Returns the first allowed year ≥ `year`, or -1. */
  readonly nextYear: (year: number) => number;
  readonly dayMatches: (year: number, month: number, day: number) => boolean;
};

/** A parsed cron expression; `wallClock`: minute and hour both start without `*` (cronsim's DST rule). */
export type CronSchedule = { readonly pattern: WallPattern; readonly wallClock: boolean };

const DAY_MS = 86_400_000;

/** Returns the number of days in `month` (1–12) of `year`. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Returns the weekday of a date, 0 = Sunday … 6 = Saturday. */
export function weekdayOf(year: number, month: number, day: number): number {
  const days = Math.floor(Date.UTC(year, month - 1, day) / DAY_MS);
  return (((days + 4) % 7) + 7) % 7; // 1970-01-01 was a Thursday
}

/** Returns a next-allowed table for values 0…max (index max + 1 holds -1). */
export function nextTable(allowed: Iterable<number>, max: number): Int8Array {
  const table = new Int8Array(max + 2).fill(-1);
  for (const value of allowed) if (value >= 0 && value <= max) table[value] = value;
  for (let i = max - 1; i >= 0; i--) if (table[i] < 0) table[i] = table[i + 1];
  return table;
}

/** Returns every `step`-th value starting with the first, like Python's `values[::step]`. */
export function stepped(values: readonly number[], step: number): number[] {
  return values.filter((_, i) => i % step === 0);
}

/**
 * Returns the values a step term `base/step` names in both syntaxes: a single start value runs on to
 * `last` (`5/15` = 5,20,35,50 in cron; `~7/2` down to 0 in OnCalendar), a set of values is stepped as it is.
 */
export function stepTerm(base: ReadonlySet<number>, step: number, last: number): Set<number> {
  if (base.size === 1) return new Set(stepped(rangeOf([...base][0], last), step));
  return new Set(
    stepped(
      [...base].sort((a, b) => a - b),
      step,
    ),
  );
}

/** Returns the integers start…end, both included. */
export const rangeOf = (start: number, end: number): number[] => Array.from({ length: Math.max(0, end - start + 1) }, (_, i) => start + i);

const FIELDS = ["minute", "hour", "day", "month", "dow"] as const;
type Field = (typeof FIELDS)[number];
const RANGES: Record<Field, readonly [number, number]> = { minute: [0, 59], hour: [0, 23], day: [1, 31], month: [1, 12], dow: [0, 7] };
const MONTH_NAMES = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
const DAY_NAMES = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];
const DAYS_IN_MONTH_MAX = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

// Special items next to plain numbers: day-of-month L / LW, day-of-week <dow>L / <dow>#n.
const LAST_DAY = -1;
const LAST_WEEKDAY = -2;
const lastDow = (dow: number) => 100 + dow;
const nthDow = (dow: number, nth: number) => 200 + dow * 10 + nth;

class CronError extends Error {}

function digits(text: string): number {
  if (!/^[0-9]+$/.test(text)) throw new CronError(text === "" ? "a number is missing" : `"${text}" is not a number`);
  return Number(text);
}

function value(field: Field, text: string): number {
  if (field === "month" && MONTH_NAMES.includes(text)) return MONTH_NAMES.indexOf(text) + 1;
  if (field === "dow" && DAY_NAMES.includes(text)) return DAY_NAMES.indexOf(text);
  const n = digits(text);
  const [min, max] = RANGES[field];
  if (n < min || n > max) throw new CronError(`${n} is out of range ${min}-${max}`);
  return n;
}

// cronsim's Field.parse, check for check in the same order (the order decides what `5L/2` or `1#2/3` mean).
function items(field: Field, text: string): Set<number> {
  const [min, max] = RANGES[field];
  if (text === "*") return new Set(rangeOf(min, max));
  if (text.includes(",")) return new Set(text.split(",").flatMap((term) => [...items(field, term)]));
  if (field === "dow" && text.includes("L")) {
    const dow = text.slice(0, -1);
    if (!/^[0-9]+$/.test(dow)) throw new CronError(`"${text}" is not a weekday number followed by L`); // `FRIL` is not accepted, `5L` is
    return new Set([lastDow(value(field, dow) % 7)]);
  }
  if (field === "dow" && text.includes("#")) {
    const at = text.indexOf("#");
    const nth = digits(text.slice(at + 1));
    if (nth < 1 || nth > 5) throw new CronError(`#${nth} is out of range 1-5`);
    return new Set([nthDow(value(field, text.slice(0, at)) % 7, nth)]);
  }
  if (text.includes("/")) {
    const at = text.indexOf("/");
    const step = digits(text.slice(at + 1));
    if (step === 0) throw new CronError("a step of 0");
    const base = items(field, text.slice(0, at));
    if (base.size === 1 && (base.has(LAST_DAY) || base.has(LAST_WEEKDAY))) return base;
    return stepTerm(base, step, max); // `5/15` = 5,20,35,50 (and `5-5/15` too)
  }
  if (text.includes("-")) {
    const at = text.indexOf("-");
    const start = value(field, text.slice(0, at));
    const end = value(field, text.slice(at + 1));
    if (end < start) throw new CronError(`the range ${start}-${end} runs backwards`);
    return new Set(rangeOf(start, end));
  }
  if (field === "day" && text === "LW") return new Set([LAST_WEEKDAY]);
  if (field === "day" && text === "L") return new Set([LAST_DAY]);
  return new Set([value(field, text)]);
}

function lastWeekdayOf(year: number, month: number): number {
  const last = daysInMonth(year, month);
  const dow = weekdayOf(year, month, last);
  return dow === 0 ? last - 2 : dow === 6 ? last - 1 : last;
}

/** What the fields are called in words, in their order. */
const FIELD_NAMES: Record<Field, string> = { minute: "minute", hour: "hour", day: "day of month", month: "month", dow: "day of week" };

/**
 * Says what is wrong with a 5-field cron expression, naming its field (minute, "61 is out of range
 * 0-59"); null when its fields parse (the expression may still never run: parseCron and the validation
 * judge that) or when it does not have 5 fields.
 */
export function cronFieldProblem(expr: string): { readonly field: string; readonly problem: string } | null {
  const parts = expr.toUpperCase().trim().split(/\s+/);
  if (parts.length !== 5) return null;
  for (const [i, field] of FIELDS.entries()) {
    try {
      items(field, parts[i]);
    } catch (error) {
      if (error instanceof CronError) return { field: FIELD_NAMES[field], problem: error.message || `"${parts[i]}" is not valid` };
      throw error;
    }
  }
  return null;
}

/** Returns the parsed schedule of a 5-field cron expression, or null when cronsim would reject it. */
export function parseCron(expr: string): CronSchedule | null {
  const parts = expr.toUpperCase().trim().split(/\s+/);
  if (parts.length !== 5) return null;
  try {
    const [minutes, hours, days, months, weekdays] = FIELDS.map((field, i) => items(field, parts[i]));
    const plainDays = [...days].filter((d) => d > 0);
    const smallest = Math.min(...days);
    // a day beyond every chosen month's length can never match (cronsim's only static check)
    if (smallest > 29 && smallest > Math.max(...[...months].map((m) => DAYS_IN_MONTH_MAX[m]))) return null;
    const domAny = new Uint8Array(32);
    for (const d of plainDays) domAny[d] = 1;
    const wantsLastDay = days.has(LAST_DAY);
    const wantsLastWeekday = days.has(LAST_WEEKDAY);
    const dowPlain = new Uint8Array(7);
    for (const w of weekdays) if (w >= 0 && w <= 7) dowPlain[w % 7] = 1; // 0 and 7 are both Sunday
    const dowCodes = new Set([...weekdays].filter((w) => w >= 100));
    // Debian cron: if either day field starts with `*`, both must match; otherwise either one will do
    const dayAnd = parts[2].startsWith("*") || parts[4].startsWith("*");
    const domMatches = (year: number, month: number, day: number): boolean =>
      domAny[day] === 1 ||
      (wantsLastDay && day === daysInMonth(year, month)) ||
      (wantsLastWeekday && day >= 26 && day === lastWeekdayOf(year, month));
    const dowMatches = (year: number, month: number, day: number): boolean => {
      const dow = weekdayOf(year, month, day);
      if (dowPlain[dow] === 1) return true;
      if (dowCodes.size === 0) return false;
      if (dowCodes.has(lastDow(dow)) && day + 7 > daysInMonth(year, month)) return true;
      return dowCodes.has(nthDow(dow, Math.floor((day + 6) / 7)));
    };
    const pattern: WallPattern = {
      seconds: nextTable([0], 59),
      minutes: nextTable(minutes, 59),
      hours: nextTable(hours, 23),
      months: nextTable(months, 12),
      nextYear: (year) => year,
      dayMatches: dayAnd
        ? (y, m, d) => domMatches(y, m, d) && dowMatches(y, m, d)
        : (y, m, d) => domMatches(y, m, d) || dowMatches(y, m, d),
    };
    return { pattern, wallClock: !parts[0].startsWith("*") && !parts[1].startsWith("*") };
  } catch (error) {
    if (error instanceof CronError) return null;
    throw error;
  }
}
