// One process holding HCD_BENCH_SCALE checks (default 1,000,000), 1,000 per project:
//   write    the checks straight through Store.commit (the bulk path; bench/bulk-store.ts)
//   memory   open an in-process pool on them: RSS after load minus RSS before, per check (after a full GC)
//   restore  open the worker pool (SHARDS workers, as `npm start` does) on the same DATA_DIR, in a fresh
//            process as a server starts (bench/restore-process.ts; its time and memory are the figures),
//            then in this process; next to it the floor: reading and decoding every check through the
//            Store alone, in this thread
//   burst    "top of the hour": ping 10% of the checks (at most 100,000) at the same virtual instant, so
//            their deadlines fall due in the same millisecond, then advance the virtual clock past it and
//            time until every flip is committed (DURABILITY=flush)
//   size     data.mdb on disk per check, and its growth per ping
// Needs --expose-gc (re-runs itself with it). Run: node dist/bench/scale.bench.js
// Env: HCD_BENCH_SCALE=1000000; HCD_BENCH_STORE_DIR=<dir> keeps the store there (the startup bench reuses it).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DAY, HOUR } from "../engine/model.ts";
import { createInProcessPool, createWorkerPool } from "../app/pools.ts";
import type { PoolOptions } from "../app/pools.ts";
import type { Pool } from "../host/pool-api.ts";
import type { HeapFigures } from "../host/shard-stats.ts";
import { openStore } from "../persistence/store.ts";
import { writeBulkStore } from "./bulk-store.ts";
import { collectGarbage, diskBytesOf, memoryOf, msSince, Progress } from "./measure.ts";
import type { Memory } from "./measure.ts";
import { finishScenario, fmt } from "./report.ts";
import type { Figure, ScenarioResult } from "./report.ts";
import type { RestoreReport } from "./restore-process.ts";
import { pingOf } from "./scenarios.ts";

const SCENARIO = "scale";
const RESTORE_PROCESS = fileURLToPath(new URL("./restore-process.js", import.meta.url));
const KIB = 1024,
  MIB = 1024 * 1024;

/** Returns the check count to bench: HCD_BENCH_SCALE (default 1,000,000). */
export function benchScale(): number {
  const scale = Number(process.env.HCD_BENCH_SCALE ?? 1_000_000);
  if (!Number.isInteger(scale) || scale < 1000)
    throw new Error(`HCD_BENCH_SCALE=${process.env.HCD_BENCH_SCALE}: expected an integer ≥ 1000`);
  return scale;
}

/** Returns a worker's heap growth over an empty worker's, per check of its shard: "used / reserved / outside B". */
function heapPerCheck(loaded: HeapFigures, empty: HeapFigures, checks: number): string {
  const per = (key: keyof HeapFigures) => fmt((loaded[key] - empty[key]) / checks);
  return `${per("usedBytes")} / ${per("totalBytes")} / ${per("externalBytes")} B`;
}

