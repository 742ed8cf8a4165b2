// A check's uptime over the last 90 days from its flips: the share of the time it was watched (neither new
// nor paused) that it was not down, the same share per UTC day for the bars, and its incidents (each time
// down until up again). Time in a stretch hcd did not watch (CONTRACT "Alerting, third part": not running,
// or a partition without an owner) is unknown: neither up nor down, left out of the shares and counted
// apart. Pure: the flips, the check's creation and status, the unknown stretches and the instant come in.
import type { Downtime, Flip, Millis, Status } from "../../engine/model.ts";
import { periodsOf, unknownWithin } from "../../engine/downtime-periods.ts";

export { unknownWithin };
import { DAY } from "../../engine/model.ts";

export const UPTIME_DAYS = 90;

/** A period a check was down: from its flip to down until its flip out of down (null: still down). */
export type Incident = { readonly startedAt: Millis; readonly endedAt: Millis | null };

export type Uptime = {
  /** Percent of the watched time not down (unknown time left out), two decimals; 100 when nothing was watched yet. */
  readonly percent: number;
  /** One per UTC day, oldest first, the last being today: its percent, or null when the check was not watched that day (or only in unknown time). */
  readonly days: readonly (number | null)[];
  /** One per UTC day, as `days`: how much of the day's watched time was unknown. */
  readonly unknownDays: readonly Millis[];
  /** The watched time that was unknown over the whole window. */
  readonly unknownMs: Millis;
  readonly incidents: readonly Incident[];
};

const percentOf = (down: Millis, watched: Millis) => (watched === 0 ? 100 : Math.round(((watched - down) / watched) * 10_000) / 100);

/** Uptime over the UPTIME_DAYS UTC days ending with today (the one holding `now`), from the check's creation on. */
export function uptimeOf(opts: {
  flips: readonly Flip[];
  status: Status;
  createdAt: Millis;
  now: Millis;
  unknown?: readonly Downtime[];
}): Uptime {
  const { flips, status, createdAt, now } = opts;
  const unknown = opts.unknown ?? [];
  const firstDayAt = Math.floor(now / DAY) * DAY - (UPTIME_DAYS - 1) * DAY;
  const fromAt = Math.min(now, Math.max(firstDayAt, createdAt));
  const { periods, last } = periodsOf(flips, status, fromAt, now);
  const watched = (p: { status: Status }) => p.status !== "new" && p.status !== "paused";
  const sum = (dayFrom: Millis, dayTo: Millis) => {
    let watchedMs = 0,
      downMs = 0,
      unknownMs = 0;
    for (const p of periods) {
      const from = Math.max(p.from, dayFrom),
        to = Math.min(p.to, dayTo);
      if (to <= from || !watched(p)) continue;
      const notKnown = unknownWithin(from, to, unknown);
      unknownMs += notKnown;
      watchedMs += to - from - notKnown;
      if (p.status === "down") downMs += to - from - notKnown;
    }
    return { watchedMs, downMs, unknownMs };
  };
  const perDay = Array.from({ length: UPTIME_DAYS }, (_, i) => sum(firstDayAt + i * DAY, firstDayAt + (i + 1) * DAY));
  const days = perDay.map(({ watchedMs, downMs }) => (watchedMs === 0 ? null : percentOf(downMs, watchedMs)));
  const total = sum(fromAt, now);
  const incidents: Incident[] = [];
  for (const p of periods) {
    if (p.status !== "down") continue;
    const last = incidents.at(-1);
    if (last !== undefined && last.endedAt === p.from) incidents[incidents.length - 1] = { startedAt: last.startedAt, endedAt: p.to };
    else incidents.push({ startedAt: p.from, endedAt: p.to });
  }
  // a check still down now has an incident that has not ended (one back up at this very instant has)
  if (last === "down" && incidents.length > 0)
    incidents[incidents.length - 1] = { startedAt: incidents[incidents.length - 1].startedAt, endedAt: null };
  return {
    percent: percentOf(total.downMs, total.watchedMs),
    days,
    unknownDays: perDay.map((day) => day.unknownMs),
    unknownMs: total.unknownMs,
    incidents,
  };
}
