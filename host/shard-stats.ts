// What a shard counts for /metrics. Kept in the shard's thread as plain numbers and handed to the main
// thread only when /metrics is scraped (one message per shard per scrape, never one per ping).
import { getHeapStatistics } from "node:v8";
import { maintenanceEndAt } from "../engine/maintenance.ts";
import type { Check, Flip, Millis, Project } from "../engine/model.ts";

/** A fixed-bucket histogram: cumulative counts per upper bound, their sum and count. */
export type HistogramData = { readonly bounds: readonly number[]; readonly counts: number[]; sum: number; count: number };

/** Returns an empty histogram with these upper bounds (the last bucket, +Inf, is `count`). */
export function histogram(bounds: readonly number[]): HistogramData {
  return { bounds, counts: bounds.map(() => 0), sum: 0, count: 0 };
}

/** Records one value (a handful of comparisons: cheap enough for every commit). */
export function observe(h: HistogramData, value: number): void {
  for (let i = 0; i < h.bounds.length; i++) if (value <= h.bounds[i]) h.counts[i]++;
  h.sum += value;
  h.count++;
}

// seconds: a commit waits for one disk sync, 1-50 ms usually
export const COMMIT_SECONDS_BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
export const GROUP_SIZE_BOUNDS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500];
export const CHECKPOINT_SECONDS_BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The counters of one shard, since it started. */
export type ShardCounters = {
  /** flips by the status they went to */
  readonly flips: Record<string, number>;
  /** down flips of a run that outlived the check's max_duration (flip reason "duration") */
  runTooLong: number;
  /** notification attempts by channel kind and result ("sent", "failed", "given_up") */
  readonly notifications: Record<string, number>; // key: `${kind}\t${result}`
  readonly commitSeconds: HistogramData;
  /** pings per commit */
  readonly groupSize: HistogramData;
  readonly checkpointSeconds: HistogramData;
  commitFailures: number;
  /** rebuilds of the shard from the store (after a failed commit) that failed; each probe retries */
  rebuildFailures: number;
  /** checkpoints that failed (the next one retries what they took) */
  checkpointFailures: number;
  /** probe writes that failed while commits were refused (the next probe tries again) */
  probeFailures: number;
};

export function newShardCounters(): ShardCounters {
  return {
    flips: {},
    runTooLong: 0,
    notifications: {},
    commitFailures: 0,
    rebuildFailures: 0,
    checkpointFailures: 0,
    probeFailures: 0,
    commitSeconds: histogram(COMMIT_SECONDS_BOUNDS),
    groupSize: histogram(GROUP_SIZE_BOUNDS),
    checkpointSeconds: histogram(CHECKPOINT_SECONDS_BOUNDS),
  };
}

/** One shard's counters plus what is read at scrape time. */
export type ShardStats = ShardCounters & {
  /** checks by the status the API shows now (new, up, grace, down, paused) */
  readonly checks: Record<string, number>;
  /** checks whose outage is acknowledged, whose notices a down dependency holds; projects a maintenance window mutes now */
  readonly alerting: AlertingFigures;
  readonly outboxPending: number;
  readonly outboxGivenUp: number;
  /** commits journaled and not yet applied to the tables */
  readonly journalPending: number;
  /** the shard thread's V8 heap (its own isolate's, not the process's) */
  readonly heap: HeapFigures;
};

/** What alerting holds back at one instant (CONTRACT "Alerting, second part"). */
export type AlertingFigures = { readonly acknowledged: number; readonly held: number; readonly projectsInMaintenance: number };

/** Bytes of one thread's V8 heap: used by objects (live and not yet collected), reserved, and held outside it (buffers). */
export type HeapFigures = { readonly usedBytes: number; readonly totalBytes: number; readonly externalBytes: number };

/** Returns the heap figures of the calling thread's isolate. */
export function heapFigures(): HeapFigures {
  const heap = getHeapStatistics();
  return { usedBytes: heap.used_heap_size, totalBytes: heap.total_heap_size, externalBytes: heap.external_memory };
}

/** Counts a committed flip: by the status it went to, and a run-time limit's down apart. */
export function countFlip(counters: ShardCounters, flip: Flip): void {
  counters.flips[flip.to] = (counters.flips[flip.to] ?? 0) + 1;
  if (flip.to === "down" && flip.reason === "duration") counters.runTooLong++;
}

/** Adds what alerting holds back in one project at `at` to `into`: its acknowledged and held checks, and whether a window mutes it. */
export function addAlertingFigures(
  into: { acknowledged: number; held: number; projectsInMaintenance: number },
  project: Project,
  checks: readonly Check[],
  at: Millis,
): void {
  if (project.maintenance !== undefined && maintenanceEndAt(project.maintenance, at) !== null) into.projectsInMaintenance++;
  for (const check of checks) {
    if (check.alert?.acknowledged !== undefined) into.acknowledged++;
    if (check.alert?.heldBy !== undefined) into.held++;
  }
}
