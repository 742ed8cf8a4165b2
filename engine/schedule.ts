// Next expected instant of a cron or OnCalendar schedule in a time zone, matching the reference's
// cronsim and oncalendar libraries (research/healthchecks-ping.md §8).
//
// Both kinds become a WallPattern (cron.ts, oncalendar.ts) searched on wall-clock time by nextWall(), in
// a zone's local time (zones.ts). The only module state is a bounded memo cache of parses.
import type { CronSchedule, WallPattern } from "./cron.ts";
import { daysInMonth, parseCron } from "./cron.ts";
import type { Millis } from "./model.ts";
import { LIMITS } from "./model.ts";
import { ONCALENDAR_MAX_YEAR, parseOnCalendarLine } from "./oncalendar.ts";
import type { Outcome } from "./outcome.ts";
import { invalid, ok } from "./outcome.ts";
import { canonicalZone, gapEndWall, instantsAt, offsetAt, segmentAt, utcYear } from "./zones.ts";
import { BoundedMap } from "../lib/bounded-map.ts";

export type ScheduleKind = "cron" | "oncalendar";

const SECOND = 1000,
  MINUTE = 60 * SECOND;
const PARSES_CAP = 4096;

// ---- Wall-clock search ---------------------------------------------------------------------
/** Returns the first wall time ≥ `from` (to the second) matching `p` and before `until`, or null. */
function nextWall(p: WallPattern, from: Millis, until: Millis): Millis | null {
  const start = new Date(from);
  let year = start.getUTCFullYear(),
    month = start.getUTCMonth() + 1,
    day = start.getUTCDate();
  let hour = start.getUTCHours(),
    minute = start.getUTCMinutes(),
    second = start.getUTCSeconds();
  for (;;) {
    if (Date.UTC(year, month - 1, day) >= until) return null;
    const y = p.nextYear(year);
    if (y < 0) return null;
    if (y !== year) {
      year = y;
      month = 1;
      day = 1;
      hour = minute = second = 0;
    }
    const m = p.months[month];
    if (m < 0) {
      year += 1;
      month = 1;
      day = 1;
      hour = minute = second = 0;
      continue;
    }
    if (m !== month) {
      month = m;
      day = 1;
      hour = minute = second = 0;
    }
    if (day > daysInMonth(year, month)) {
      month += 1;
      day = 1;
      hour = minute = second = 0;
      continue;
    }
    if (!p.dayMatches(year, month, day)) {
      day += 1;
      hour = minute = second = 0;
      continue;
    }
    const h = p.hours[hour];
    if (h < 0) {
      day += 1;
      hour = minute = second = 0;
      continue;
    }
    if (h !== hour) {
      hour = h;
      minute = second = 0;
    }
    const mi = p.minutes[minute];
    if (mi < 0) {
      hour += 1;
      minute = second = 0;
      continue;
    }
    if (mi !== minute) {
      minute = mi;
      second = 0;
    }
    const s = p.seconds[second];
    if (s < 0) {
      minute += 1;
      second = 0;
      continue;
    }
    const wall = Date.UTC(year, month - 1, day, hour, minute, s);
    return wall < until ? wall : null;
  }
}

const floorTo = (at: Millis, unit: number): Millis => Math.floor(at / unit) * unit;
const wallOf = (zone: string, at: Millis): Millis => at + offsetAt(zone, at);

// ---- Cron (cronsim) ------------------------------------------------------------------------
// cronsim gives up when no match turns up within 50 years.
const cronUntil = (wall: Millis): Millis => Date.UTC(utcYear(wall) + 51, 0, 1);

// Minute and hour both fixed: iterate on wall-clock time. A spring-gap time moves forward to the
// first minute that exists; an ambiguous autumn time runs at its first occurrence only.
function nextCronOnWallClock(p: WallPattern, zone: string, afterAt: Millis): Millis | null {
  let from = floorTo(wallOf(zone, afterAt), MINUTE) + MINUTE;
  const until = cronUntil(from);
  for (;;) {
    const wall = nextWall(p, from, until);
    if (wall === null) return null;
    let [at] = instantsAt(zone, wall);
    let real = wall;
    if (at === undefined) {
      real = wall + Math.ceil((gapEndWall(zone, wall) - wall) / MINUTE) * MINUTE;
      [at] = instantsAt(zone, real);
    }
    if (at !== undefined && at > afterAt) return at;
    from = real + MINUTE; // e.g. `afterAt` in the repeated hour, past the first occurrence
  }
}

// Minute or hour starts with `*`: tick in UTC and match local fields, one constant-offset stretch at a
// time. The repeated autumn hour is visited twice; spring-gap times don't exist.
function nextCronInUtc(p: WallPattern, zone: string, afterAt: Millis): Millis | null {
  let at = floorTo(afterAt, MINUTE) + MINUTE;
  const until = cronUntil(wallOf(zone, at));
  for (;;) {
    const segment = segmentAt(zone, at);
    const endWall = segment.endAt + segment.offsetMs;
    const wall = nextWall(p, at + segment.offsetMs, Math.min(endWall, until));
    if (wall !== null) return wall - segment.offsetMs;
    if (endWall >= until) return null;
    at = segment.endAt;
  }
}

