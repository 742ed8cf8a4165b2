// The JetStream command log's append throughput and latency: records/s and p50/p99 of one append (a batch
// of records, every record fenced, all in flight at once, resolved when the last PubAck is back) through a
// three-server JetStream cluster (R3: a quorum of two holds each record before it is acknowledged) against
// one server alone (R1), same run, same machine. The servers and this process share the machine's cores.
// Run: npm run -s build && node dist/bench/cluster-log.bench.js [secondsPerVariant, default 3]
import { spawnSync } from "node:child_process";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { JetStreamLog } from "../cluster/jetstream-log.ts";
import { startNatsCluster } from "../test/stress/nats-cluster.ts";
import { median, percentile } from "./measure.ts";
import { finishScenario } from "./report.ts";
import type { Figure } from "./report.ts";

const RECORD_BYTES = 200; // about an encoded ping command with a short body
type Variant = { readonly name: string; readonly batch: number; readonly partitions: number };
const VARIANTS: readonly Variant[] = [
  { name: "batch 1", batch: 1, partitions: 1 },
  { name: "batch 64", batch: 64, partitions: 1 },
  { name: "batch 512", batch: 512, partitions: 1 },
  { name: "batch 64 × 4 partitions", batch: 64, partitions: 4 },
];
type Row = { setup: string; variant: string; records: number; recordsPerSec: number; p50Ms: number; p99Ms: number };

async function runSetup(size: 1 | 3, seconds: number): Promise<Row[]> {
  const cluster = await startNatsCluster({ size });
  let nc: NatsConnection | null = null;
  try {
    nc = await connect({ servers: cluster.urls });
    const rows: Row[] = [];
    let nextPartition = 0;
    for (const variant of VARIANTS) {
      const logs = await Promise.all(
        Array.from({ length: variant.partitions }, () =>
          JetStreamLog.open({ connection: nc!, partition: nextPartition++, replicas: size, ackTimeoutMs: 10_000 }),
        ),
      );
      for (const log of logs) await log.fence();
      const record = new Uint8Array(RECORD_BYTES).fill(97);
      const batch = Array.from({ length: variant.batch }, () => record);
      const latencies: number[] = [];
      let records = 0;
      // a short warm-up, not measured
      for (const log of logs) await log.append(batch);
      const started = performance.now(),
        until = started + seconds * 1000;
      // one append in flight per partition at a time, as an owner appends one batch per turn
      const perLog = await Promise.all(
        logs.map(async (log) => {
          let appended = 0;
          while (performance.now() < until) {
            const t0 = performance.now();
            await log.append(batch);
            latencies.push(performance.now() - t0);
            appended += batch.length;
          }
          return appended;
        }),
      );
      records = perLog.reduce((a, b) => a + b, 0);
      const elapsed = (performance.now() - started) / 1000;
      // a bench of a log that lost records measures nothing: the last one's position must be the count
      for (const [i, log] of logs.entries()) {
        const last = await log.lastPosition(),
          expected = 1 + variant.batch + perLog[i]; // the fence, the warm-up, the measured
        if (last !== expected) throw new Error(`${log.stream}: last position ${last}, expected ${expected}`);
      }
      const sorted = latencies.sort((a, b) => a - b);
      rows.push({
        setup: size === 3 ? "3 servers, R3" : "1 server, R1",
        variant: variant.name,
        records,
        recordsPerSec: records / elapsed,
        p50Ms: median(sorted),
        p99Ms: percentile(sorted, 99),
      });
      process.stderr.write(`  ${rows.at(-1)!.setup}, ${variant.name}: ${Math.round(rows.at(-1)!.recordsPerSec)} records/s\n`);
    }
    return rows;
  } finally {
    await nc?.close();
    await cluster.close();
  }
}

if (spawnSync("sh", ["-c", "command -v nats-server"]).status !== 0) {
  console.error("cluster-log bench: nats-server is not installed (apt-get install nats-server)");
  process.exit(2);
}
const seconds = Number(process.argv[2] ?? 3);
const ROUNDS = 3;
// the setups take turns (3, 1, 3, 1, ...) so that a change in the machine's load falls on both; each
// figure is the median over the rounds
const threeRounds: Row[][] = [],
  oneRounds: Row[][] = [];
for (let round = 0; round < ROUNDS; round++) {
  threeRounds.push(await runSetup(3, seconds));
  oneRounds.push(await runSetup(1, seconds));
}
const medianRows = (rounds: Row[][]): Row[] =>
  rounds[0].map((first, i) => ({
    ...first,
    records: median(rounds.map((r) => r[i].records)),
    recordsPerSec: median(rounds.map((r) => r[i].recordsPerSec)),
    p50Ms: median(rounds.map((r) => r[i].p50Ms)),
    p99Ms: median(rounds.map((r) => r[i].p99Ms)),
  }));
const three = medianRows(threeRounds),
  one = medianRows(oneRounds);
const row = (rows: Row[], variant: string) => rows.find((r) => r.variant === variant)!;
const figures: Figure[] = VARIANTS.flatMap((v) => [
  {
    scenario: "cluster-log",
    figure: `records/s, ${v.name}, 3 servers R3`,
    value: row(three, v.name).recordsPerSec,
    unit: "records/s",
    baseline: { value: row(one, v.name).recordsPerSec, label: "1 server R1" },
  },
  {
    scenario: "cluster-log",
    figure: `p99 append ms, ${v.name}, 3 servers R3`,
    value: row(three, v.name).p99Ms,
    unit: "ms",
    baseline: { value: row(one, v.name).p99Ms, label: "1 server R1" },
  },
]);
const details = [
  `${RECORD_BYTES}-byte records; an append is one batch, each record fenced on the expected last sequence, all in flight at once; ${seconds} s per variant; one append in flight per partition; medians of ${ROUNDS} rounds, the setups taking turns.`,
  "",
  "| setup | variant | records | records/s | append p50 | append p99 |",
  "|---|---|---|---|---|---|",
  ...[...three, ...one].map(
    (r) =>
      `| ${r.setup} | ${r.variant} | ${r.records.toLocaleString("en")} | ${Math.round(r.recordsPerSec).toLocaleString("en")} | ${r.p50Ms.toFixed(2)} ms | ${r.p99Ms.toFixed(2)} ms |`,
  ),
];
console.log(details.join("\n"));
finishScenario({ scenario: "cluster-log", figures, details });
