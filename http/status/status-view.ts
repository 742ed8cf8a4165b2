// What a public status page shows, worked out from its checks and their flips, and kept for a few seconds:
// requests in that time (and those arriving while it is worked out) share one computation, so a page
// asked for 100 times a second costs the shards one round of reads per check every few seconds.
import type { Downtime, Millis, Project, StatusPage } from "../../engine/model.ts";
import { DAY } from "../../engine/model.ts";
import { statusAt } from "../../engine/status.ts";
import type { Clock } from "../../host/clock.ts";
import type { Pool } from "../../host/pool-api.ts";
import { BoundedMap } from "../../lib/bounded-map.ts";
import { isoSeconds } from "../../lib/iso-dates.ts";
import { UPTIME_DAYS, uptimeOf } from "./uptime.ts";
import { overallOf } from "./overall.ts";

/** How long a worked-out page is served as it is (docs/dashboard-and-teams.md, "Status pages", says so). */
export const STATUS_CACHE_MS = 5_000;

/** One check on the page: its name and status word, never its uuid, keys or pings; its unknown time (hcd not watching) apart. */
export type StatusCheck = {
  readonly name: string;
  readonly status: string;
  readonly uptimePercent: number;
  readonly days: readonly (number | null)[];
  readonly unknownMs: Millis;
  readonly unknownDays: readonly Millis[];
  /** When the check was made, if within the window: its uptime counts from then, and the days before show no bar of it. */
  readonly sinceAt: Millis | null;
  /** The heading it is shown under; null: ungrouped (those come first). */
  readonly group: string | null;
};
export type StatusIncident = { readonly check: string; readonly startedAt: Millis; readonly endedAt: Millis | null };
export type StatusView = {
  readonly title: string;
  readonly description: string;
  /** The page's logo address (https), or null. */
  readonly logo: string | null;
  readonly at: Millis;
  readonly firstDayAt: Millis;
  readonly checks: readonly StatusCheck[];
  readonly incidents: readonly StatusIncident[];
  /** The stretches hcd did not watch the project's checks in the window, newest first. */
  readonly unknown: readonly Downtime[];
};

type Entry = { readonly page: StatusPage; readonly until: Millis; readonly view: Promise<StatusView> };

/** The same page as kept (a page deleted and made again under its slug is another: the kept view goes). */
const samePage = (a: StatusPage, b: StatusPage) =>
  a.createdAt === b.createdAt &&
  a.title === b.title &&
  a.description === b.description &&
  a.logo === b.logo &&
  a.checks.join() === b.checks.join() &&
  JSON.stringify(a.groups ?? []) === JSON.stringify(b.groups ?? []);

/** The page's checks in the order shown, each with its group: the ungrouped ones in the page's order, then each group's. */
function shownOrder(page: StatusPage): { uuid: string; group: string | null }[] {
  const groups = page.groups ?? [];
  const grouped = new Set(groups.flatMap((g) => g.checks));
  return [
    ...page.checks.filter((uuid) => !grouped.has(uuid)).map((uuid) => ({ uuid, group: null })),
    ...groups.flatMap((g) => g.checks.map((uuid) => ({ uuid, group: g.name }))),
  ];
}

export class StatusViews {
  readonly #pool: Pool;
  readonly #clock: Clock;
  readonly #entries = new BoundedMap<string, Entry>(1_000);

  constructor(pool: Pool, clock: Clock) {
    this.#pool = pool;
    this.#clock = clock;
  }

  /** The page's view: the one kept when it is younger than STATUS_CACHE_MS and the page and project are unchanged. */
  viewOf(project: Project, page: StatusPage): Promise<StatusView> {
    const now = this.#clock.now();
    const kept = this.#entries.get(page.slug);
    if (kept !== undefined && samePage(kept.page, page) && now < kept.until) return kept.view;
    const view = this.#compute(project, page, now);
    this.#entries.set(page.slug, { page, until: now + STATUS_CACHE_MS, view });
    view.catch(() => {
      if (this.#entries.get(page.slug)?.view === view) this.#entries.delete(page.slug);
    }); // a failure is not kept
    return view;
  }

  async #compute(project: Project, page: StatusPage, now: Millis): Promise<StatusView> {
    const firstDayAt = Math.floor(now / DAY) * DAY - (UPTIME_DAYS - 1) * DAY;
    // the checks first: a partition serves them only once its time without an owner is stored, so it is read after
    const read = await Promise.all(
      shownOrder(page).map(async ({ uuid, group }) => {
        const found = await this.#pool.getCheck(project.id, { uuid });
        if (!found.ok) return null; // deleted since the page was made: left out
        const flips = await this.#pool.listFlips(project.id, { uuid }, { fromAt: Math.max(firstDayAt, found.value.createdAt) });
        return { check: found.value, flips: flips.ok ? flips.value : [], group };
      }),
    );
    const unknown = (await this.#pool.unknownTime(project.id)).filter((stretch) => stretch.toAt > firstDayAt && stretch.fromAt < now);
    const shown = read.map((item) => {
      if (item === null) return null;
      const { check, flips, group } = item;
      const uptime = uptimeOf({ flips, status: check.status, createdAt: check.createdAt, now, unknown });
      return {
        check: {
          name: check.name === "" ? "(unnamed)" : check.name,
          status: statusAt(check, now),
          uptimePercent: uptime.percent,
          days: uptime.days,
          unknownMs: uptime.unknownMs,
          unknownDays: uptime.unknownDays,
          sinceAt: check.createdAt > firstDayAt ? check.createdAt : null,
          group,
        },
        incidents: uptime.incidents,
      };
    });
    const checks: StatusCheck[] = [];
    const incidents: StatusIncident[] = [];
    for (const item of shown) {
      if (item === null) continue;
      checks.push(item.check);
      for (const incident of item.incidents)
        incidents.push({ check: item.check.name, startedAt: incident.startedAt, endedAt: incident.endedAt });
    }
    incidents.sort((a, b) => b.startedAt - a.startedAt); // newest first
    return {
      title: page.title,
      description: page.description ?? "",
      logo: page.logo ?? null,
      at: now,
      firstDayAt,
      checks,
      incidents,
      unknown: [...unknown].reverse(),
    };
  }
}

/** The view as GET /status/<slug>.json answers it (CONTRACT "Status pages"). */
export function statusJson(view: StatusView): Record<string, unknown> {
  const overall = overallOf(view.checks.map((c) => c.status));
  return {
    title: view.title,
    // the page as a whole: "operational", "late" (some in grace), "partial_outage" or "major_outage" (every check down)
    overall: { status: overall.state, down: overall.down, late: overall.late, total: overall.total },
    ...(view.logo === null ? {} : { logo: view.logo }),
    checks: view.checks.map((c) => ({
      name: c.name,
      status: c.status,
      uptime_90d: c.uptimePercent,
      unknown_90d: Math.round(c.unknownMs / 1000),
      ...(c.group === null ? {} : { group: c.group }), // the heading it is shown under, when grouped
    })),
    incidents: view.incidents.map((i) => ({ check: i.check, started: isoSeconds(i.startedAt), ended: isoSeconds(i.endedAt) })),
    // hcd's own time away: the checks' status is not known then (neither up nor down)
    unknown: view.unknown.map((u) => ({ from: isoSeconds(u.fromAt), to: isoSeconds(u.toAt) })),
  };
}