/** Runs the scale bench; keeps the store in `keepDir` when given. Returns its figures and detail lines. */
export async function runScaleBench(options: { checks?: number; keepDir?: string } = {}): Promise<ScenarioResult> {
  const count = options.checks ?? benchScale();
  const burst = Math.min(100_000, Math.floor(count / 10 / 1000) * 1000) || 1000;
  const shards = availableParallelism();
  const dir = options.keepDir ?? mkdtempSync(join(tmpdir(), "hcd-bench-scale-"));
  const progress = new Progress(SCENARIO);
  const at = Math.floor(Date.now() / 1000) * 1000; // the virtual clock starts at the real now, so the store suits a real-clock server later
  const poolOptions = (): PoolOptions => ({
    dataDir: dir,
    shards,
    durability: "flush",
    clock: "virtual",
    startAt: at,
    notify: { siteRoot: "http://localhost", allowPrivateIps: false, smtpUrl: null },
  });
  try {
    if (!collectGarbage()) throw new Error("scale bench: run node with --expose-gc");
    // what a worker pool costs with no checks at all (threads, isolates, modules): the fixed part of its figure
    const emptyDir = mkdtempSync(join(tmpdir(), "hcd-bench-scale-empty-"));
    let emptyBefore: Memory, emptyLoaded: Memory, emptyHeaps: HeapFigures[];
    try {
      emptyBefore = memoryOf();
      const empty = await createWorkerPool({ ...poolOptions(), dataDir: emptyDir });
      emptyLoaded = memoryOf();
      emptyHeaps = (await empty.stats(at)).shards.map((s) => s.heap);
      await empty.close();
    } finally {
      rmSync(emptyDir, { recursive: true, force: true });
    }
    collectGarbage();
    const before = memoryOf();
    const heapBefore = process.memoryUsage().heapUsed;

    // write
    const written = await writeBulkStore(dir, { count, burst, at, progress });
    progress.done();
    const storeBytes = diskBytesOf(dir);

    // memory: in-process pool (every shard in this thread, so this process's RSS is all of it)
    progress.update(1, 5, "opening an in-process pool (memory)", true);
    let started = process.hrtime.bigint();
    let pool: Pool = await createInProcessPool(poolOptions());
    const inProcessRestoreSeconds = msSince(started) / 1000;
    collectGarbage();
    const loaded = memoryOf();
    const heapLoaded = process.memoryUsage().heapUsed;
    await pool.close();
    collectGarbage();

    // restore floor: the Store alone, this thread
    progress.update(2, 5, "reading every check through the Store (floor)", true);
    started = process.hrtime.bigint();
    const reader = await openStore(dir, { durability: "commit", readOnly: true });
    let read = 0;
    for (const owner of reader.loadProjects()) read += reader.loadChecks(owner.id).length;
    await reader.close();
    const floorSeconds = msSince(started) / 1000;
    if (read !== count) throw new Error(`scale bench: the store holds ${read} checks, not ${count}`);
    collectGarbage();

    // restore: the worker pool, as the server starts it (a fresh process)
    progress.update(3, 5, `opening the worker pool (${shards} shards) in a fresh process`, true);
    const fresh = JSON.parse(
      execFileSync(process.execPath, [RESTORE_PROCESS, dir, String(shards), String(at)], { encoding: "utf8" }),
    ) as RestoreReport;

    // and in this process, beside what the bench did before (its heap figures and the burst below)
    progress.update(3, 5, `opening the worker pool (${shards} shards)`, true);
    const workersBefore = memoryOf();
    const mainBefore = process.memoryUsage();
    started = process.hrtime.bigint();
    pool = await createWorkerPool(poolOptions());
    const restoreSeconds = msSince(started) / 1000;
    const workersLoaded = memoryOf();
    const mainLoaded = process.memoryUsage();
    const workerHeaps = (await pool.stats(at)).shards.map((s) => s.heap);

    // burst: every burst check pinged at the same instant, then one advance past their shared deadline
    const burstUuids: string[] = [];
    const burstProjects = new Map<string, string>(); // check uuid → project id, as an edge resolves it
    for (const projectId of written.burstProjectIds) {
      for (const check of await pool.listChecks(projectId, { tags: [] })) {
        burstUuids.push(check.uuid);
        burstProjects.set(check.uuid, projectId);
      }
    }
    const pingAt = at + 1000;
    const dueAt = pingAt + DAY + HOUR; // the default timeout and grace
    const bytesBeforePings = diskBytesOf(dir);
    started = process.hrtime.bigint();
    for (let i = 0; i < burstUuids.length; i += 10_000) {
      progress.update(i, burstUuids.length, "burst checks pinged at one instant", true);
      const results = await Promise.all(
        burstUuids.slice(i, i + 10_000).map((uuid) => pool.ping(burstProjects.get(uuid) ?? "", pingOf({ uuid }, pingAt))),
      );
      if (results.some((r) => !r.ok)) throw new Error("scale bench: a burst ping failed");
    }
    const pingSeconds = msSince(started) / 1000;
    const bytesPerPing = (diskBytesOf(dir) - bytesBeforePings) / burstUuids.length;
    progress.update(4, 5, `advancing the clock past ${fmt(burstUuids.length)} deadlines`, true);
    await pool.advance(dueAt - 1); // nothing due yet: this advance only moves the wheels
    started = process.hrtime.bigint();
    await pool.advance(dueAt);
    const burstSeconds = msSince(started) / 1000;
    let down = 0;
    for (const projectId of written.burstProjectIds)
      down += (await pool.listChecks(projectId, { tags: [] })).filter((c) => c.status === "down").length;
    if (down !== burstUuids.length) throw new Error(`scale bench: ${down} of ${burstUuids.length} burst checks are down after the advance`);
    const flips = await pool.listFlips(written.burstProjectIds[0], { uuid: burstUuids[0] }, {});
    if (!flips.ok || flips.value[0]?.to !== "down" || flips.value[0]?.at !== dueAt)
      throw new Error("scale bench: the burst flip was not stored at its deadline");
    progress.update(5, 5, "closing the worker pool", true);
    started = process.hrtime.bigint();
    await pool.close();
    const closeSeconds = msSince(started) / 1000;
    progress.done();

    const perCheck = (a: Memory, b: Memory, key: keyof Memory) => (b[key] - a[key]) / count;
    const details = [
      `${fmt(count)} checks in ${fmt(written.projects.length)} projects of 1,000 (random uuids; ${fmt(count - burst)} "up" with deadlines weeks away, ` +
        `${fmt(burst)} "new" for the burst). Pools: ${shards} shards, DURABILITY=flush, virtual clock. No notification channels (a flip writes no outbox entry).`,
      "",
      "| step | figure |",
      "|---|---|",
      `| write through Store.commit (100 checks a commit, 100 commits a turn, durability commit) | ${written.writeSeconds.toFixed(1)} s (${fmt(count / written.writeSeconds)} checks/s) |`,
      `| data.mdb after the write | ${fmt(storeBytes / MIB)} MiB (${fmt(storeBytes / count)} B per check) |`,
      `| in-process pool open (${shards} shards in one thread) | ${inProcessRestoreSeconds.toFixed(1)} s |`,
      `| RSS after load − before, per check (total / anonymous / file-backed) | ${fmt(perCheck(before, loaded, "rss"))} / ${fmt(perCheck(before, loaded, "anon"))} / ${fmt(perCheck(before, loaded, "file"))} B |`,
      `| JS heap used after load − before, per check | ${fmt((heapLoaded - heapBefore) / count)} B |`,
      `| RSS of this process: before / loaded (in-process pool) | ${fmt(before.rss / MIB)} / ${fmt(loaded.rss / MIB)} MiB |`,
      `| read + decode every check through the Store alone (restore floor) | ${floorSeconds.toFixed(1)} s |`,
      `| worker pool open in a fresh process, as a server starts (restore, ${shards} workers) | ${fresh.seconds.toFixed(1)} s |`,
      `| RSS growth of that process with the worker pool open (no GC forced), per check (total / anonymous / file-backed) | ` +
        `${fmt(perCheck(fresh.before, fresh.loaded, "rss"))} / ${fmt(perCheck(fresh.before, fresh.loaded, "anon"))} / ${fmt(perCheck(fresh.before, fresh.loaded, "file"))} B |`,
      `| worker pool open in this process (after its in-process pool was opened and closed) | ${restoreSeconds.toFixed(1)} s |`,
      `| RSS growth of this process with the worker pool open (no GC forced in the workers), per check (total / anonymous / file-backed) | ` +
        `${fmt(perCheck(workersBefore, workersLoaded, "rss"))} / ${fmt(perCheck(workersBefore, workersLoaded, "anon"))} / ${fmt(perCheck(workersBefore, workersLoaded, "file"))} B |`,
      `| the same for a worker pool on an empty store (its fixed part: threads, isolates, modules) | ` +
        `${fmt((emptyLoaded.rss - emptyBefore.rss) / MIB)} / ${fmt((emptyLoaded.anon - emptyBefore.anon) / MIB)} / ${fmt((emptyLoaded.file - emptyBefore.file) / MIB)} MiB ` +
        `(${fmt((emptyLoaded.rss - emptyBefore.rss) / count)} B per check at this scale) |`,
      `| each worker's JS heap, used / reserved / outside (buffers), per check of its shard ` +
        `(minus an empty worker's) | ${workerHeaps.map((h, i) => heapPerCheck(h, emptyHeaps[i], count / shards)).join("; ")} |`,
      `| an empty worker's JS heap, used / reserved / outside | ${emptyHeaps.map((h) => `${fmt(h.usedBytes / MIB)} / ${fmt(h.totalBytes / MIB)} / ${fmt(h.externalBytes / MIB)} MiB`).join("; ")} |`,
      `| main thread with the worker pool open (no GC forced), JS heap used / array buffers, minus before, per check | ` +
        `${fmt((mainLoaded.heapUsed - mainBefore.heapUsed) / count)} / ${fmt((mainLoaded.arrayBuffers - mainBefore.arrayBuffers) / count)} B |`,
      `| ${fmt(burstUuids.length)} pings at one instant, 10,000 in flight | ${pingSeconds.toFixed(1)} s (${fmt(burstUuids.length / pingSeconds)} pings/s) |`,
      `| data.mdb growth per ping (ping record + updated check) | ${fmt(bytesPerPing)} B |`,
      `| advance past ${fmt(burstUuids.length)} deadlines due in the same ms, until every flip is committed | ${(burstSeconds * 1000).toFixed(0)} ms |`,
      `| worker pool close | ${closeSeconds.toFixed(1)} s |`,
    ];
    const figures: Figure[] = [
      {
        scenario: SCENARIO,
        figure: `anonymous RSS per check, ${fmt(count)} checks (in-process pool)`,
        value: perCheck(before, loaded, "anon"),
        unit: "B",
        target: { op: "<=", value: KIB, on: "value" },
      },
      { scenario: SCENARIO, figure: "total RSS per check incl. mmapped store pages", value: perCheck(before, loaded, "rss"), unit: "B" },
      {
        scenario: SCENARIO,
        figure: `RSS growth per check, ${fmt(count)} checks, worker pool (the server's, a fresh process)`,
        value: perCheck(fresh.before, fresh.loaded, "rss"),
        unit: "B",
        target: { op: "<=", value: KIB, on: "value" },
      },
      {
        scenario: SCENARIO,
        figure: "anonymous RSS growth per check, worker pool",
        value: perCheck(fresh.before, fresh.loaded, "anon"),
        unit: "B",
      },
      {
        scenario: SCENARIO,
        figure: "file-backed RSS growth per check (mmapped store pages), worker pool",
        value: perCheck(fresh.before, fresh.loaded, "file"),
        unit: "B",
      },
      {
        scenario: SCENARIO,
        figure: "RSS growth per check, worker pool opened in the bench's process",
        value: perCheck(workersBefore, workersLoaded, "rss"),
        unit: "B",
      },
      { scenario: SCENARIO, figure: `write ${fmt(count)} checks (Store.commit)`, value: written.writeSeconds, unit: "s" },
      {
        scenario: SCENARIO,
        figure: `restore ${fmt(count)} checks (worker pool open, a fresh process)`,
        value: fresh.seconds,
        unit: "s",
        baseline: { value: floorSeconds, label: "Store read + decode alone" },
        target: { op: "<=", value: 10, on: "value" },
      },
      {
        scenario: SCENARIO,
        figure: `restore ${fmt(count)} checks (worker pool opened in the bench's process)`,
        value: restoreSeconds,
        unit: "s",
      },
      {
        scenario: SCENARIO,
        figure: `top of the hour: ${fmt(burstUuids.length)} flips due in one second, until written`,
        value: burstSeconds,
        unit: "s",
        baseline: { value: written.burstWriteSeconds, label: `bulk Store write of ${fmt(burst)} checks` },
        target: { op: "<=", value: 1, on: "value" },
      },
      { scenario: SCENARIO, figure: "store size per check", value: storeBytes / count, unit: "B" },
      { scenario: SCENARIO, figure: "store growth per ping", value: bytesPerPing, unit: "B" },
    ];
    return { scenario: SCENARIO, figures, details };
  } finally {
    progress.done();
    if (options.keepDir === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith("scale.bench.js")) {
  if (!collectGarbage()) {
    // the RSS figures need a full GC before each reading: run again with --expose-gc
    const rerun = spawnSync(process.execPath, ["--expose-gc", ...process.execArgv, process.argv[1], ...process.argv.slice(2)], {
      stdio: "inherit",
    });
    process.exit(rerun.status ?? 1);
  }
  const result = await runScaleBench({ keepDir: process.env.HCD_BENCH_STORE_DIR || undefined });
  console.log(result.details.join("\n"));
  finishScenario(result);
}
