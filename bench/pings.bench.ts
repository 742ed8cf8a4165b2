// Pings/s and latency of the real server: `node dist/app/main.js` (DURABILITY=flush, CLOCK=real, default
// SHARDS, fresh DATA_DIR) holding 10,000 checks in 100 projects, against a bare node:http process answering
// "OK" to the same URLs and a durable bare one (bench/durable-bare-server.ts: one synced write per
// event-loop turn before it answers, the floor of any server that acknowledges a ping once it is on
// disk), driven over loopback by wrk (or autocannon) with fixed connections cycling through every check's
// ping URL. Runs interleave bare, durable bare, hcd, …; medians and the ratios to bare are reported, then
// a fixed-rate run at half of hcd's peak (p99), and the CPU of generator and servers.
// Run: node dist/bench/pings.bench.js   (env: HCD_BENCH_RUNS=3, HCD_BENCH_SECONDS=6, HCD_BENCH_PROFILE=1)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { profileDetails } from "./cpu-profile.ts";
import { peakGenerator, runFixedRate, runPeak, writePaths } from "./load.ts";
import type { PeakResult } from "./load.ts";
import { cpuSecondsOf, median, msSince, Progress, threadCpuOf } from "./measure.ts";
import type { RateLoadResult } from "./rate-load.ts";
import { finishScenario, fmt } from "./report.ts";
import type { Figure, ScenarioResult } from "./report.ts";
import { createCheck, createProject, mapConcurrently, shuffled, startBare, startDurableBare, startHcd } from "./servers.ts";
import type { ProjectKeys, ServerProcess } from "./servers.ts";

const SCENARIO = "pings";
const CONNECTIONS = 50;

export type PingsBenchOptions = {
  readonly projects?: number;
  readonly checksPerProject?: number;
  readonly runs?: number;
  readonly seconds?: number;
  readonly profile?: boolean;
};

type Measured = { readonly load: PeakResult; readonly serverCpu: number; readonly mainCpu: number | null };
type RateMeasured = { readonly load: RateLoadResult; readonly serverCpu: number };

