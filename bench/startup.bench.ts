// Time from spawning `node dist/app/main.js` to the first answered ping, on an empty store and on a store
// of HCD_BENCH_SCALE checks (default 1,000,000); next to it, a bare node:http process (spawn → first answer).
// A ping is answered once the pool is up: before that the server answers 503 "starting", or refuses.
// Run: node dist/bench/startup.bench.js   (env: HCD_BENCH_STORE_DIR=<a store the scale bench kept>, HCD_BENCH_RUNS=3)
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { anyCheckUuid, countChecks, writeBulkStore } from "./bulk-store.ts";
import { median, msSince, Progress, sleep } from "./measure.ts";
import { finishScenario, fmt } from "./report.ts";
import type { Figure, ScenarioResult } from "./report.ts";
import { benchScale } from "./scale.bench.ts";
import { freePort, startBare, startHcd } from "./servers.ts";
import type { ServerProcess } from "./servers.ts";

const SCENARIO = "startup";
const UNKNOWN_CHECK = "00000000-0000-4000-8000-000000000000";

type Start = { readonly answeredMs: number; readonly listeningMs: number; readonly stopMs: number };

/** Runs the startup bench; uses the store in `storeDir` when it holds one, else builds one. */
export async function runStartupBench(options: { storeDir?: string; runs?: number } = {}): Promise<ScenarioResult> {
  const runs = options.runs ?? Number(process.env.HCD_BENCH_RUNS ?? 3);
  const progress = new Progress(SCENARIO);
  const emptyDirs: string[] = [];
  let bigDir = options.storeDir;
  const ownsBigDir = bigDir === undefined || !existsSync(join(bigDir, "data.mdb"));
  try {
    let buildSeconds: number | null = null;
    if (ownsBigDir) {
      bigDir = mkdtempSync(join(tmpdir(), "hcd-bench-startup-"));
      const started = process.hrtime.bigint();
      await writeBulkStore(bigDir, { count: benchScale(), burst: 0, at: Date.now(), progress });
      buildSeconds = msSince(started) / 1000;
      progress.done();
    }
    const storeDir = bigDir ?? "";
    const checks = await countChecks(storeDir);
    const known = await anyCheckUuid(storeDir);

    const total = 3 * runs;
    let step = 0;
    const bare: Start[] = [],
      empty: Start[] = [],
      big: Start[] = [];
    for (let r = 0; r < runs; r++) {
      progress.update(++step, total, `bare node:http, run ${r + 1}`, true);
      bare.push(await timeStart((port) => startBare(port), UNKNOWN_CHECK, null));
      progress.update(++step, total, `hcd, empty store, run ${r + 1}`, true);
      const dir = mkdtempSync(join(tmpdir(), "hcd-bench-empty-"));
      emptyDirs.push(dir);
      empty.push(await timeStart((port) => startHcd({ dataDir: dir, env: { PORT: String(port) } }), UNKNOWN_CHECK, 404));
      progress.update(++step, total, `hcd, ${fmt(checks)} checks, run ${r + 1}`, true);
      big.push(await timeStart((port) => startHcd({ dataDir: storeDir, env: { PORT: String(port) } }), known, 200));
    }
    progress.done();

    const row = (name: string, starts: Start[]) =>
      `| ${name} | ${starts.map((s) => fmt(s.answeredMs)).join(", ")} | ${fmt(median(starts.map((s) => s.listeningMs)))} | ${fmt(median(starts.map((s) => s.stopMs)))} |`;
    const details = [
      `Each run spawns a fresh process (default SHARDS, DURABILITY=flush, CLOCK=real) and pings every 5 ms from the moment of the spawn. ` +
        `Store: ${fmt(checks)} checks${buildSeconds === null ? " (kept by the scale bench)" : `, built through Store.commit in ${buildSeconds.toFixed(1)} s`}.`,
      "",
      '| server | spawn → first answered ping, each run (ms) | spawn → "listening" line, median (ms) | SIGTERM → exit, median (ms) |',
      "|---|---|---|---|",
      row("bare node:http", bare),
      row("hcd, empty store", empty),
      row(`hcd, ${fmt(checks)} checks`, big),
    ];
    const answered = (starts: Start[]) => median(starts.map((s) => s.answeredMs));
    const figures: Figure[] = [
      {
        scenario: SCENARIO,
        figure: "spawn → first answered ping, empty store",
        value: answered(empty),
        unit: "ms",
        baseline: { value: answered(bare), label: "bare node:http" },
      },
      {
        scenario: SCENARIO,
        figure: `spawn → first answered ping, ${fmt(checks)} checks`,
        value: answered(big) / 1000,
        unit: "s",
        baseline: { value: answered(empty) / 1000, label: "hcd, empty store" },
        target: { op: "<=", value: 10, on: "value" },
      },
      {
        scenario: SCENARIO,
        figure: `SIGTERM → exit, ${fmt(checks)} checks`,
        value: median(big.map((s) => s.stopMs)),
        unit: "ms",
        baseline: { value: median(empty.map((s) => s.stopMs)), label: "hcd, empty store" },
      },
    ];
    return { scenario: SCENARIO, figures, details };
  } finally {
    progress.done();
    for (const dir of emptyDirs) rmSync(dir, { recursive: true, force: true });
    if (ownsBigDir && bigDir !== undefined) rmSync(bigDir, { recursive: true, force: true });
  }
}

/**
 * Spawns a server on a free port, pings `uuid` every 5 ms from the spawn on, and times the first answer with
 * `expect` (null: any but 503). A server killed by a signal before it listened (not by us: this machine is
 * shared) is started again, twice at most.
 */
async function timeStart(start: (port: number) => Promise<ServerProcess>, uuid: string, expect: number | null): Promise<Start> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await timeOneStart(start, uuid, expect);
    } catch (error) {
      if (attempt >= 3 || !String(error).includes("exited with code null")) throw error;
      process.stderr.write(`hcd bench: startup: the server was killed by a signal before it listened; starting it again\n`);
    }
  }
}

async function timeOneStart(start: (port: number) => Promise<ServerProcess>, uuid: string, expect: number | null): Promise<Start> {
  const port = await freePort();
  const started = process.hrtime.bigint();
  const server = start(port);
  let failed = false;
  void server.catch(() => {
    failed = true;
  });
  let answeredMs = Number.NaN;
  while (!failed) {
    const status = await ping(port, uuid);
    if (status !== null && status !== 503) {
      answeredMs = msSince(started);
      if (expect !== null && status !== expect) throw new Error(`startup bench: the first ping answered ${status}, expected ${expect}`);
      break;
    }
    await sleep(5);
  }
  const running = await server;
  const stopping = process.hrtime.bigint();
  await running.stop();
  return { answeredMs, listeningMs: running.listeningMs, stopMs: msSince(stopping) };
}

/** Returns the status of GET /ping/<uuid>, or null when the connection fails. */
function ping(port: number, uuid: string): Promise<number | null> {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port, path: `/ping/${uuid}`, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? null));
    });
    req.on("error", () => resolve(null));
    req.setTimeout(5_000, () => req.destroy());
    req.end();
  });
}

if (process.argv[1]?.endsWith("startup.bench.js")) {
  const result = await runStartupBench({ storeDir: process.env.HCD_BENCH_STORE_DIR || undefined });
  console.log(result.details.join("\n"));
  finishScenario(result);
}
