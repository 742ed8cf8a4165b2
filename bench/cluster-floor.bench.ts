// What the messages a cluster ping needs cost on this machine by themselves, with no hcd: an acknowledged
// publish into an R3 stream (what a log or history message is) and a request answered through another
// server (what a ping forwarded to its partition's owner is), each with 30 in flight as the cluster
// bench's 30 connections have, on the same three nats-server processes the cluster bench starts. The
// figures are the NATS servers' CPU and this client's CPU per message; with the messages per ping the
// cluster bench counts, they are the floor under a cluster ping's cost that no change inside hcd removes.
// Run: npm run -s build && node dist/bench/cluster-floor.bench.js [secondsPerVariant, default 5] [rounds, default 3]
import { spawnSync } from "node:child_process";
import { jetstream, jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { startNatsCluster } from "../test/stress/nats-cluster.ts";
import type { NatsCluster } from "../test/stress/nats-cluster.ts";
import { cpuSecondsOf, median, natsMessages } from "./measure.ts";
import { benchNatsProcs } from "./servers.ts";

const IN_FLIGHT = 30,
  PAYLOAD_BYTES = 200;
// a cluster of P partitions writes a log stream and a history stream for each: 8 streams for 4, 32 for 16
const STREAM_COUNTS = [1, 4, 8, 32] as const;
const STREAMS = Math.max(...STREAM_COUNTS);
type Variant = string;
const publishVariant = (streams: number) => `R3 publish over ${streams} stream${streams === 1 ? "" : "s"}`;
const REQUEST = "request through another server";
const VARIANTS: readonly Variant[] = [...STREAM_COUNTS.map(publishVariant), REQUEST];
type Row = {
  readonly variant: Variant;
  readonly perSecond: number;
  readonly natsUs: number;
  readonly clientUs: number;
  readonly natsInPerMessage: number;
};

/** CPU seconds a running process has used so far. */
const cpuSeconds = (pid: number): number => cpuSecondsOf(pid) ?? 0;
const natsIn = async (cluster: NatsCluster): Promise<number> => (await natsMessages(cluster.servers.map((s) => s.monitorUrl))).in;

/** Runs `send` closed-loop with IN_FLIGHT at once for `seconds`; returns how many completed. */
async function closedLoop(seconds: number, send: () => Promise<unknown>): Promise<number> {
  const until = performance.now() + seconds * 1000;
  const counts = await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      let n = 0;
      while (performance.now() < until) {
        await send();
        n++;
      }
      return n;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

async function measure(cluster: NatsCluster, variant: Variant, seconds: number, send: () => Promise<unknown>): Promise<Row> {
  const pids = cluster.servers.map((s) => s.pid() ?? 0);
  await closedLoop(0.5, send); // warm-up, not measured
  const natsBefore = pids.map(cpuSeconds),
    clientBefore = process.cpuUsage(),
    inBefore = await natsIn(cluster);
  const started = performance.now();
  const count = await closedLoop(seconds, send);
  const elapsed = (performance.now() - started) / 1000;
  const client = process.cpuUsage(clientBefore),
    inAfter = await natsIn(cluster);
  const nats = pids.map(cpuSeconds).reduce((sum, after, i) => sum + after - natsBefore[i], 0);
  return {
    variant,
    perSecond: count / elapsed,
    natsUs: (nats * 1e6) / count,
    clientUs: (client.user + client.system) / count,
    natsInPerMessage: (inAfter - inBefore) / count,
  };
}

async function round(seconds: number): Promise<Row[]> {
  const cluster = await startNatsCluster({ size: 3, goMaxProcs: benchNatsProcs() });
  const connections: NatsConnection[] = [];
  try {
    // the client beside server 0 (as a node beside its own server); the responder on server 1
    const client = await connect({ servers: cluster.urls[0] }),
      responder = await connect({ servers: cluster.urls[1] });
    connections.push(client, responder);
    const jsm = await jetstreamManager(client);
    for (let i = 0; i < STREAMS; i++) {
      await jsm.streams.add({
        name: `FLOOR_${i}`,
        subjects: [`floor.log.${i}`],
        num_replicas: 3,
        storage: StorageType.File,
        retention: RetentionPolicy.Limits,
      });
    }
    const js = jetstream(client),
      payload = new Uint8Array(PAYLOAD_BYTES).fill(97),
      answer = new Uint8Array(16);
    responder.subscribe("floor.rpc", {
      callback: (_error, message) => {
        message.respond(answer);
      },
    });
    await responder.flush();
    const rows: Row[] = [];
    let next = 0;
    const sends = new Map<Variant, () => Promise<unknown>>([
      ...STREAM_COUNTS.map((n) => [publishVariant(n), () => js.publish(`floor.log.${next++ % n}`, payload)] as const),
      [REQUEST, () => client.request("floor.rpc", payload, { timeout: 10_000 })],
    ]);
    for (const variant of VARIANTS) {
      rows.push(await measure(cluster, variant, seconds, sends.get(variant)!));
      process.stderr.write(`  ${variant}: ${Math.round(rows.at(-1)!.perSecond)}/s, NATS ${Math.round(rows.at(-1)!.natsUs)} µs\n`);
    }
    return rows;
  } finally {
    await Promise.all(connections.map((nc) => nc.close()));
    await cluster.close();
  }
}

if (spawnSync("sh", ["-c", "command -v nats-server"]).status !== 0) {
  console.error("cluster-floor bench: nats-server is not installed (apt-get install nats-server)");
  process.exit(2);
}
const seconds = Number(process.argv[2] ?? 5),
  rounds = Number(process.argv[3] ?? 3);
const all: Row[][] = [];
for (let r = 0; r < rounds; r++) all.push(await round(seconds));
const lines = [
  `Three nats-server processes (R3), one client beside server 0, ${IN_FLIGHT} in flight, ${PAYLOAD_BYTES}-byte messages, ${seconds} s per variant, medians of ${rounds} rounds.`,
  "",
  "| message | per second | NATS servers' CPU µs per message | client CPU µs per message | NATS messages in per message |",
  "|---|---|---|---|---|",
  ...VARIANTS.map((variant) => {
    const of = (key: "perSecond" | "natsUs" | "clientUs" | "natsInPerMessage") =>
      median(all.map((rows) => rows.find((r) => r.variant === variant)![key]));
    return `| ${variant} | ${Math.round(of("perSecond")).toLocaleString("en")} | ${Math.round(of("natsUs"))} | ${Math.round(of("clientUs"))} | ${of("natsInPerMessage").toFixed(1)} |`;
  }),
];
console.log(lines.join("\n"));
