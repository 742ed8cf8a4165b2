// Fills a DATA_DIR with many checks straight through the Store (the fast way to a big store for the scale
// and startup benches). Projects of 1,000 checks; random uuids as the server makes them.
//   burst checks (the first `burst`, whole projects): "new", timeout 1 day, grace 1 hour (the defaults)
//   the rest: "up", pinged within the day before `at`, timeout 30 days, so no deadline falls due for weeks
import { randomUUID } from "node:crypto";
import type { Changes } from "../engine/changes.ts";
import type { Project } from "../engine/model.ts";
import { DAY } from "../engine/model.ts";
import { openStore } from "../persistence/store.ts";
import { check, project } from "../test/helpers.ts";
import type { Progress } from "./measure.ts";
import { msSince } from "./measure.ts";

export const CHECKS_PER_PROJECT = 1000;

/** What was written: every project, the ids of the burst projects, and how long the writes took. */
export type BulkStore = {
  readonly projects: readonly Project[];
  readonly burstProjectIds: readonly string[];
  readonly writeSeconds: number;
  /** Seconds spent writing the burst checks alone (the first ones written). */
  readonly burstWriteSeconds: number;
};

/** Writes `count` checks to a store in `dir` (created if missing), 100 per commit, 10,000 per event-loop turn. */
export async function writeBulkStore(
  dir: string,
  options: { count: number; burst: number; at: number; progress?: Progress },
): Promise<BulkStore> {
  const { count, burst, at } = options;
  const store = await openStore(dir, { durability: "commit" });
  const projects: Project[] = [];
  const burstProjectIds: string[] = [];
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const started = process.hrtime.bigint();
  let burstWriteSeconds = 0;
  try {
    for (let first = 0; first < count; first += 10 * CHECKS_PER_PROJECT) {
      const commits: Promise<void>[] = [];
      for (let p = first; p < Math.min(count, first + 10 * CHECKS_PER_PROJECT); p += CHECKS_PER_PROJECT) {
        const inBurst = p < burst;
        const owner = project({
          id: randomUUID(),
          name: `bulk ${p / CHECKS_PER_PROJECT}`,
          badgeKey: randomUUID(),
          checkLimit: CHECKS_PER_PROJECT * 2,
          createdAt: at,
        });
        projects.push(owner);
        if (inBurst) burstProjectIds.push(owner.id);
        const checks = Array.from({ length: Math.min(CHECKS_PER_PROJECT, count - p) }, (_, i) =>
          check({
            uuid: randomUUID(),
            badgeKey: randomUUID(),
            projectId: owner.id,
            name: `nightly backup ${p + i}`,
            tags: "prod backup",
            createdAt: at - DAY,
            ...(inBurst ? {} : { status: "up", nPings: 1, nFlips: 1, timeoutMs: 30 * DAY, lastPingAt: at - Math.floor(random() * DAY) }),
          }),
        );
        // commits of 100 checks: the journal's checkpoint merges 256 commits, and at 54d2d46 a merge of more
        // than ~100,000 checks overflows the stack (mergeChanges: push(...checks.values()))
        for (let c = 0; c < checks.length; c += 100) {
          commits.push(store.commit({ ...noChanges(), projects: c === 0 ? [owner] : [], checks: checks.slice(c, c + 100) }));
        }
      }
      await Promise.all(commits);
      const done = Math.min(count, first + 10 * CHECKS_PER_PROJECT);
      if (burstWriteSeconds === 0 && burst > 0 && done >= burst) burstWriteSeconds = (msSince(started) / 1000) * (burst / done); // pro rata within the last turn
      options.progress?.update(Math.min(count, first + 10 * CHECKS_PER_PROJECT), count, "checks written through Store.commit");
    }
  } finally {
    await store.close();
  }
  return { projects, burstProjectIds, writeSeconds: msSince(started) / 1000, burstWriteSeconds };
}

/** Returns the uuid of one check in the store at `dir` (read-only; the store must have one). */
export async function anyCheckUuid(dir: string): Promise<string> {
  const store = await openStore(dir, { durability: "commit", readOnly: true });
  try {
    for (const owner of store.loadProjects()) {
      const [first] = store.loadChecks(owner.id);
      if (first !== undefined) return first.uuid;
    }
    throw new Error(`no check in the store at ${dir}`);
  } finally {
    await store.close();
  }
}

/** Returns how many checks the store at `dir` holds (read-only). */
export async function countChecks(dir: string): Promise<number> {
  const store = await openStore(dir, { durability: "commit", readOnly: true });
  try {
    return store.loadProjects().reduce((n, owner) => n + store.loadChecks(owner.id).length, 0);
  } finally {
    await store.close();
  }
}

function noChanges(): Changes {
  return { projects: [], channels: [], checks: [], deletedChecks: [], pings: [], flips: [], outbox: [] };
}
