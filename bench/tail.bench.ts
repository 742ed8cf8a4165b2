// The slowest answers at an everyday rate, checkpoints included: hcd (`node dist/app/main.js`,
// DURABILITY=flush, 1,000 checks) and the bare node:http server (bench/bare-server.ts) each driven at a
// fixed 200 POST pings/s (35-byte bodies, open loop, 20 connections) for 70 s, long enough for a shard's
// checkpoint by age (a minute after its oldest logged commit), so that its hold on the shard shows in the
// tail. Latency counts from when each request was due. One run of each, bare first.
// Run: node dist/bench/tail.bench.js   (env: HCD_BENCH_SECONDS=70)
import { runFixedRate } from "./load.ts";
import { Progress } from "./measure.ts";
import type { RateLoadResult } from "./rate-load.ts";
import { PING_BODY, startPingFixture } from "./ping-fixture.ts";
import type { PingFixture } from "./ping-fixture.ts";
import { finishScenario, fmt } from "./report.ts";
import type { Figure, ScenarioResult } from "./report.ts";
import { startBare } from "./servers.ts";
import type { ServerProcess } from "./servers.ts";

const SCENARIO = "tail";
const RATE = 200;
const CONNECTIONS = 20;
const WARMUP_SECONDS = 1;

/** Runs the tail-latency bench and returns its figures and detail lines. */
export async function runTailBench(): Promise<ScenarioResult> {
  const seconds = Number(process.env.HCD_BENCH_SECONDS ?? 70);
  const progress = new Progress(SCENARIO);
  let fixture: PingFixture | null = null,
    bare: ServerProcess | null = null;
  try {
    progress.update(0, 2, "creating 1,000 checks", true);
    const f = await startPingFixture();
    fixture = f;
    bare = await startBare();
    const fixed = (server: ServerProcess): Promise<RateLoadResult> =>
      runFixedRate({
        url: server.url,
        pathsFile: f.pathsFile,
        rate: RATE,
        seconds,
        warmupSeconds: WARMUP_SECONDS,
        connections: CONNECTIONS,
        body: PING_BODY,
      });
    progress.update(1, 2, `bare, ${seconds} s`, true);
    const bareRun = await fixed(bare);
    progress.update(2, 2, `hcd, ${seconds} s`, true);
    const hcdRun = await fixed(f.hcd);
    progress.done();
    for (const [name, run] of [
      ["bare", bareRun],
      ["hcd", hcdRun],
    ] as const) {
      if (run.non200 + run.errors > 0) throw new Error(`tail bench: ${name}: ${run.non200 + run.errors} failed or non-200 answers`);
    }
    const details = [
      `hcd: DURABILITY=flush, CLOCK=real, default SHARDS, 1,000 checks in 10 projects. Load: ${RATE} POST pings/s with a 35-byte body, ` +
        `open loop over ${CONNECTIONS} keep-alive connections, ${seconds} s after a ${WARMUP_SECONDS} s warm-up (a shard checkpoints a minute after its ` +
        "oldest logged commit), bare then hcd. Latency from when each request was due.",
      "",
      "| server | requests | p50 ms | p99 ms | p99.9 ms | max ms |",
      "|---|---|---|---|---|---|",
      ...(
        [
          ["bare", bareRun],
          ["hcd", hcdRun],
        ] as const
      ).map(
        ([name, run]) =>
          `| ${name} | ${fmt(run.completed)} | ${fmt(run.p50Ms)} | ${fmt(run.p99Ms)} | ${fmt(run.p999Ms)} | ${fmt(run.maxMs)} |`,
      ),
    ];
    const figure = (label: string, value: number, base: number, target?: number): Figure => ({
      scenario: SCENARIO,
      figure: `${label} at a fixed ${RATE}/s over ${seconds} s`,
      value,
      unit: "ms",
      baseline: { value: base, label: "bare, same rate" },
      ...(target === undefined ? {} : { target: { op: "<=" as const, value: target, on: "value" as const } }),
    });
    const figures: Figure[] = [
      figure("p99 latency", hcdRun.p99Ms, bareRun.p99Ms, 8),
      figure("p99.9 latency", hcdRun.p999Ms, bareRun.p999Ms),
      figure("slowest answer", hcdRun.maxMs, bareRun.maxMs),
    ];
    return { scenario: SCENARIO, figures, details };
  } finally {
    progress.done();
    await Promise.all([fixture?.close(), bare?.stop()]);
  }
}

if (process.argv[1]?.endsWith("tail.bench.js")) {
  const result = await runTailBench();
  console.log(result.details.join("\n"));
  finishScenario(result);
}
