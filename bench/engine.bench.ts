// Pings/s through the engine without HTTP: the pure Shard alone, then the pools with a real LMDB
// store (in-process, and SHARDS worker threads with micro-batching). Prints a table.
import { performance } from "node:perf_hooks";
import { availableParallelism } from "node:os";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Shard } from "../engine/shard.ts";
import { createInProcessPool, createWorkerPool } from "../app/pools.ts";
import type { PoolOptions } from "../app/pools.ts";
import type { Pool } from "../host/pool-api.ts";
import { finishScenario } from "./report.ts";
import type { Figure, ScenarioResult } from "./report.ts";
import { pingOf, scenarioProject, sequentialIds } from "./scenarios.ts";

export type EngineBenchRow = { variant: string; pings: number; seconds: number; perSecond: number };

const T0 = Date.UTC(2026, 0, 1);

function pureShard(checks: number, pings: number): EngineBenchRow {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  const project = scenarioProject("p");
  shard.createProject(project, T0);
  const uuids: string[] = [];
  for (let i = 0; i < checks; i++) {
    const made = shard.createCheck(project.id, { slug: `c${i}` }, [], T0);
    if (made.ok) uuids.push(made.value.check.uuid);
  }
  shard.takeChanges();
  const started = performance.now();
  for (let i = 0; i < pings; i++) {
    shard.ping(pingOf({ uuid: uuids[i % checks] }, T0 + i));
    if (i % 1000 === 999) shard.takeChanges(); // what the host would commit
  }
  const seconds = (performance.now() - started) / 1000;
  return { variant: "pure Shard, one thread, no store", pings, seconds, perSecond: pings / seconds };
}

async function throughPool(
  variant: string,
  make: (o: PoolOptions) => Promise<Pool>,
  shards: number,
  durability: "flush" | "commit",
  checks: number,
  pings: number,
  concurrency: number,
): Promise<EngineBenchRow> {
  const dir = mkdtempSync(join(tmpdir(), "hcd-bench-"));
  const pool = await make({
    dataDir: dir,
    shards,
    durability,
    startAt: T0,
    clock: "virtual",
    notify: { siteRoot: "http://localhost", allowPrivateIps: false, smtpUrl: null },
  });
  try {
    const uuids: string[] = [];
    const projectIds = new Map<string, string>(); // check uuid → project id, as an edge resolves it
    const projects = Math.max(1, Math.min(100, Math.floor(checks / 100)));
    for (let p = 0; p < projects; p++) {
      const project = await pool.createProject({ name: `p${p}`, checkLimit: checks, pingLogLimit: 100, pingBodyLimit: 10_000 }, T0);
      await Promise.all(
        Array.from({ length: checks / projects }, async () => {
          const made = await pool.createCheck(project.id, {}, [], T0);
          if (made.ok) {
            uuids.push(made.value.check.uuid);
            projectIds.set(made.value.check.uuid, project.id);
          }
        }),
      );
    }
    let sent = 0;
    const started = performance.now();
    // `concurrency` clients, each sending its next ping when the last was acknowledged
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (sent < pings) {
          const i = sent++;
          const result = await pool.ping(projectIds.get(uuids[i % uuids.length]) ?? "", pingOf({ uuid: uuids[i % uuids.length] }, T0 + i));
          if (!result.ok) throw new Error(`ping failed: ${JSON.stringify(result.failure)}`);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return { variant, pings, seconds, perSecond: pings / seconds };
  } finally {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs every variant and returns the rows. */
export async function runEngineBench(opts: { checks?: number; pings?: number } = {}): Promise<EngineBenchRow[]> {
  const checks = opts.checks ?? 10_000,
    pings = opts.pings ?? 100_000;
  const shards = availableParallelism();
  const rows: EngineBenchRow[] = [pureShard(checks, pings * 3)];
  rows.push(await throughPool("in-process pool, 1 shard, durability=commit", createInProcessPool, 1, "commit", checks, pings, 256));
  rows.push(await throughPool("in-process pool, 1 shard, durability=flush", createInProcessPool, 1, "flush", checks, pings, 256));
  rows.push(await throughPool("worker pool, 1 shard, durability=flush", createWorkerPool, 1, "flush", checks, pings, 256));
  rows.push(await throughPool(`worker pool, ${shards} shards, durability=flush`, createWorkerPool, shards, "flush", checks, pings, 256));
  return rows;
}

export function formatEngineBench(rows: EngineBenchRow[]): string[] {
  return [
    "| variant | pings | seconds | pings/s |",
    "|---|---|---|---|",
    ...rows.map((r) => `| ${r.variant} | ${r.pings} | ${r.seconds.toFixed(2)} | ${Math.round(r.perSecond).toLocaleString("en")} |`),
  ];
}

export function printEngineBench(rows: EngineBenchRow[]): void {
  console.log(formatEngineBench(rows).join("\n"));
}

/** Returns the summary figures (each pool next to the pure Shard of the same run) and the table as details. */
export function engineResult(rows: EngineBenchRow[]): ScenarioResult {
  const pure = rows[0];
  const baseline = { value: pure.perSecond, label: "pure Shard" };
  const figures: Figure[] = rows
    .slice(1)
    .filter((r) => r.variant.includes("flush"))
    .map((r) => ({ scenario: "engine", figure: `pings/s, ${r.variant}`, value: r.perSecond, unit: "pings/s", baseline }));
  return { scenario: "engine", figures, details: formatEngineBench(rows) };
}

if (process.argv[1]?.endsWith("engine.bench.js")) {
  const rows = await runEngineBench();
  printEngineBench(rows);
  finishScenario(engineResult(rows));
}