/** Runs the ping bench and returns its figures and detail lines. */
export async function runPingsBench(options: PingsBenchOptions = {}): Promise<ScenarioResult> {
  const projects = options.projects ?? 100,
    perProject = options.checksPerProject ?? 100;
  const runs = options.runs ?? Number(process.env.HCD_BENCH_RUNS ?? 3);
  const seconds = options.seconds ?? Number(process.env.HCD_BENCH_SECONDS ?? 6);
  const profile = options.profile ?? process.env.HCD_BENCH_PROFILE === "1";
  const progress = new Progress(SCENARIO);
  const dataDir = mkdtempSync(join(tmpdir(), "hcd-bench-pings-"));
  const profileDir = mkdtempSync(join(tmpdir(), "hcd-bench-prof-"));
  const details: string[] = [];
  const durableDir = mkdtempSync(join(tmpdir(), "hcd-bench-durable-bare-"));
  let hcd: ServerProcess | null = null,
    bare: ServerProcess | null = null,
    durable: ServerProcess | null = null;
  let paths: { file: string; remove: () => void } | null = null;
  try {
    const server = await startHcd({ dataDir, nodeArgs: profile ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [] });
    hcd = server;
    bare = await startBare();
    const durableServer = (durable = await startDurableBare(durableDir));
    const setupStarted = process.hrtime.bigint();
    const total = projects * perProject;
    const keys = await mapConcurrently(
      Array.from({ length: projects }, (_, i) => i),
      8,
      (i) => createProject(server.url, `bench-${i}`, perProject * 2),
    );
    let created = 0;
    const uuids = await mapConcurrently(
      Array.from({ length: total }, (_, i) => keys[i % projects]),
      32,
      async (project: ProjectKeys) => {
        const uuid = await createCheck(server.url, project.apiKey, { name: `check ${created}`, timeout: 86_400, grace: 3_600 });
        progress.update(++created, total, "checks created through /api/v3");
        return uuid;
      },
    );
    const setupSeconds = msSince(setupStarted) / 1000;
    const pingPaths = shuffled(uuids.map((uuid) => `/ping/${uuid}`));
    const pathsFile = writePaths(pingPaths);
    paths = pathsFile;

    const peak = async (server: ServerProcess): Promise<Measured> => {
      const cpuBefore = cpuSecondsOf(server.pid) ?? 0,
        threadsBefore = threadCpuOf(server.pid);
      const load = await runPeak({ url: server.url, pathsFile: pathsFile.file, paths: pingPaths, connections: CONNECTIONS, seconds });
      const threadsAfter = threadCpuOf(server.pid);
      return {
        load,
        serverCpu: (cpuSecondsOf(server.pid) ?? 0) - cpuBefore,
        mainCpu: threadsBefore && threadsAfter ? threadsAfter.main - threadsBefore.main : null,
      };
    };
    const steps = 3 + 3 * runs + 3 * runs;
    let step = 0;
    const show = (what: string) => progress.update(++step, steps, what, true);
    show("warm-up bare");
    await runPeak({ url: bare.url, pathsFile: pathsFile.file, paths: pingPaths, connections: CONNECTIONS, seconds: 2 });
    show("warm-up durable bare");
    await runPeak({ url: durableServer.url, pathsFile: pathsFile.file, paths: pingPaths, connections: CONNECTIONS, seconds: 2 });
    show("warm-up hcd");
    await runPeak({ url: hcd.url, pathsFile: pathsFile.file, paths: pingPaths, connections: CONNECTIONS, seconds: 2 });
    const bareRuns: Measured[] = [],
      durableRuns: Measured[] = [],
      hcdRuns: Measured[] = [];
    for (let r = 0; r < runs; r++) {
      show(`peak run ${r + 1}/${runs}: bare`);
      bareRuns.push(await peak(bare));
      show(`peak run ${r + 1}/${runs}: durable bare`);
      durableRuns.push(await peak(durableServer));
      show(`peak run ${r + 1}/${runs}: hcd (last bare ${fmt(bareRuns[r].load.perSecond)}/s)`);
      hcdRuns.push(await peak(hcd));
    }
    const bareRate = median(bareRuns.map((m) => m.load.perSecond)),
      hcdRate = median(hcdRuns.map((m) => m.load.perSecond));
    const rate = Math.max(100, Math.round(hcdRate / 2 / 100) * 100);
    const fixed = async (server: ServerProcess): Promise<RateMeasured> => {
      const cpuBefore = cpuSecondsOf(server.pid) ?? 0;
      const load = await runFixedRate({
        url: server.url,
        pathsFile: pathsFile.file,
        rate,
        seconds,
        warmupSeconds: 1,
        connections: CONNECTIONS,
      });
      return { load, serverCpu: (cpuSecondsOf(server.pid) ?? 0) - cpuBefore };
    };
    const bareFixed: RateMeasured[] = [],
      durableFixed: RateMeasured[] = [],
      hcdFixed: RateMeasured[] = [];
    for (let r = 0; r < runs; r++) {
      show(`fixed ${rate}/s run ${r + 1}/${runs}: bare`);
      bareFixed.push(await fixed(bare));
      show(`fixed ${rate}/s run ${r + 1}/${runs}: durable bare`);
      durableFixed.push(await fixed(durableServer));
      show(`fixed ${rate}/s run ${r + 1}/${runs}: hcd`);
      hcdFixed.push(await fixed(hcd));
    }
    progress.done();
    const failures =
      [...bareRuns, ...durableRuns, ...hcdRuns].reduce((n, m) => n + m.load.failures, 0) +
      [...bareFixed, ...durableFixed, ...hcdFixed].reduce((n, m) => n + m.load.non200 + m.load.errors, 0);

    const generator = peakGenerator();
    details.push(
      `${total.toLocaleString("en")} checks in ${projects} projects, created through /api/v3 (32 at a time) in ${setupSeconds.toFixed(1)} s ` +
        `(${fmt(total / setupSeconds)} checks/s). hcd: DURABILITY=flush, CLOCK=real, default SHARDS, API_RATE_LIMIT=0. ` +
        `Load: ${generator} ${generator === "wrk" ? "-t1 " : ""}-c${CONNECTIONS}, ${seconds} s a run, cycling through all ${total.toLocaleString("en")} ping URLs; ` +
        `runs interleaved bare, durable bare, hcd, … (${runs} each). Durable bare: node:http writing each request's record (about 200 bytes) ` +
        `to an O_DSYNC file, one write per event-loop turn, before it answers. Failed or non-200 answers: ${failures}.${profile ? " PROFILED (--cpu-prof): figures are lower than usual." : ""}`,
      "",
      "| run | server | req/s | p50 ms | p99 ms | max ms | server CPU (cores) | of which main thread | generator CPU (cores) |",
      "|---|---|---|---|---|---|---|---|---|",
    );
    for (let r = 0; r < runs; r++) {
      for (const [name, m] of [
        ["bare", bareRuns[r]],
        ["durable bare", durableRuns[r]],
        ["hcd", hcdRuns[r]],
      ] as const) {
        details.push(
          `| ${r + 1} | ${name} | ${fmt(m.load.perSecond)} | ${fmt(m.load.p50Ms)} | ${fmt(m.load.p99Ms)} | ${fmt(m.load.maxMs)} | ` +
            `${fmt(m.serverCpu / m.load.seconds)} | ${m.mainCpu === null ? "" : fmt(m.mainCpu / m.load.seconds)} | ${fmt(m.load.cpuSeconds / m.load.seconds)} |`,
        );
      }
    }
    details.push(
      "",
      `Fixed rate ${rate.toLocaleString("en")}/s (half of hcd's median peak), open loop, latency counted from when each request was due:`,
      "",
      "| run | server | achieved/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | server CPU (cores) | generator CPU (cores) |",
      "|---|---|---|---|---|---|---|---|---|---|",
    );
    for (let r = 0; r < runs; r++) {
      for (const [name, m] of [
        ["bare", bareFixed[r]],
        ["durable bare", durableFixed[r]],
        ["hcd", hcdFixed[r]],
      ] as const) {
        details.push(
          `| ${r + 1} | ${name} | ${fmt(m.load.achievedRate)} | ${fmt(m.load.p50Ms)} | ${fmt(m.load.p90Ms)} | ${fmt(m.load.p99Ms)} | ` +
            `${fmt(m.load.p999Ms)} | ${fmt(m.load.maxMs)} | ${fmt(m.serverCpu / m.load.seconds)} | ${fmt(m.load.cpuSeconds / m.load.seconds)} |`,
        );
      }
    }

    const perPingUs = (ms: Measured[]) => median(ms.map((m) => (m.serverCpu / m.load.requests) * 1e6));
    const cores = (ms: Measured[], pick: (m: Measured) => number) => median(ms.map((m) => pick(m) / m.load.seconds));
    const figures: Figure[] = [
      {
        scenario: SCENARIO,
        figure: `peak pings/s, ${generator} c=${CONNECTIONS}, median of ${runs}`,
        value: hcdRate,
        unit: "req/s",
        baseline: { value: bareRate, label: "bare node:http" },
        target: { op: ">=", value: 0.6, on: "ratio" },
      },
      {
        scenario: SCENARIO,
        figure: "p99 latency at peak",
        value: median(hcdRuns.map((m) => m.load.p99Ms)),
        unit: "ms",
        baseline: { value: median(bareRuns.map((m) => m.load.p99Ms)), label: "bare" },
      },
      {
        scenario: SCENARIO,
        figure: `p99 latency at a fixed ${fmt(rate)}/s (half of peak)`,
        value: median(hcdFixed.map((m) => m.load.p99Ms)),
        unit: "ms",
        baseline: { value: median(bareFixed.map((m) => m.load.p99Ms)), label: "bare, same rate" },
        target: { op: "<=", value: 5, on: "value" },
      },
      {
        scenario: SCENARIO,
        figure: "server CPU per ping at peak",
        value: perPingUs(hcdRuns),
        unit: "µs",
        baseline: { value: perPingUs(bareRuns), label: "bare" },
      },
      {
        scenario: SCENARIO,
        figure: "server CPU at peak",
        value: cores(hcdRuns, (m) => m.serverCpu),
        unit: "cores",
        baseline: { value: cores(bareRuns, (m) => m.serverCpu), label: "bare" },
      },
      {
        scenario: SCENARIO,
        figure: `generator (${generator}) CPU at peak`,
        value: cores(hcdRuns, (m) => m.load.cpuSeconds),
        unit: "cores",
        baseline: { value: cores(bareRuns, (m) => m.load.cpuSeconds), label: "against bare" },
      },
      { scenario: SCENARIO, figure: "checks created through /api/v3 (setup)", value: total / setupSeconds, unit: "checks/s" },
      // the floor: what the durable write alone allows, against the same targets
      {
        scenario: SCENARIO,
        figure: `floor: durable bare's peak requests/s, median of ${runs}`,
        value: median(durableRuns.map((m) => m.load.perSecond)),
        unit: "req/s",
        baseline: { value: bareRate, label: "bare node:http" },
        target: { op: ">=", value: 0.6, on: "ratio" },
      },
      {
        scenario: SCENARIO,
        figure: `floor: durable bare's p99 latency at a fixed ${fmt(rate)}/s`,
        value: median(durableFixed.map((m) => m.load.p99Ms)),
        unit: "ms",
        baseline: { value: median(bareFixed.map((m) => m.load.p99Ms)), label: "bare, same rate" },
        target: { op: "<=", value: 5, on: "value" },
      },
      {
        scenario: SCENARIO,
        figure: "hcd's peak pings/s against durable bare's",
        value: hcdRate,
        unit: "req/s",
        baseline: { value: median(durableRuns.map((m) => m.load.perSecond)), label: "durable bare" },
      },
    ];
    if (failures > 0) throw new Error(`pings bench: ${failures} failed or non-200 answers`);

    await hcd.stop();
    hcd = null;
    if (profile) details.push(...profileDetails(profileDir));
    return { scenario: SCENARIO, figures, details };
  } finally {
    progress.done();
    await Promise.all([hcd?.stop(), bare?.stop(), durable?.stop()]);
    paths?.remove();
    rmSync(durableDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(profileDir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith("pings.bench.js")) {
  const result = await runPingsBench();
  console.log(result.details.join("\n"));
  finishScenario(result);
}
