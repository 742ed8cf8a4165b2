// hcd's own operational metrics for GET /metrics (CONTRACT.md "Metrics"), with prom-client.
// What the main thread sees (pings, API requests, inbound mail) is counted here as it happens, in
// plain numbers (a map update and a histogram's few comparisons per ping). What the shards see (flips,
// commits, notifications, checks by status, the outbox) stays in their threads and is read once per
// scrape with one pool call: nothing crosses threads per ping.
import { collectDefaultMetrics, Counter, Registry } from "prom-client";
import type { Clock } from "../host/clock.ts";
import type { BackgroundWork, EpisodeCounts, FailureEpisodes } from "../host/failure-episodes.ts";
import { BACKGROUND_WORK } from "../host/failure-episodes.ts";
import type { Pool, PoolStats } from "../host/pool-api.ts";
import type { HistogramData } from "../host/shard-stats.ts";
import { histogram, observe } from "../host/shard-stats.ts";
import type { Downtime } from "../engine/model.ts";
import { DAY } from "../engine/model.ts";
import { UPTIME_DAYS, unknownWithin } from "./status/uptime.ts";

export type Metrics = {
  /** A ping was answered: its URL path, the answer's status and the seconds since the request arrived. */
  observePing(pathname: string, status: number, seconds: number): void;
  /** Any other HTTP request was answered. */
  observeRequest(pathname: string, status: number): void;
  /** An inbound mail was accepted (stored as pings) or refused. */
  observeSmtp(result: "accepted" | "refused"): void;
  /** Returns the exposition in the Prometheus text format. */
  exposition(): Promise<{ contentType: string; body: string }>;
};

const EVENT_LOOP_SAMPLE_MS = 100;
const LATENCY_BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const PING_KINDS = ["success", "start", "fail", "log"] as const;
const PING_OUTCOMES = ["ok", "created", "bad_request", "not_found", "ambiguous", "error"] as const;
const OUTCOME_OF_STATUS: Readonly<Record<number, number>> = { 200: 0, 201: 1, 400: 2, 404: 3, 409: 4 }; // else 5, "error"

/**
 * Returns the metrics of a server whose shards are `pool`; starts the process and Node.js collectors.
 * `background`: a cluster node's failed snapshots, advances and ownership rounds.
 */
