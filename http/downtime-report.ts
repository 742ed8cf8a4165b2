// A project's downtime per check and period (CONTRACT "Alerting, third part"): incidents (changes to down),
// time down and time unknown (hcd not watching) in each UTC day, week (from Monday) or month, from the
// checks' flips; the CSV export of the API and the dashboard, and the email reports, read it. Pure.
import type { Downtime, Flip, Millis, Status } from "../engine/model.ts";
import { DAY } from "../engine/model.ts";
import { periodsOf, unknownWithin } from "./status/uptime.ts";

export const PERIOD_UNITS = ["day", "week", "month"] as const;
export type PeriodUnit = (typeof PERIOD_UNITS)[number];

/** A period of the report: its label ("2026-03", "2026-03-09"), and its UTC start and end (exclusive). */
export type Period = { readonly label: string; readonly startAt: Millis; readonly endAt: Millis };

/** One check's figures in one period; watchedMs: the time it was watched and known (neither new, paused nor unknown). */
export type PeriodDowntime = { readonly incidents: number; readonly downMs: Millis; readonly unknownMs: Millis; readonly watchedMs: Millis };

/** The UTC periods of `unit` that meet [fromAt, toAt), oldest first: whole periods (the last ends after toAt when toAt falls inside it). */
export function periodsBetween(unit: PeriodUnit, fromAt: Millis, toAt: Millis): Period[] {
  const periods: Period[] = [];
  for (let startAt = periodStartOf(unit, fromAt); startAt < toAt; ) {
    const endAt = nextPeriodAt(unit, startAt);
    periods.push({ label: labelOf(unit, startAt), startAt, endAt });
    startAt = endAt;
  }
  return periods;
}

/** The start of the UTC period of `unit` holding `at`. */
export function periodStartOf(unit: PeriodUnit, at: Millis): Millis {
  const day = Math.floor(at / DAY) * DAY;
  if (unit === "day") return day;
  if (unit === "week") return day - ((new Date(day).getUTCDay() + 6) % 7) * DAY; // Monday
  const date = new Date(at);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

function nextPeriodAt(unit: PeriodUnit, startAt: Millis): Millis {
  if (unit === "day") return startAt + DAY;
  if (unit === "week") return startAt + 7 * DAY;
  const date = new Date(startAt);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

function labelOf(unit: PeriodUnit, startAt: Millis): string {
  return new Date(startAt).toISOString().slice(0, unit === "month" ? 7 : 10);
}

/**
 * A check's figures in each period, up to `now` (a period's part after `now` is not counted): `flips` from
 * the first period's start on, in any order; `status` its stored status now; time before `createdAt` and in
 * new or paused periods is not watched, time in an unknown stretch is counted as unknown only.
 */
export function downtimeByPeriod(opts: {
  readonly flips: readonly Flip[]; readonly status: Status; readonly createdAt: Millis; readonly now: Millis;
  readonly periods: readonly Period[]; readonly unknown: readonly Downtime[];
}): PeriodDowntime[] {
  const { periods: report, unknown, now } = opts;
  if (report.length === 0) return [];
  const fromAt = Math.max(report[0].startAt, opts.createdAt);
  const toAt = Math.min(now, report[report.length - 1].endAt);
  const { periods } = toAt > fromAt ? periodsOf(opts.flips, opts.status, fromAt, toAt) : { periods: [] };
  return report.map((period) => {
    let downMs = 0, unknownMs = 0, watchedMs = 0;
    for (const p of periods) {
      const from = Math.max(p.from, period.startAt), to = Math.min(p.to, period.endAt);
      if (to <= from || p.status === "new" || p.status === "paused") continue;
      const notKnown = unknownWithin(from, to, unknown);
      unknownMs += notKnown;
      watchedMs += to - from - notKnown;
      if (p.status === "down") downMs += to - from - notKnown;
    }
    const incidents = opts.flips.filter((f) => f.to === "down" && f.at >= period.startAt && f.at < period.endAt && f.at <= now).length;
    return { incidents, downMs, unknownMs, watchedMs };
  });
}

/** One row of the CSV: a check's figures in one period. */
export type DowntimeRow = { readonly period: string; readonly check: string; readonly id: string } & PeriodDowntime;

/**
 * The rows as CSV (RFC 4180, CRLF): period, check, its id (uuid or unique_key, `idColumn`), incidents,
 * seconds down, seconds unknown, and the percent up of the watched time (empty when none was watched).
 * A cell a spreadsheet would read as a formula (starting with =, +, -, @, a tab or a CR) is quoted with a
 * leading apostrophe: a check's name is user text, never a formula.
 */
export function downtimeCsv(rows: readonly DowntimeRow[], idColumn: "uuid" | "unique_key"): string {
  const lines = [["period", "check", idColumn, "incidents", "downtime_seconds", "unknown_seconds", "uptime_percent"].join(",")];
  for (const row of rows) {
    const uptime = row.watchedMs === 0 ? "" : String(Math.round(((row.watchedMs - row.downMs) / row.watchedMs) * 10_000) / 100);
    lines.push([row.period, cell(row.check), row.id, String(row.incidents), String(Math.round(row.downMs / 1000)), String(Math.round(row.unknownMs / 1000)), uptime].join(","));
  }
  return lines.join("\r\n") + "\r\n";
}

function cell(text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
