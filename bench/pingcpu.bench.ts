// CPU per ping at an everyday rate: hcd (`node dist/app/main.js`, DURABILITY=flush, 1,000 checks), the
// bare node:http server (bench/bare-server.ts) and the durable bare one (bench/durable-bare-server.ts: one
// synced write per event-loop turn before it answers, the floor of any server that acknowledges a ping
// once it is on disk) each driven at a fixed 200 POST pings/s (35-byte bodies, open loop, 20
// connections), runs alternated bare, durable bare, hcd, …; server CPU (all threads, /proc/<pid>/stat)
// over the run divided by the requests sent, and p99 latency counted from when each request was due.
// HCD_BENCH_PROFILE=1 runs hcd with --cpu-prof and adds where its time goes (every thread).
// Run: node dist/bench/pingcpu.bench.js   (env: HCD_BENCH_RUNS=3, HCD_BENCH_SECONDS=8, HCD_BENCH_PROFILE=1)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { profileDetails } from "./cpu-profile.ts";
import { runFixedRate } from "./load.ts";
import { cpuSecondsOf, median, Progress } from "./measure.ts";
import type { RateLoadResult } from "./rate-load.ts";
import { PING_BODY, startPingFixture } from "./ping-fixture.ts";
import type { PingFixture } from "./ping-fixture.ts";
import { finishScenario, fmt } from "./report.ts";
import type { Figure, ScenarioResult } from "./report.ts";
import { startBare, startDurableBare } from "./servers.ts";
import type { ServerProcess } from "./servers.ts";

const SCENARIO = "pingcpu";
const RATE = 200;
const CONNECTIONS = 20;
const WARMUP_SECONDS = 1;

type Measured = { readonly load: RateLoadResult; readonly cpuUsPerPing: number };

