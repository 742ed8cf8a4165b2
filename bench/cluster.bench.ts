// Pings through a three-node cluster against single-node mode, same run, same machine: pings/s and
// latency of a closed-loop load (the same connections in total) spread over every node, and each node's
// CPU. The cluster is three hcd nodes and three nats-server processes (R3: a quorum of two holds each
// ping before it is acknowledged), all on this machine's cores with the load generator; single-node mode
// is one hcd with its default shards. A third setup, three replicated bare servers on the same three
// nats-server processes (bench/replicated-bare-server.ts: each request stored on a quorum, one message per
// event-loop turn, nothing else), is the least any cluster that acknowledges a ping once replicated must
// spend on this machine: the limit under the cluster's figures. A fourth, the same servers publishing into
// one shared stream that each reads all of, is the limit of a cluster whose nodes take their pings from one
// intake stream, as hcd's do. The setups take turns; each figure is the median of the rounds.
// Run: npm run -s build && node dist/bench/cluster.bench.js [secondsPerRun, default 10] [rounds, default 2]
// HCD_BENCH_PROFILE=1 runs the first cluster node with --cpu-prof and adds where its time goes (every thread).
// HCD_BENCH_NATS_PROCS: each nats-server's GOMAXPROCS, 1 by default (servers.ts benchNatsProcs).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { startNatsCluster } from "../test/stress/nats-cluster.ts";
import type { NatsServer } from "../test/stress/nats-cluster.ts";
import { profileDetails } from "./cpu-profile.ts";
import { cpuSecondsOf, median, natsMessages } from "./measure.ts";
import { runPeak, writePaths } from "./load.ts";
import type { PeakResult } from "./load.ts";
import { finishScenario } from "./report.ts";
import type { Figure } from "./report.ts";
import { benchNatsProcs, createCheck, createProject, mapConcurrently, shuffled, startHcd, startReplicatedBare } from "./servers.ts";
import type { ServerProcess } from "./servers.ts";

/** CPU seconds a running process has used so far. */
const cpuSeconds = (pid: number): number => cpuSecondsOf(pid) ?? 0;

const profileDir = process.env.HCD_BENCH_PROFILE === "1" ? mkdtempSync(join(tmpdir(), "hcd-bench-profile-")) : null;
// HCD_BENCH_CONNECTIONS: more connections put more pings in flight per partition (batches of more records);
// HCD_BENCH_PARTITIONS: fewer partitions do too; a list (6,16) runs a cluster of each count in every
// round, the targets judged on the first
const PROJECTS = 16,
  CHECKS_PER_PROJECT = 25,
  CONNECTIONS = Number(process.env.HCD_BENCH_CONNECTIONS ?? 30);
// HCD_BENCH_SNAPSHOT_EVERY: records between a partition's snapshots. An owner stores the pings it holds
// at each snapshot, so every measured run must pay for some. The product's default, 10,000, is about 45 s of
// this load per partition (200-240 records/s each), longer than a run; the default here, 2,000, is 8-10 s,
// so each partition stores one or two in a run (3 s of warm-up and 10 measured), at five times the
// product's rate. 500, the default before, stored one every 2-3 s, twenty times the product's rate, and
// cost the cluster about 30% of its CPU per ping (docs/benchmarks.md "Cluster efficiency: snapshots at a
// product's rate").
const SNAPSHOT_EVERY = Number(process.env.HCD_BENCH_SNAPSHOT_EVERY ?? 2_000);
const PARTITION_COUNTS = (process.env.HCD_BENCH_PARTITIONS ?? "16").split(",").map(Number);
// HCD_BENCH_WARMUP_SECONDS: the load each setup gets, unmeasured, before its measured run (default 3)
const WARMUP_SECONDS = Number(process.env.HCD_BENCH_WARMUP_SECONDS ?? 3);
const NATS_PROCS = benchNatsProcs();
type Run = {
  readonly setup: string;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly failures: number;
  readonly seconds: number;
  /** CPU seconds of the hcd processes, and of the NATS servers (0 for single node). */
  readonly serverCpuSeconds: number;
  readonly hcdCpuSeconds: number;
  /** Messages the NATS servers took in from clients and routes, and sent out, during the run (0 for single node). */
  readonly natsMessagesIn: number;
  readonly natsMessagesOut: number;
  /** Messages stored during the run in the logs (the intake stream and the partitions' logs) and in the history streams (0 for single node). */
  readonly logMessages: number;
  readonly historyMessages: number;
};