export function createMetrics(pool: Pool, clock: Clock, background?: FailureEpisodes): Metrics {
  const registry = new Registry();
  // the event loop's delay sampled every 100 ms, not every 10 (prom-client's default): each sample wakes
  // the HTTP thread, and at 100 a second those wake-ups were most of an idle server's CPU (measured:
  // 8.5-9 ms a second, 1.5 now); a stall longer than 100 ms still always holds a sample
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  // gauges named *_total break Prometheus's naming rules (promtool check metrics refuses them); their
  // per-type forms (nodejs_active_handles{type}, ...) stay
  for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"])
    registry.removeSingleMetric(name);
  // pings are counted in plain numbers (prom-client's counter and histogram cost about 1 us a ping, measured)
  const pingCounts = new Float64Array(PING_KINDS.length * PING_OUTCOMES.length); // [kind * outcomes + outcome]
  const pingSeconds = histogram(LATENCY_BOUNDS);
  const requests = new Counter({
    name: "hcd_http_requests_total",
    help: "HTTP requests other than pings, by route and status.",
    labelNames: ["route", "status"],
    registers: [registry],
  });
  const smtp = new Counter({
    name: "hcd_smtp_messages_total",
    help: "Inbound mail messages and recipients, by result (accepted, refused).",
    labelNames: ["result"],
    registers: [registry],
  });
  const requestChildren = new Map<string, Counter.Internal>();

  let stats: PoolStats = { shards: [], queued: [] }; // set at the start of each scrape, read by the families below
  let unknown: readonly Downtime[] = []; // likewise: the stretches hcd did not watch
  const sum = (pick: (s: PoolStats["shards"][number]) => number) => stats.shards.reduce((total, s) => total + pick(s), 0);
  const byKey = (pick: (s: PoolStats["shards"][number]) => Record<string, number>) => {
    const totals = new Map<string, number>();
    for (const shard of stats.shards) for (const [key, n] of Object.entries(pick(shard))) totals.set(key, (totals.get(key) ?? 0) + n);
    return totals;
  };
  const fromShards = [
    family("hcd_pings_total", "Pings answered, by kind (success, start, fail, log) and outcome.", "counter", () =>
      PING_KINDS.flatMap((kind, k) =>
        PING_OUTCOMES.map((outcome, o) => ({ labels: { kind, outcome }, value: pingCounts[k * PING_OUTCOMES.length + o] })),
      ).filter((sample) => sample.value > 0),
    ),
    histogramFamily("hcd_ping_duration_seconds", "Seconds from a ping's arrival to its answer (once it is durable).", () => [pingSeconds]),
    family("hcd_checks", "Checks by the status the API shows now.", "gauge", () =>
      [...byKey((s) => s.checks)].map(([status, value]) => ({ labels: { status }, value })),
    ),
    family("hcd_flips_total", "Status changes committed, by the status changed to.", "counter", () =>
      [...byKey((s) => s.flips)].map(([to, value]) => ({ labels: { to }, value })),
    ),
    family("hcd_notifications_total", "Notification attempts by channel kind and result (sent, failed, given_up).", "counter", () =>
      [...byKey((s) => s.notifications)].map(([key, value]) => {
        const [kind, result] = key.split("\t");
        return { labels: { kind, result }, value };
      }),
    ),
    // CONTRACT "Alerting, second part": what alerting holds back now, and the runs that took too long
    family("hcd_checks_acknowledged", "Checks whose current outage is acknowledged (no reminders until they go up).", "gauge", () => [
      { value: sum((s) => s.alerting.acknowledged) },
    ]),
    family("hcd_checks_held", "Checks whose notifications a down dependency holds (depends_on).", "gauge", () => [
      { value: sum((s) => s.alerting.held) },
    ]),
    family("hcd_projects_in_maintenance", "Projects a recurring maintenance window mutes now.", "gauge", () => [
      { value: sum((s) => s.alerting.projectsInMaintenance) },
    ]),
    family("hcd_run_too_long_total", "Down changes of a run that outlived its check's max_duration.", "counter", () => [
      { value: sum((s) => s.runTooLong) },
    ]),
    family(
      "hcd_unknown_time_seconds",
      "Seconds of the last 90 days in which hcd did not watch checks (not running, or a cluster partition without an owner): their status then is unknown, neither up nor down.",
      "gauge",
      () => [{ value: Math.round(unknownWithin(clock.now() - UPTIME_DAYS * DAY, clock.now(), unknown) / 1000) }],
    ),
    family("hcd_unknown_time_stretches", "Stretches of the last 90 days in which hcd did not watch checks.", "gauge", () => [
      { value: unknown.filter((u) => u.toAt > clock.now() - UPTIME_DAYS * DAY).length },
    ]),
    family("hcd_outbox_pending", "Notifications waiting to be delivered.", "gauge", () => [{ value: sum((s) => s.outboxPending) }]),
    family("hcd_outbox_given_up", "Notifications given up and kept in the outbox.", "gauge", () => [
      { value: sum((s) => s.outboxGivenUp) },
    ]),
    family("hcd_journal_pending_commits", "Commits in the command log not yet applied to the tables.", "gauge", () => [
      { value: sum((s) => s.journalPending) },
    ]),
    family("hcd_commit_failures_total", "Commits that failed (the request was answered with an error).", "counter", () => [
      { value: sum((s) => s.commitFailures) },
    ]),
    family(
      "hcd_checkpoint_failures_total",
      "Checkpoints that failed (retried by the next one; the log keeps what they took).",
      "counter",
      () => [{ value: sum((s) => s.checkpointFailures) }],
    ),
    family(
      "hcd_write_probe_failures_total",
      "Probe writes that failed while commits were refused (retried every second until one succeeds).",
      "counter",
      () => [{ value: sum((s) => s.probeFailures) }],
    ),
    family(
      "hcd_rebuild_failures_total",
      "Rebuilds of a shard from the store after a failed commit that failed too (retried until one succeeds).",
      "counter",
      () => [{ value: sum((s) => s.rebuildFailures) }],
    ),
    family("hcd_shard_queue_depth", "Pings waiting for their shard's batch in flight, by shard.", "gauge", () =>
      stats.queued.map((value, shard) => ({ labels: { shard: String(shard) }, value })),
    ),
    family(
      "hcd_shard_heap_bytes",
      "Each shard thread's own V8 heap (the nodejs_heap_* metrics cover the main thread only): used, reserved (total) and held outside it (external).",
      "gauge",
      () =>
        stats.shards.flatMap((s, shard) => [
          { labels: { shard: String(shard), kind: "used" }, value: s.heap.usedBytes },
          { labels: { shard: String(shard), kind: "total" }, value: s.heap.totalBytes },
          { labels: { shard: String(shard), kind: "external" }, value: s.heap.externalBytes },
        ]),
    ),
    histogramFamily("hcd_commit_duration_seconds", "Seconds a shard's commit took to become durable.", () =>
      stats.shards.map((s) => s.commitSeconds),
    ),
    histogramFamily(
      "hcd_commit_group_size",
      "Pings a shard took at once: one commit of a group, or one hand-off of pings acknowledged from the intake log.",
      () => stats.shards.map((s) => s.groupSize),
    ),
    histogramFamily("hcd_checkpoint_duration_seconds", "Seconds a checkpoint took to apply logged commits to the tables.", () =>
      stats.shards.map((s) => s.checkpointSeconds),
    ),
  ];
  const episodes = (pick: (counts: EpisodeCounts[BackgroundWork]) => number) => () => {
    const counts = background?.counts();
    return counts === undefined ? [] : BACKGROUND_WORK.map((work) => ({ labels: { work }, value: pick(counts[work]) }));
  };
  const fromCluster =
    background === undefined
      ? []
      : [
          family(
            "hcd_cluster_background_failures_total",
            "A cluster node's failed takeovers, snapshots, advances and ownership rounds, by work.",
            "counter",
            episodes((c) => c.failures),
          ),
          family(
            "hcd_cluster_background_failing",
            "Partitions (or this node's ownership rounds) whose last attempt at the work failed, by work.",
            "gauge",
            episodes((c) => c.failing),
          ),
          family(
            "hcd_cluster_background_failure_streak",
            "The most failures in a row of the work on one partition (or of the ownership rounds), by work.",
            "gauge",
            episodes((c) => c.streak),
          ),
        ];
  for (const metric of [...fromShards, ...fromCluster]) registry.registerMetric(metric as never);

  let scraping: Promise<unknown> = Promise.resolve(); // one scrape at a time: they share `stats`
  return {
    observePing(pathname, status, seconds) {
      pingCounts[pingKindOf(pathname) * PING_OUTCOMES.length + (OUTCOME_OF_STATUS[status] ?? 5)]++;
      observe(pingSeconds, seconds);
    },
    observeRequest(pathname, status) {
      const route = routeOf(pathname);
      const key = `${route} ${status}`;
      let child = requestChildren.get(key);
      if (child === undefined) {
        child = requests.labels({ route, status: String(status) });
        requestChildren.set(key, child);
      }
      child.inc();
    },
    observeSmtp(result) {
      smtp.inc({ result });
    },
    exposition() {
      const run = scraping.then(async () => {
        stats = await pool.stats(clock.now());
        unknown = await pool.unknownTime(null);
        return { contentType: registry.contentType, body: await registry.metrics() };
      });
      scraping = run.catch(() => undefined);
      return run;
    },
  };
}

