// The downtime export of a project (CONTRACT "Alerting, third part"): GET /api/v3/downtime.csv and the
// dashboard's /projects/<id>/downtime.csv, with ?by=day|week|month&from=YYYY-MM-DD&to=YYYY-MM-DD (UTC;
// `to` exclusive; by default the current month and the two before it, or the last 30 days by day). One
// home for reading the query and the checks' flips; http/downtime-report.ts works out the figures.
import type { Millis, Project } from "../engine/model.ts";
import { DAY } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import { invalid, ok } from "../engine/outcome.ts";
import type { Pool } from "../host/pool-api.ts";
import { uniqueKeyOf } from "../host/unique-key.ts";
import type { DowntimeRow, Period, PeriodUnit } from "./downtime-report.ts";
import { downtimeByPeriod, PERIOD_UNITS, periodsBetween, periodStartOf } from "./downtime-report.ts";

/** At most this many periods an export (400 days by day). */
const MAX_PERIODS = 400;

export type DowntimeQuery = { readonly unit: PeriodUnit; readonly periods: readonly Period[] };

/** Returns the export's periods from a query string; a bad value is a 400 outcome naming the parameter. */
export function downtimeQueryOf(search: URLSearchParams, now: Millis): Outcome<DowntimeQuery> {
  const by = search.get("by") ?? "month";
  const unit = PERIOD_UNITS.find((u) => u === by);
  if (unit === undefined) return invalid("by", "must be day, week or month");
  const date = (name: string): Outcome<Millis | null> => {
    const text = search.get(name);
    if (text === null) return ok(null);
    const at = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : NaN;
    return Number.isFinite(at) && new Date(at).toISOString().startsWith(text) ? ok(at) : invalid(name, "must be a date, YYYY-MM-DD");
  };
  const from = date("from"),
    to = date("to");
  if (!from.ok) return from;
  if (!to.ok) return to;
  const toAt = to.value ?? now;
  const fromAt =
    from.value ??
    (unit === "day"
      ? periodStartOf("day", now) - 29 * DAY
      : unit === "week"
        ? periodStartOf("week", now) - 11 * 7 * DAY
        : Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth() - 2, 1));
  if (toAt <= fromAt) return invalid("to", "must be after from");
  const periods = periodsBetween(unit, fromAt, toAt);
  if (periods.length > MAX_PERIODS)
    return invalid("from", `gives more than ${MAX_PERIODS} periods: choose a shorter range or a longer period`);
  return ok({ unit, periods });
}

/** Every check's figures in each period, checks in creation order; a read-only key sees unique keys, not uuids. */
export async function projectDowntimeRows(
  pool: Pool,
  project: Project,
  query: DowntimeQuery,
  now: Millis,
  readonly: boolean,
): Promise<DowntimeRow[]> {
  const checks = (await pool.listChecks(project.id, { tags: [] })).sort((a, b) => a.createdAt - b.createdAt);
  const unknown = await pool.unknownTime(project.id);
  const rows: DowntimeRow[] = [];
  for (const check of checks) {
    const flips = await pool.listFlips(project.id, { uuid: check.uuid }, { fromAt: query.periods[0]?.startAt ?? now });
    if (!flips.ok) continue; // deleted meanwhile
    const figures = downtimeByPeriod({
      flips: flips.value,
      status: check.status,
      createdAt: check.createdAt,
      now,
      periods: query.periods,
      unknown,
    });
    const id = readonly ? uniqueKeyOf(check.uuid) : check.uuid;
    query.periods.forEach((period, i) => rows.push({ period: period.label, check: check.name, id, ...figures[i] }));
  }
  return rows;
}
