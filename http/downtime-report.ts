// A project's downtime per check and period (CONTRACT "Alerting, third part"): incidents (changes to down),
// time down and time unknown (hcd not watching) in each UTC day, week (from Monday) or month, from the
// checks' flips; the CSV export of the API and the dashboard, and the email reports, read it. Pure.
import type { PeriodDowntime } from "../engine/downtime-periods.ts";

export { downtimeByPeriod } from "../engine/downtime-periods.ts";
export type { PeriodDowntime } from "../engine/downtime-periods.ts";

export { PERIOD_UNITS, periodsBetween, periodStartOf } from "../lib/utc-periods.ts";
export type { Period, PeriodUnit } from "../lib/utc-periods.ts";

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
    lines.push(
      [
        row.period,
        cell(row.check),
        row.id,
        String(row.incidents),
        String(Math.round(row.downMs / 1000)),
        String(Math.round(row.unknownMs / 1000)),
        uptime,
      ].join(","),
    );
  }
  return lines.join("\r\n") + "\r\n";
}

function cell(text: string): string {
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