/** How many messages the logs (the intake stream and the partitions' logs) and the history streams have stored so far (each stream's last sequence, summed). */
async function storedMessages(urls: readonly string[]): Promise<{ log: number; history: number }> {
  if (urls.length === 0) return { log: 0, history: 0 };
  const nc = await connect({ servers: [...urls] });
  try {
    const sums = { log: 0, history: 0 };
    for await (const info of (await jetstreamManager(nc)).streams.list()) {
      // the replicated bare servers' streams count as logs
      if (info.config.name.startsWith("HCD_LOG_") || info.config.name === "HCD_INTAKE" || info.config.name.startsWith("BARE_"))
        sums.log += info.state.last_seq;
      if (info.config.name.startsWith("HCD_HIST_")) sums.history += info.state.last_seq;
    }
    return sums;
  } finally {
    await nc.close();
  }
}

/** `make`, sent again while it is answered 503 (a cluster that has just started hands its partitions out). */
async function retried<T>(make: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await make();
    } catch (error) {
      if (attempt >= 10 || !/: 503 /.test(String((error as Error).message))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

async function fill(url: string): Promise<string[]> {
  const paths: string[] = [];
  await mapConcurrently(
    Array.from({ length: PROJECTS }, (_, i) => i),
    4,
    async (i) => {
      const project = await retried(() => createProject(url, `bench-${i}`, CHECKS_PER_PROJECT));
      for (let c = 0; c < CHECKS_PER_PROJECT; c++)
        paths.push(`/ping/${await retried(() => createCheck(url, project.apiKey, { name: `c${c}`, timeout: 3600 }))}`);
    },
  );
  return shuffled(paths);
}

/** Runs the load on every server at once, the connections shared out; sums requests, takes the worst p99. */
async function load(
  servers: readonly ServerProcess[],
  paths: readonly string[],
  seconds: number,
  nats: readonly NatsServer[],
  setup: string,
): Promise<Run> {
  const pids = [...servers.map((s) => s.pid), ...nats.map((s) => s.pid() ?? 0)];
  const monitors = nats.map((s) => s.monitorUrl);
  const file = writePaths(paths);
  try {
    const loadFor = (forSeconds: number): Promise<PeakResult[]> =>
      Promise.all(
        servers.map((server) =>
          runPeak({
            url: server.url,
            pathsFile: file.file,
            paths,
            connections: Math.round(CONNECTIONS / servers.length),
            seconds: forSeconds,
          }),
        ),
      );
    // the same load first, unmeasured: every setup is measured warm (compiled code, streams and leaders in place)
    if (WARMUP_SECONDS > 0) await loadFor(WARMUP_SECONDS);
    const storedBefore = await storedMessages(nats.map((n) => n.url));
    const messagesBefore = await natsMessages(monitors);
    const cpuBefore = pids.map(cpuSeconds);
    const results = await loadFor(seconds);
    const used = pids.map((pid, i) => cpuSeconds(pid) - cpuBefore[i]);
    const messagesAfter = await natsMessages(monitors);
    const storedAfter = await storedMessages(nats.map((n) => n.url));
    const serverCpuSeconds = used.reduce((a, b) => a + b, 0),
      hcdCpuSeconds = used.slice(0, servers.length).reduce((a, b) => a + b, 0);
    return {
      setup,
      perSecond: results.reduce((sum, r) => sum + r.perSecond, 0),
      p50Ms: median(results.map((r) => r.p50Ms)),
      p99Ms: Math.max(...results.map((r) => r.p99Ms)),
      failures: results.reduce((sum, r) => sum + r.failures, 0),
      serverCpuSeconds,
      hcdCpuSeconds,
      seconds,
      natsMessagesIn: messagesAfter.in - messagesBefore.in,
      natsMessagesOut: messagesAfter.out - messagesBefore.out,
      logMessages: storedAfter.log - storedBefore.log,
      historyMessages: storedAfter.history - storedBefore.history,
    };
  } finally {
    file.remove();
  }
}

async function single(seconds: number): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), "hcd-bench-single-"));
  const server = await startHcd({ dataDir: dir, env: {} });
  try {
    const paths = await fill(server.url);
    return await load([server], paths, seconds, [], "single node");
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function cluster(seconds: number, partitions: number): Promise<Run> {
  const nats = await startNatsCluster({ size: 3, goMaxProcs: NATS_PROCS });
  const dirs = [0, 1, 2].map(() => mkdtempSync(join(tmpdir(), "hcd-bench-node-")));
  const servers: ServerProcess[] = [];
  try {
    for (let i = 0; i < 3; i++) {
      const profiled = profileDir !== null && i === 0;
      servers.push(
        await startHcd({
          dataDir: dirs[i],
          nodeArgs: profiled ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [],
          env: {
            NATS_URL: [...nats.urls.slice(i), ...nats.urls.slice(0, i)].join(","),
            NODE_ID: `node${i}`,
            CLUSTER_PARTITIONS: String(partitions),
            CLUSTER_REPLICAS: "3",
            SITE_ROOT: "http://hcd.bench",
            CLUSTER_SNAPSHOT_EVERY: String(SNAPSHOT_EVERY),
          },
        }),
      );
    }
    const paths = await fill(servers[0].url);
    return await load(servers, paths, seconds, nats.servers, `3 nodes + 3 NATS servers, ${partitions} partitions`);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await nats.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Three replicated bare servers, each on its own NATS server first, as the cluster's nodes are; with
 * `sharedRead`, publishing into one stream that each reads all of, as hcd's nodes do the intake stream.
 */
async function replicatedBare(seconds: number, sharedRead: boolean): Promise<Run> {
  const nats = await startNatsCluster({ size: 3, goMaxProcs: NATS_PROCS });
  const servers: ServerProcess[] = [];
  try {
    for (let i = 0; i < 3; i++)
      servers.push(await startReplicatedBare([...nats.urls.slice(i), ...nats.urls.slice(0, i)].join(","), String(i), sharedRead));
    const paths = Array.from(
      { length: PROJECTS * CHECKS_PER_PROJECT },
      (_, i) => `/ping/00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    );
    return await load(servers, paths, seconds, nats.servers, sharedRead ? SHARED_READ_SETUP : "3 replicated bare + 3 NATS servers");
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await nats.close();
  }
}

if (spawnSync("sh", ["-c", "command -v nats-server"]).status !== 0) {
  console.error("cluster bench: nats-server is not installed (apt-get install nats-server)");
  process.exit(2);
}
const seconds = Number(process.argv[2] ?? 10);
const rounds = Number(process.argv[3] ?? 2);
const runsOf = new Map(PARTITION_COUNTS.map((partitions) => [partitions, [] as Run[]]));
const singleRuns: Run[] = [],
  bareRuns: Run[] = [],
  sharedReadRuns: Run[] = [];
const SHARED_READ_SETUP = "3 replicated bare, one stream all read + 3 NATS servers";
for (let round = 0; round < rounds; round++) {
  for (const [partitions, runs] of runsOf) {
    runs.push(await cluster(seconds, partitions));
    process.stderr.write(
      `  cluster, ${partitions} partitions: ${Math.round(runs.at(-1)!.perSecond)} pings/s, p99 ${runs.at(-1)!.p99Ms} ms\n`,
    );
  }
  bareRuns.push(await replicatedBare(seconds, false));
  process.stderr.write(`  replicated bare: ${Math.round(bareRuns.at(-1)!.perSecond)} pings/s, p99 ${bareRuns.at(-1)!.p99Ms} ms\n`);
  sharedReadRuns.push(await replicatedBare(seconds, true));
  process.stderr.write(
    `  replicated bare, one stream read by all: ${Math.round(sharedReadRuns.at(-1)!.perSecond)} pings/s, p99 ${sharedReadRuns.at(-1)!.p99Ms} ms\n`,
  );
  singleRuns.push(await single(seconds));
  process.stderr.write(`  single: ${Math.round(singleRuns.at(-1)!.perSecond)} pings/s, p99 ${singleRuns.at(-1)!.p99Ms} ms\n`);
}
const med = (runs: Run[], key: "perSecond" | "p50Ms" | "p99Ms" | "serverCpuSeconds") => median(runs.map((r) => r[key]));
const perPing = (r: Run, count: number, digits = 1) => (count / (r.perSecond * r.seconds)).toFixed(digits);
const cpuPerPing = (runs: Run[]) => median(runs.map((r) => (r.serverCpuSeconds * 1e6) / (r.perSecond * r.seconds)));
/** The targets, for the runs of one partition count (judged only on the first count asked for). */
const clusterFigures = (partitions: number, clusterRuns: Run[], judged: boolean): Figure[] => {
  const of = (what: string) => (PARTITION_COUNTS.length === 1 ? what : `${what}, ${partitions} partitions`);
  const target = (t: NonNullable<Figure["target"]>) => (judged ? { target: t } : {});
  return [
    {
      scenario: "cluster",
      figure: of("pings/s through 3 nodes (R3)"),
      value: med(clusterRuns, "perSecond"),
      unit: "pings/s",
      baseline: { value: med(singleRuns, "perSecond"), label: "single node" },
      ...target({ op: ">=", value: 0.3, on: "ratio" }),
    },
    {
      scenario: "cluster",
      figure: of("p99 ms through 3 nodes (R3)"),
      value: med(clusterRuns, "p99Ms"),
      unit: "ms",
      baseline: { value: med(singleRuns, "p99Ms"), label: "single node" },
      ...target({ op: "<=", value: 3, on: "ratio" }),
    },
    {
      scenario: "cluster",
      figure: of("p99 ms through 3 nodes (R3), at most 50 ms"),
      value: med(clusterRuns, "p99Ms"),
      unit: "ms",
      baseline: { value: med(singleRuns, "p99Ms"), label: "single node" },
      ...target({ op: "<=", value: 50, on: "value" }),
    },
    {
      scenario: "cluster",
      figure: of("server CPU µs per ping, 3 nodes + NATS"),
      value: cpuPerPing(clusterRuns),
      unit: "µs",
      baseline: { value: cpuPerPing(singleRuns), label: "single node" },
      ...target({ op: "<=", value: 3, on: "ratio" }),
    },
  ];
};
const figures: Figure[] = [
  ...[...runsOf].flatMap(([partitions, runs], i) => clusterFigures(partitions, runs, i === 0)),
  // the limit: what the least replicated server reaches on the same machine, against the same baseline
  {
    scenario: "cluster",
    figure: "limit: pings/s through 3 replicated bare servers (R3)",
    value: med(bareRuns, "perSecond"),
    unit: "pings/s",
    baseline: { value: med(singleRuns, "perSecond"), label: "single node" },
  },
  {
    scenario: "cluster",
    figure: "limit: p99 ms through 3 replicated bare servers (R3)",
    value: med(bareRuns, "p99Ms"),
    unit: "ms",
    baseline: { value: med(singleRuns, "p99Ms"), label: "single node" },
  },
  {
    scenario: "cluster",
    figure: "limit: server CPU µs per ping, 3 replicated bare + NATS",
    value: cpuPerPing(bareRuns),
    unit: "µs",
    baseline: { value: cpuPerPing(singleRuns), label: "single node" },
  },
  // the limit of a cluster whose nodes read one shared intake stream: the same, every server reading it all
  {
    scenario: "cluster",
    figure: "limit: pings/s, 3 replicated bare, one stream all read",
    value: med(sharedReadRuns, "perSecond"),
    unit: "pings/s",
    baseline: { value: med(singleRuns, "perSecond"), label: "single node" },
  },
  {
    scenario: "cluster",
    figure: "limit: p99 ms, 3 replicated bare, one stream all read",
    value: med(sharedReadRuns, "p99Ms"),
    unit: "ms",
    baseline: { value: med(singleRuns, "p99Ms"), label: "single node" },
  },
  {
    scenario: "cluster",
    figure: "limit: server CPU µs per ping, 3 replicated bare, one stream all read",
    value: cpuPerPing(sharedReadRuns),
    unit: "µs",
    baseline: { value: cpuPerPing(singleRuns), label: "single node" },
  },
];
const details = [
  ...(profileDir === null ? [] : ["PROFILED (--cpu-prof on the first cluster node): the cluster's figures are lower than usual.", ""]),
  `${PROJECTS} projects × ${CHECKS_PER_PROJECT} checks, GET pings, ${CONNECTIONS} connections in total (shared out over the nodes), ${seconds} s per run after ${WARMUP_SECONDS} s of the same load unmeasured, ${rounds} rounds, the setups taking turns; every process on this machine, each nats-server's Go runtime on ${NATS_PROCS ?? "every"} core${NATS_PROCS === 1 ? "" : "s"} (HCD_BENCH_NATS_PROCS). "of it hcd" is the replicated bare servers' CPU in their rows, and their streams' messages count as log messages.`,
  "",
  "| setup | pings/s | p50 | p99 | failures | server CPU µs per ping | of it hcd | of it NATS | NATS messages in per ping | out per ping | log / history messages stored per ping |",
  "|---|---|---|---|---|---|---|---|---|---|---|",
  ...[...[...runsOf.values()].flat(), ...bareRuns, ...sharedReadRuns, ...singleRuns].map((r) => {
    const per = (cpu: number) => Math.round((cpu * 1e6) / (r.perSecond * r.seconds));
    return `| ${r.setup} | ${Math.round(r.perSecond).toLocaleString("en")} | ${r.p50Ms} ms | ${r.p99Ms} ms | ${r.failures} | ${per(r.serverCpuSeconds)} | ${per(r.hcdCpuSeconds)} | ${per(r.serverCpuSeconds - r.hcdCpuSeconds)} | ${perPing(r, r.natsMessagesIn)} | ${perPing(r, r.natsMessagesOut)} | ${perPing(r, r.logMessages, 2)} / ${perPing(r, r.historyMessages, 2)} |`;
  }),
];
if (profileDir !== null) {
  details.push(...profileDetails(profileDir));
  rmSync(profileDir, { recursive: true, force: true });
}
console.log(details.join("\n"));
finishScenario({ scenario: "cluster", figures, details });
