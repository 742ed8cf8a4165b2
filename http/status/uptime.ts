// A check's uptime over the last 90 days from its flips: the share of the time it was watched (neither new
// nor paused) that it was not down, the same share per UTC day for the bars, and its incidents (each time
// down until up again). Pure: the flips, the check's creation and status, and the instant come in.
import type { Flip, Millis, Status } from "../../engine/model.ts";
import { DAY } from "../../engine/model.ts";

export const UPTIME_DAYS = 90;

/** A period a check was down: from its flip to down until its flip out of down (null: still down). */
export type Incident = { readonly startedAt: Millis; readonly endedAt: Millis | null };

export type Uptime = {
  /** Percent of the watched time not down, two decimals; 100 when nothing was watched yet. */
  readonly percent: number;
  /** One per UTC day, oldest first, the last being today: its percent, or null when the check was not watched that day. */
  readonly days: readonly (number | null)[];
  readonly incidents: readonly Incident[];
};

/**
 * The check's statuses as periods over [fromAt, toAt), and the status it has at toAt: `flips` in any order
 * (those up to toAt count: one at toAt itself ends the last period), `status` the one it has now.
 */
function periodsOf(flips: readonly Flip[], status: Status, fromAt: Millis, toAt: Millis): { periods: { from: Millis; to: Millis; status: Status }[]; last: Status } {
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

const percentOf = (down: Millis, watched: Millis) => (watched === 0 ? 100 : Math.round(((watched - down) / watched) * 10_000) / 100);

/** Uptime over the UPTIME_DAYS UTC days ending with today (the one holding `now`), from the check's creation on. */
export function uptimeOf(opts: { flips: readonly Flip[]; status: Status; createdAt: Millis; now: Millis }): Uptime {
  const { flips, status, createdAt, now } = opts;
  const firstDayAt = Math.floor(now / DAY) * DAY - (UPTIME_DAYS - 1) * DAY;
  const fromAt = Math.min(now, Math.max(firstDayAt, createdAt));
  const { periods, last } = periodsOf(flips, status, fromAt, now);
  const watched = (p: { status: Status }) => p.status !== "new" && p.status !== "paused";
  const sum = (dayFrom: Millis, dayTo: Millis) => {
    let watchedMs = 0, downMs = 0;
    for (const p of periods) {
      const span = Math.min(p.to, dayTo) - Math.max(p.from, dayFrom);
      if (span <= 0 || !watched(p)) continue;
      watchedMs += span;
      if (p.status === "down") downMs += span;
    }
    return { watchedMs, downMs };
  };
  const days = Array.from({ length: UPTIME_DAYS }, (_, i) => {
    const { watchedMs, downMs } = sum(firstDayAt + i * DAY, firstDayAt + (i + 1) * DAY);
    return watchedMs === 0 ? null : percentOf(downMs, watchedMs);
  });
  const total = sum(fromAt, now);
  const incidents: Incident[] = [];
  for (const p of periods) {
    if (p.status !== "down") continue;
    const last = incidents.at(-1);
    if (last !== undefined && last.endedAt === p.from) incidents[incidents.length - 1] = { startedAt: last.startedAt, endedAt: p.to };
    else incidents.push({ startedAt: p.from, endedAt: p.to });
  }
  // a check still down now has an incident that has not ended (one back up at this very instant has)
  if (last === "down" && incidents.length > 0) incidents[incidents.length - 1] = { startedAt: incidents[incidents.length - 1].startedAt, endedAt: null };
  return { percent: percentOf(total.downMs, total.watchedMs), days, incidents };
}