type Sample = { readonly labels?: Record<string, string>; readonly value: number; readonly metricName?: string };

/** A metric whose samples are computed at scrape time (prom-client reads `get()`). */
function family(name: string, help: string, type: "gauge" | "counter", samples: () => Sample[]) {
  return { name, help, type, aggregator: "sum", get: async () => ({ name, help, type, aggregator: "sum", values: samples() }) };
}

/** A histogram merged from the shards' fixed-bucket histograms (same bounds in every shard). */
function histogramFamily(name: string, help: string, parts: () => HistogramData[]) {
  return family(name, help, "histogram" as "gauge", () => {
    const list = parts();
    if (list.length === 0) return [];
    const bounds = list[0].bounds;
    const samples: Sample[] = bounds.map((bound, i) => ({
      metricName: `${name}_bucket`,
      labels: { le: String(bound) },
      value: list.reduce((total, h) => total + h.counts[i], 0),
    }));
    const count = list.reduce((total, h) => total + h.count, 0);
    samples.push({ metricName: `${name}_bucket`, labels: { le: "+Inf" }, value: count });
    samples.push({ metricName: `${name}_sum`, value: list.reduce((total, h) => total + h.sum, 0) });
    samples.push({ metricName: `${name}_count`, value: count });
    return samples;
  });
}

/** Returns what a ping path signals, as an index of PING_KINDS: start, fail, log, or success (an exit status > 0 is a fail). */
export function pingKindOf(pathname: string): number {
  const last = pathname.slice(pathname.lastIndexOf("/") + 1);
  if (last === "start") return 1;
  if (last === "fail") return 2;
  if (last === "log") return 3;
  if (last.length > 0 && last.length <= 3 && /^[0-9]+$/.test(last)) return Number(last) === 0 ? 0 : 2;
  return 0;
}

// Words that may appear as path segments in a route label. Anything else (ids, keys, slugs, typos) is
// replaced, so untrusted paths cannot grow the number of series.
const ROUTE_WORDS = new Set([
  "api",
  "v1",
  "v2",
  "v3",
  "checks",
  "pause",
  "resume",
  "pings",
  "flips",
  "body",
  "channels",
  "badges",
  "status",
  "simulate",
  "admin",
  "projects",
  "outbox",
  "clock",
  "prune",
  "backup",
  "mute",
  "metrics",
  "badge",
  "b",
  "ping",
  "",
]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Returns a request path as a route label: ids as :id, numbers as :n, other unknown segments as :key (at most 7 segments). */
export function routeOf(pathname: string): string {
  const segments = pathname.split("/").slice(1);
  if (segments.length > 7) return "other";
  return "/" + segments.map((s) => (ROUTE_WORDS.has(s) ? s : UUID.test(s) ? ":id" : /^[0-9]+$/.test(s) ? ":n" : ":key")).join("/");
}
