// The cluster the fault-injection checker runs against: three nats-server processes as one JetStream
// cluster (they don't advertise each other, so a node reaches NATS only through its relays) and three hcd
// nodes, each behind relays to the three servers that a fault can cut or slow. Nodes can be killed and
// started again on their data directory; on failure every process's log is kept and its cluster lines shown.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsConnection } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import { managerOf } from "../../cluster/jetstream-setup.ts";
import { decodeLease } from "../../cluster/leases.ts";
import { tempDir } from "../helpers.ts";
import type { RealServer } from "../security/real-server.ts";
import { startServer, stopServer } from "../security/real-server.ts";
import type { FaultRelay } from "./fault-relay.ts";
import { faultRelay } from "./fault-relay.ts";
import type { NatsCluster } from "./nats-cluster.ts";
import { startNatsCluster } from "./nats-cluster.ts";

export const NODES = ["a", "b", "c"] as const;

export type CheckerCluster = {
  readonly nats: NatsCluster;
  /** Per node, its relays to the three servers (its own server first). */
  readonly relays: readonly (readonly FaultRelay[])[];
  /** The node's current process (the last one started). */
  node(index: number): RealServer;
  /** Starts node `index` (again) on its data directory. */
  start(index: number): Promise<RealServer>;
  /** The node holding partition `partition`'s lease, as the lease key says, or null. */
  ownerOf(partition: number): Promise<string | null>;
  /** Every process started, in order, with a line per exit the test did not cause. */
  unexpectedExits(): string[];
  /** Marks the next exit of node `index` as caused by the test. */
  expectExit(index: number): void;
  /** Writes every process's log to a kept folder and prints their cluster and error lines. */
  reportLogs(): void;
  close(): Promise<void>;
};

/** Records between a partition's snapshots in the checker's cluster (the product's default is 10,000). */
const SNAPSHOT_EVERY = 200;

export async function startCheckerCluster(options: { token: string; partitions: number; siteRoot: string }): Promise<CheckerCluster> {
  const nats = await startNatsCluster({ size: 3, noAdvertise: true });
  const relays = await Promise.all(
    NODES.map((_, i) => Promise.all([0, 1, 2].map((k) => faultRelay({ host: "127.0.0.1", port: nats.servers[(i + k) % 3].clientPort })))),
  );
  const dirs = NODES.map(() => tempDir("hcd-checker-node-"));
  const current: RealServer[] = [];
  const started: { name: string; server: RealServer; expected: boolean }[] = [];
  const unexpected: string[] = [];
  let closing = false;
  const watcher: NatsConnection = await connect({ servers: nats.urls, maxReconnectAttempts: -1, reconnectTimeWait: 250 });

  const start = async (i: number) => {
    const server = await startServer({
      dataDir: dirs[i].path,
      env: {
        NATS_URL: relays[i].map((r) => r.url).join(","),
        NODE_ID: NODES[i],
        ADMIN_TOKEN: options.token,
        SITE_ROOT: options.siteRoot,
        CLUSTER_PARTITIONS: String(options.partitions),
        CLUSTER_REPLICAS: "3",
        API_RATE_LIMIT: "0",
        LOG_LEVEL: "info",
        LOG_FORMAT: "json",
        // snapshots every few hundred records: the held pings are stored in the history, and the log let go,
        // many times in a run, under the faults as well
        CLUSTER_SNAPSHOT_EVERY: String(SNAPSHOT_EVERY),
      },
    });
    const entry = { name: NODES[i], server, expected: false };
    started.push(entry);
    current[i] = server;
    void server.exited.then(({ code, signal }) => {
      if (!entry.expected && !closing)
        unexpected.push(`node ${entry.name} (pid ${server.pid}) exited on its own: code ${code}, signal ${signal}`);
    });
    return server;
  };
  for (let i = 0; i < NODES.length; i++) await start(i);

  return {
    nats,
    relays,
    start,
    node: (i) => current[i],
    ownerOf: async (partition) => {
      const message = await (
        await managerOf(watcher)
      ).streams.getMessage(`KV_hcd-owner-${partition}`, { last_by_subj: `$KV.hcd-owner-${partition}.owner` });
      return message === null ? null : (decodeLease(message.data)?.node ?? null);
    },
    unexpectedExits: () => [...unexpected],
    expectExit: (i) => {
      const entry = [...started].reverse().find((s) => s.server === current[i]);
      if (entry) entry.expected = true;
    },
    reportLogs: () => reportLogs(started),
    close: async () => {
      closing = true;
      for (const server of current) server.child.kill("SIGCONT"); // a paused one can't stop
      await Promise.all(current.map((s) => stopServer(s, 5_000)));
      await watcher.close().catch(() => {});
      for (const r of relays.flat()) r.close();
      await nats.close();
      for (const dir of dirs) dir.remove();
    },
  };
}

/** Who served which partition when, from the test's output alone: the cluster lines and errors of every process. */
function reportLogs(started: { name: string; server: RealServer }[]): void {
  const kept = mkdtempSync(join(tmpdir(), "hcd-cluster-checker-logs-"));
  started.forEach(({ name, server }, i) => {
    const file = join(kept, `${i}-node-${name}.log`);
    writeFileSync(file, server.output());
    console.log(`---- node ${name} (process ${i}, pid ${server.pid}), whole log in ${file}:`);
    for (const line of server.output().split("\n")) {
      let entry: { time?: string; msg?: string; [field: string]: unknown };
      try {
        entry = JSON.parse(line);
      } catch {
        if (line.trim() !== "") console.log(`  ${line.slice(0, 300)}`);
        continue;
      }
      if (!/^cluster:/.test(entry.msg ?? "") && !/error|fail/i.test(entry.msg ?? "")) continue;
      const { time, msg, level: _level, pid: _pid, ...fields } = entry;
      console.log(`  ${time} ${msg} ${JSON.stringify(fields).slice(0, 300)}`);
    }
  });
}