/** Runs the CPU-per-ping bench and returns its figures and detail lines. */
export async function runPingCpuBench(): Promise<ScenarioResult> {
  const runs = Number(process.env.HCD_BENCH_RUNS ?? 3),
    seconds = Number(process.env.HCD_BENCH_SECONDS ?? 8);
  const profile = process.env.HCD_BENCH_PROFILE === "1";
  const progress = new Progress(SCENARIO);
  const profileDir = mkdtempSync(join(tmpdir(), "hcd-bench-prof-"));
  const durableDir = mkdtempSync(join(tmpdir(), "hcd-bench-durable-bare-"));
  let fixture: PingFixture | null = null,
    bare: ServerProcess | null = null,
    durable: ServerProcess | null = null;
  try {
    progress.update(0, 1, "creating 1,000 checks", true);
    const f = await startPingFixture({ nodeArgs: profile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [] });
    fixture = f;
    bare = await startBare();
    durable = await startDurableBare(durableDir);
    const durableServer = durable;
    const fixed = async (server: ServerProcess, runSeconds = seconds): Promise<Measured> => {
      const before = cpuSecondsOf(server.pid) ?? Number.NaN;
      const load = await runFixedRate({
        url: server.url,
        pathsFile: f.pathsFile,
        rate: RATE,
        seconds: runSeconds,
        warmupSeconds: WARMUP_SECONDS,
        connections: CONNECTIONS,
        body: PING_BODY,
      });
      const cpu = (cpuSecondsOf(server.pid) ?? Number.NaN) - before;
      if (load.non200 + load.errors > 0) throw new Error(`pingcpu bench: ${load.non200 + load.errors} failed or non-200 answers`);
      // the CPU window spans the warm-up too: divide by every request sent in it
      return { load, cpuUsPerPing: (cpu / (RATE * (runSeconds + WARMUP_SECONDS))) * 1e6 };
    };
    const steps = 3 + 3 * runs;
    let step = 0;
    progress.update(++step, steps, "warm-up bare", true);
    await fixed(bare, 2);
    progress.update(++step, steps, "warm-up durable bare", true);
    await fixed(durableServer, 2);
    progress.update(++step, steps, "warm-up hcd", true);
    await fixed(f.hcd, 2);
    const bareRuns: Measured[] = [],
      durableRuns: Measured[] = [],
      hcdRuns: Measured[] = [];
    for (let r = 0; r < runs; r++) {
      progress.update(++step, steps, `run ${r + 1}/${runs}: bare`, true);
      bareRuns.push(await fixed(bare));
      progress.update(++step, steps, `run ${r + 1}/${runs}: durable bare`, true);
      durableRuns.push(await fixed(durableServer));
      progress.update(++step, steps, `run ${r + 1}/${runs}: hcd`, true);
      hcdRuns.push(await fixed(f.hcd));
    }
    progress.done();
    const details = [
      `hcd: DURABILITY=flush, CLOCK=real, default SHARDS, 1,000 checks in 10 projects. Load: ${RATE} POST pings/s with a 35-byte body, ` +
        `open loop over ${CONNECTIONS} keep-alive connections, ${seconds} s after a ${WARMUP_SECONDS} s warm-up, runs alternated bare, durable bare, hcd (${runs} each). ` +
        "Durable bare: node:http writing each request's record (about 200 bytes) to an O_DSYNC file, one write per event-loop turn, before it answers. " +
        `CPU: the server process (all threads) over the whole run, divided by the requests sent.${profile ? " PROFILED (--cpu-prof): hcd's figures are higher than usual." : ""}`,
      "",
      "| run | server | achieved/s | p50 ms | p99 ms | max ms | CPU per ping (µs) |",
      "|---|---|---|---|---|---|---|",
      ...bareRuns
        .flatMap(
          (b, r) =>
            [
              ["bare", b],
              ["durable bare", durableRuns[r]],
              ["hcd", hcdRuns[r]],
            ] as const,
        )
        .map(
          ([name, m], i) =>
            `| ${Math.floor(i / 3) + 1} | ${name} | ${fmt(m.load.achievedRate)} | ${fmt(m.load.p50Ms)} | ${fmt(m.load.p99Ms)} | ${fmt(m.load.maxMs)} | ${fmt(m.cpuUsPerPing)} |`,
        ),
    ];
    const figures: Figure[] = [
      {
        scenario: SCENARIO,
        figure: `server CPU per ping at a fixed ${RATE}/s, median of ${runs}`,
        value: median(hcdRuns.map((m) => m.cpuUsPerPing)),
        unit: "µs",
        baseline: { value: median(bareRuns.map((m) => m.cpuUsPerPing)), label: "bare node:http, same rate" },
        target: { op: "<=", value: 2, on: "ratio" },
      },
      {
        scenario: SCENARIO,
        figure: `p99 latency at a fixed ${RATE}/s`,
        value: median(hcdRuns.map((m) => m.load.p99Ms)),
        unit: "ms",
        baseline: { value: median(bareRuns.map((m) => m.load.p99Ms)), label: "bare, same rate" },
        target: { op: "<=", value: 8, on: "value" },
      },
      // the floor: what the durable write alone costs, against the same targets
      {
        scenario: SCENARIO,
        figure: `floor: durable bare's CPU per request at ${RATE}/s, median of ${runs}`,
        value: median(durableRuns.map((m) => m.cpuUsPerPing)),
        unit: "µs",
        baseline: { value: median(bareRuns.map((m) => m.cpuUsPerPing)), label: "bare node:http, same rate" },
        target: { op: "<=", value: 2, on: "ratio" },
      },
      {
        scenario: SCENARIO,
        figure: `floor: durable bare's p99 latency at ${RATE}/s`,
        value: median(durableRuns.map((m) => m.load.p99Ms)),
        unit: "ms",
        baseline: { value: median(bareRuns.map((m) => m.load.p99Ms)), label: "bare, same rate" },
        target: { op: "<=", value: 8, on: "value" },
      },
      {
        scenario: SCENARIO,
        figure: `hcd's CPU per ping against durable bare's, at ${RATE}/s`,
        value: median(hcdRuns.map((m) => m.cpuUsPerPing)),
        unit: "µs",
        baseline: { value: median(durableRuns.map((m) => m.cpuUsPerPing)), label: "durable bare, same rate" },
      },
    ];
    await f.close();
    fixture = null;
    if (profile) details.push(...profileDetails(profileDir));
    return { scenario: SCENARIO, figures, details };
  } finally {
    progress.done();
    await Promise.all([fixture?.close(), bare?.stop(), durable?.stop()]);
    rmSync(profileDir, { recursive: true, force: true });
    rmSync(durableDir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith("pingcpu.bench.js")) {
  const result = await runPingCpuBench();
  console.log(result.details.join("\n"));
  finishScenario(result);
}
