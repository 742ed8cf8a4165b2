// A check's time by status from its flips, and its downtime per calendar period (CONTRACT "Alerting, third
// part"): incidents (changes to down), time down, and time unknown (hcd not watching: neither up nor
// down). One home for the status pages' uptime, the check's downtime table, the CSV export and the email
// reports. Pure: the flips, the stretches hcd did not watch and the instants come in.
import type { Downtime, Flip, Millis, Status } from "./model.ts";
import type { Period } from "../lib/utc-periods.ts";

/** How much of [fromAt, toAt) lies in the stretches (merged: none overlaps another). */
export function unknownWithin(fromAt: Millis, toAt: Millis, stretches: readonly Downtime[]): Millis {
  let total = 0;
  for (const stretch of stretches) total += Math.max(0, Math.min(toAt, stretch.toAt) - Math.max(fromAt, stretch.fromAt));
  return total;
}

/**
 * The check's statuses as periods over [fromAt, toAt), and the status it has at toAt: `flips` in any order
 * (those up to toAt count: one at toAt itself ends the last period), `status` the one it has now.
 */
export function periodsOf(
  flips: readonly Flip[],
  status: Status,
  fromAt: Millis,
  toAt: Millis,
): { periods: { from: Millis; to: Millis; status: Status }[]; last: Status } {
  const ordered = [...flips].filter((flip) => flip.at <= toAt).sort((a, b) => a.at - b.at || a.n - b.n);
  const periods: { from: Millis; to: Millis; status: Status }[] = [];
  let at = fromAt;
  let current = ordered.find((flip) => flip.at >= fromAt)?.from ?? status; // before the window's first flip
  for (const flip of ordered) {
    if (flip.at > at) periods.push({ from: at, to: flip.at, status: current });
    if (flip.at >= at) at = flip.at;
    current = flip.to;
  }
  if (toAt > at) periods.push({ from: at, to: toAt, status: current });
  return { periods, last: current };
}

/** One check's figures in one period; watchedMs: the time it was watched and known (neither new, paused nor unknown). */
export type PeriodDowntime = {
  readonly incidents: number;
  readonly downMs: Millis;
  readonly unknownMs: Millis;
  readonly watchedMs: Millis;
};

/**
 * A check's figures in each period, up to `now` (a period's part after `now` is not counted): `flips` from
 * the first period's start on, in any order; `status` its stored status now; time before `createdAt` and in
 * new or paused periods is not watched, time in an unknown stretch is counted as unknown only.
 */
export function downtimeByPeriod(opts: {
  readonly flips: readonly Flip[];
  readonly status: Status;
  readonly createdAt: Millis;
  readonly now: Millis;
  readonly periods: readonly Period[];
  readonly unknown: readonly Downtime[];
}): PeriodDowntime[] {
  const { periods: report, unknown, now } = opts;
  if (report.length === 0) return [];
  const fromAt = Math.max(report[0].startAt, opts.createdAt);
  const toAt = Math.min(now, report[report.length - 1].endAt);
  const { periods } = toAt > fromAt ? periodsOf(opts.flips, opts.status, fromAt, toAt) : { periods: [] };
  return report.map((period) => {
    let downMs = 0,
      unknownMs = 0,
      watchedMs = 0;
    for (const p of periods) {
      const from = Math.max(p.from, period.startAt),
        to = Math.min(p.to, period.endAt);
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