function nextCron(cron: CronSchedule, zone: string, afterAt: Millis): Millis | null {
  return cron.wallClock ? nextCronOnWallClock(cron.pattern, zone, afterAt) : nextCronInUtc(cron.pattern, zone, afterAt);
}

// ---- OnCalendar ----------------------------------------------------------------------------
type OnCalendarLine = { readonly pattern: WallPattern; readonly zone: string | null }; // null: the check's zone
const ONCALENDAR_UNTIL = Date.UTC(ONCALENDAR_MAX_YEAR, 0, 1);

/** Returns the lines of an OnCalendar expression, each with its optional trailing zone, or null if one fails to parse. */
function parseOnCalendar(expr: string): OnCalendarLine[] | null {
  const lines: OnCalendarLine[] = [];
  for (const raw of expr.trim().split("\n")) {
    const line = raw.trim();
    const space = line.search(/\s\S*$/); // the reference looks for a zone only if the line has a space
    const lastWord = line.includes(" ") && space >= 0 ? line.slice(space + 1) : "";
    const zone = lastWord !== "" && !"0123456789*".includes(lastWord[0]) ? canonicalZone(lastWord) : null;
    const pattern = parseOnCalendarLine(zone === null ? line : line.slice(0, space).trim());
    if (pattern === null) return null;
    lines.push({ pattern, zone });
  }
  return lines;
}

// Iterates on wall-clock time in every zone: spring-gap times are skipped, ambiguous times run once.
function nextLine(p: WallPattern, zone: string, afterAt: Millis): Millis | null {
  let from = floorTo(wallOf(zone, afterAt), SECOND) + SECOND;
  for (;;) {
    const wall = nextWall(p, from, ONCALENDAR_UNTIL);
    if (wall === null) return null;
    const [at] = instantsAt(zone, wall);
    if (at !== undefined && at > afterAt) return at;
    from = at === undefined ? gapEndWall(zone, wall) : wall + SECOND;
  }
}

function nextOnCalendar(lines: readonly OnCalendarLine[], zone: string, afterAt: Millis): Millis | null {
  let earliest: Millis | null = null;
  for (const line of lines) {
    const at = nextLine(line.pattern, line.zone ?? zone, afterAt);
    if (at !== null && (earliest === null || at < earliest)) earliest = at;
  }
  return earliest;
}

// ---- Public API ----------------------------------------------------------------------------
type Parsed =
  | { readonly kind: "cron"; readonly cron: CronSchedule }
  | { readonly kind: "oncalendar"; readonly lines: readonly OnCalendarLine[] }
  | null;
const parses = new BoundedMap<string, Parsed>(PARSES_CAP);

function parse(expr: string): Parsed {
  const known = parses.get(expr);
  if (known !== undefined) return known;
  let parsed: Parsed = null;
  if (guessKind(expr) === "cron") {
    const cron = parseCron(expr);
    if (cron !== null) parsed = { kind: "cron", cron };
  } else {
    const lines = parseOnCalendar(expr);
    if (lines !== null) parsed = { kind: "oncalendar", lines };
  }
  parses.set(expr, parsed);
  return parsed;
}

function nextParsed(parsed: NonNullable<Parsed>, zone: string, afterAt: Millis): Millis | null {
  return parsed.kind === "cron" ? nextCron(parsed.cron, zone, afterAt) : nextOnCalendar(parsed.lines, zone, afterAt);
}

/** Returns "cron" for one line of exactly 5 whitespace-separated fields, else "oncalendar". */
export function guessKind(expr: string): ScheduleKind {
  return !expr.trim().includes("\n") && expr.trim().split(/\s+/).length === 5 ? "cron" : "oncalendar";
}

const VALIDATION_START = Date.UTC(2000, 0, 1);
const EARLIEST = Date.UTC(1900, 0, 1),
  LATEST = Date.UTC(3000, 0, 1);

/** Validates a schedule and zone as the reference does (parses, and runs at least once after 2000-01-01 UTC); returns the kind. */
export function validateSchedule(expr: string, tz: string): Outcome<ScheduleKind> {
  if (typeof expr !== "string" || expr.trim() === "") return invalid("schedule", "is empty");
  if ([...expr].length > LIMITS.scheduleMaxChars) return invalid("schedule", "is too long");
  const parsed = parse(expr);
  // spec: cronsim runs naive and oncalendar in UTC here, so a one-off date in the past is still valid
  if (parsed === null || nextParsed(parsed, "UTC", VALIDATION_START) === null) {
    return invalid("schedule", "is not a valid cron or OnCalendar expression");
  }
  if (canonicalZone(tz) === null) return invalid("tz", "is not a valid timezone");
  return ok(parsed.kind);
}

/** Returns the first occurrence strictly after `afterAt` (to the second), in epoch ms; null when there is none (or the schedule or zone is invalid). */
export function nextAfter(expr: string, tz: string, afterAt: Millis): Millis | null {
  const zone = canonicalZone(tz);
  if (zone === null || typeof expr !== "string" || !Number.isFinite(afterAt) || afterAt >= LATEST) return null;
  const parsed = parse(expr);
  return parsed === null ? null : nextParsed(parsed, zone, Math.max(afterAt, EARLIEST));
}
