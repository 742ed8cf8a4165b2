// Sends the users' weekly and monthly email reports (CONTRACT "Alerting, third part") once each: every
// minute it looks for the reports due (host/report-claims.ts), claims each in the user's stored record
// before it sends it through SMTP_URL, and marks it done once the server accepted it. The claim and the
// mark are stored whole (a file on one node, compare-and-set in a cluster), so a restart resends nothing
// that was marked and loses nothing that was claimed; a failed send keeps its claim and is tried again.
import type { Millis } from "../engine/model.ts";
import type { Accounts } from "../host/accounts.ts";
import { log } from "../host/log.ts";
import type { Pool } from "../host/pool-api.ts";
import { claimed, completed, dueReport } from "../host/report-claims.ts";
import { downtimeByPeriod } from "../engine/downtime-periods.ts";
import { statusAt } from "../engine/status.ts";
import type { Period } from "../lib/utc-periods.ts";
import { lastEndedPeriod } from "../lib/utc-periods.ts";
import type { ReportProject } from "./reports.ts";
import { renderReport } from "./reports.ts";
import type { EmailMessage } from "./delivery.ts";
import type { SendResult } from "./delivery.ts";

export type ReportSchedulerOptions = {
  readonly accounts: Accounts;
  readonly pool: Pool;
  readonly now: () => Millis;
  /** Sends one email through SMTP_URL. */
  readonly send: (message: EmailMessage) => Promise<SendResult>;
  /** Names this node in its claims ("local" on a single node, NODE_ID in a cluster). */
  readonly node: string;
  readonly siteRoot: string;
  readonly siteName?: string;
  /** How often due reports are looked for (default a minute). */
  readonly everyMs?: number;
};

export class ReportScheduler {
  readonly #options: ReportSchedulerOptions;
  #timer: ReturnType<typeof setInterval> | null = null;
  #running: Promise<number> | null = null;

  constructor(options: ReportSchedulerOptions) {
    this.#options = options;
  }

  /** Looks for due reports now and then every `everyMs`. */
  start(): void {
    const run = () => {
      if (this.#running === null) void this.tick().catch((error: unknown) => log.error({ err: error }, "email reports: a round failed"));
    };
    this.#timer = setInterval(run, this.#options.everyMs ?? 60_000);
    this.#timer.unref();
    run();
  }

  /** Stops looking; resolves once a round under way has finished (a report being sent is sent and marked first). */
  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running?.catch(() => undefined);
  }

  /** Sends every report due now; resolves with how many were sent. One round at a time. */
  tick(): Promise<number> {
    if (this.#running !== null) return this.#running;
    const round = this.#round().finally(() => {
      this.#running = null;
    });
    this.#running = round;
    return round;
  }

  async #round(): Promise<number> {
    const { accounts, node } = this.#options;
    let sent = 0;
    for (const user of accounts.listUsers()) {
      const now = this.#options.now();
      const stored = accounts.storedUser(user.id);
      const period = stored === null ? null : dueReport(stored, now);
      if (stored === null || period === null || stored.reports === undefined) continue;
      // claimed on the newest record: another node's fresh claim, or a report done meanwhile, leaves it
      const mine = await accounts.updateUser(user.id, (u) =>
        dueReport(u, now)?.label === period.label ? claimed(u, period, node, now) : null,
      );
      if (mine === null || mine.reports === undefined) continue;
      const every = mine.reports.every;
      const periods = [lastEndedPeriod(every === "weekly" ? "week" : "month", period.startAt), period];
      const projects = await this.#projectsOf(user.id, periods, now);
      if (projects.every((project) => project.checks.length === 0)) {
        // nothing to report: done without a message
        await accounts.updateUser(user.id, (u) => completed(u, period));
        continue;
      }
      const message = renderReport({
        to: user.email,
        every,
        periods,
        projects,
        siteRoot: this.#options.siteRoot,
        siteName: this.#options.siteName ?? "hcd",
        messageId: `<report-${user.id}-${period.label}@${hostOf(this.#options.siteRoot)}>`,
      });
      const result = await this.#options.send(message);
      if (!result.ok) {
        log.warn({ user: user.id, period: period.label, error: result.error }, "email report not sent; tried again in the next round");
        continue;
      }
      await accounts.updateUser(user.id, (u) => completed(u, period));
      sent++;
    }
    return sent;
  }

  /** The user's projects with each check's status now and its figures in `periods` (null before it existed). */
  async #projectsOf(userId: string, periods: readonly Period[], now: Millis): Promise<ReportProject[]> {
    const { accounts, pool } = this.#options;
    const ids = new Set(accounts.membershipsOf(userId).map((m) => m.projectId));
    const projects: ReportProject[] = [];
    for (const project of pool.listProjects()) {
      if (!ids.has(project.id) || project.deletedAt !== undefined) continue;
      const unknown = await pool.unknownTime(project.id);
      const checks = [];
      for (const check of await pool.listChecks(project.id, { tags: [] })) {
        const flips = await pool.listFlips(project.id, { uuid: check.uuid }, { fromAt: periods[0].startAt });
        if (!flips.ok) continue;
        const figures = downtimeByPeriod({ flips: flips.value, status: check.status, createdAt: check.createdAt, now, periods, unknown });
        checks.push({
          name: check.name,
          status: statusAt(check, now),
          periods: figures.map((f, i) => (check.createdAt >= periods[i].endAt ? null : f)),
        });
      }
      projects.push({ name: project.name, checks });
    }
    return projects.sort((a, b) => a.name.localeCompare(b.name));
  }
}

/** The host of SITE_ROOT, for Message-IDs. */
function hostOf(siteRoot: string): string {
  try {
    return new URL(siteRoot).hostname || "localhost";
  } catch {
    return "localhost";
  }
}
