// The JetStream command log against a real three-server JetStream cluster (Debian's nats-server):
// acknowledged appends survive the SIGKILL of the stream's leader and read back in order, even through the
// server that just came back (whose stream info may still be stale); a writer deposed by a newer one is
// refused; with two of three servers down an append rejects instead of resolving; truncateBelow lets old
// records go.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { managerOf } from "../../cluster/jetstream-setup.ts";
import { FencedError, JetStreamLog } from "../../cluster/jetstream-log.ts";
import { haveProgram } from "../ops/extras.ts";
import type { NatsCluster } from "./nats-cluster.ts";
import { retryUntil, startNatsCluster } from "./nats-cluster.ts";

const HAVE_NATS = haveProgram("nats-server", "cluster command log on a JetStream cluster");
const encode = (text: string) => new TextEncoder().encode(text);
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

async function withCluster(run: (cluster: NatsCluster, connection: () => Promise<NatsConnection>) => Promise<void>) {
  const cluster = await startNatsCluster({ size: 3 });
  const connections: NatsConnection[] = [];
  const connection = async (servers: string[] = cluster.urls) => {
    const nc = await connect({ servers, maxReconnectAttempts: -1, reconnectTimeWait: 250, pingInterval: 2_000 });
    connections.push(nc);
    return nc;
  };
  try {
    await run(cluster, () => connection());
  } finally {
    await Promise.all(connections.map((nc) => nc.close().catch(() => {})));
    await cluster.close();
  }
}

async function readAll(log: JetStreamLog, from = 0): Promise<{ position: number; text: string }[]> {
  const out: { position: number; text: string }[] = [];
  for await (const record of log.readFrom(from)) out.push({ position: record.position, text: decode(record.bytes) });
  return out;
}

/** Retries until the cluster answers (nats-cluster.ts retryUntil), for at most 30,000 ms. */
const eventually = <T>(attempt: () => Promise<T>): Promise<T> => retryUntil(attempt, { timeoutMs: 30_000, everyMs: 200 });

/** Index of the server that leads the stream now. */
async function streamLeader(cluster: NatsCluster, nc: NatsConnection, stream: string): Promise<number> {
  const info = await (await managerOf(nc)).streams.info(stream);
  const index = cluster.servers.findIndex((s) => s.name === info.cluster?.leader);
  assert.ok(index >= 0, `leader ${info.cluster?.leader}`);
  return index;
}

test("acknowledged appends survive the SIGKILL of the stream leader and read back in order", async () => {
  if (!HAVE_NATS) return;
  await withCluster(async (cluster, connection) => {
    const nc = await connection();
    const log = await JetStreamLog.open({ connection: nc, partition: 7, replicas: 3, ackTimeoutMs: 3_000 });
    assert.is((await (await managerOf(nc)).streams.info(log.stream)).config.num_replicas, 3);
    await log.fence();
    const acknowledged: { position: number; text: string }[] = [];
    let refused = 0;
    const appendBatch = async (batch: number) => {
      const texts = Array.from({ length: 50 }, (_, i) => `b${batch}-r${i}`);
      for (;;) {
        try {
          const positions = await log.append(texts.map(encode));
          positions.forEach((position, i) => acknowledged.push({ position, text: texts[i] }));
          return;
        } catch {
          refused += 1; // a batch in flight while the leader died: fence again once a new leader answers, and resend
          await eventually(() => log.fence());
        }
      }
    };
    for (let batch = 0; batch < 10; batch++) await appendBatch(batch);
    const leader = await eventually(() => streamLeader(cluster, nc, log.stream));
    // the leader dies with acknowledged records and a batch in flight
    const inFlight = appendBatch(10);
    await cluster.stop(leader, "SIGKILL");
    await inFlight;
    for (let batch = 11; batch < 20; batch++) await appendBatch(batch);
    // stream info needs the cluster's API to answer; a meta leader election after the kill may still be running
    const newLeader = await eventually(() => streamLeader(cluster, nc, log.stream));
    assert.is.not(newLeader, leader);
    await cluster.restart(leader);

    // read through the server that just came back, while it may still be catching up: the read must still
    // reach the end the leader knows (a request that times out while its routes come up is retried)
    const read = await eventually(async () => {
      const throughReturned = await connect({ servers: [cluster.servers[leader].url] });
      return readAll(await JetStreamLog.open({ connection: throughReturned, partition: 7, replicas: 3 })).finally(() =>
        throughReturned.close(),
      );
    });
    const positions = read.map((r) => r.position);
    assert.ok(
      positions.every((p, i) => i === 0 || p > positions[i - 1]),
      "positions strictly increase",
    );
    const stored = new Map(read.map((r) => [r.position, r.text]));
    const lost = acknowledged.filter((a) => stored.get(a.position) !== a.text);
    const summary = () =>
      `${lost.length} of ${acknowledged.length} acknowledged records not at their position (first ${JSON.stringify(lost[0])}, stored there: ${stored.get(lost[0]?.position)}); read ${read.length}, positions ${positions[0]}..${positions.at(-1)}`;
    assert.is(lost.length, 0, summary());
    assert.is(acknowledged.length, 20 * 50);
    // acknowledged records are in append order: batch by batch, record by record
    const order = acknowledged
      .slice()
      .sort((a, b) => a.position - b.position)
      .map((a) => a.text);
    assert.equal(
      order,
      acknowledged.map((a) => a.text),
    );
    console.log(
      `  ${acknowledged.length} acknowledged, ${read.length} stored (resent after a refusal: ${refused} batches), leader ${cluster.servers[leader].name} → ${cluster.servers[newLeader].name}`,
    );
  });
});

test("a deposed writer's append is refused (fencing on the expected last sequence)", async () => {
  if (!HAVE_NATS) return;
  await withCluster(async (_cluster, connection) => {
    const old = await JetStreamLog.open({ connection: await connection(), partition: 1, replicas: 3 });
    await old.fence();
    assert.equal(await old.append([encode("a1"), encode("a2")]), [2, 3]);

    const current = await JetStreamLog.open({ connection: await connection(), partition: 1, replicas: 3 });
    assert.is(await current.fence(), 4, "the new writer's marker follows the old writer's records");
    // before the new writer has appended anything, the old one is already refused
    assert.instance(
      await old.append([encode("a3")]).then(
        () => null,
        (error: unknown) => error,
      ),
      FencedError,
    );
    assert.is(old.fenced, false);
    assert.equal(await current.append([encode("b1")]), [5]);
    // a whole pipelined batch from the deposed writer is refused too, once it fences no more
    assert.instance(
      await old.append([encode("a4"), encode("a5")]).then(
        () => null,
        (error: unknown) => error,
      ),
      FencedError,
    );
    assert.equal(
      (await readAll(current)).map((r) => r.text),
      ["a1", "a2", "b1"],
    );
  });
});

test("with two of three servers down an append rejects instead of resolving, and works again after they return", async () => {
  if (!HAVE_NATS) return;
  await withCluster(async (cluster, connection) => {
    const nc = await connection();
    const log = await JetStreamLog.open({ connection: nc, partition: 3, replicas: 3, ackTimeoutMs: 2_000 });
    await log.fence();
    const [before] = await log.append([encode("before")]);
    const survivor = await eventually(() => streamLeader(cluster, nc, log.stream));
    const others = [0, 1, 2].filter((i) => i !== survivor);
    await Promise.all(others.map((i) => cluster.stop(i, "SIGTERM")));
    let outcome = "resolved";
    await log.append([encode("no quorum")]).catch((error: Error) => {
      outcome = `rejected: ${error.message}`;
    });
    assert.match(outcome, /^rejected/, "an append without a quorum must not resolve");
    assert.is(log.fenced, false);
    console.log(`  no quorum: ${outcome}`);

    await Promise.all(others.map((i) => cluster.restart(i))); // both back at once (see cluster-history.stress.ts)
    await eventually(() => log.fence());
    const [after] = await log.append([encode("after")]);
    const texts = new Map((await readAll(log)).map((r) => [r.position, r.text]));
    assert.is(texts.get(before), "before");
    assert.is(texts.get(after), "after");
  });
});

test("truncateBelow lets the records below a position go; later ones stay and appends go on", async () => {
  if (!HAVE_NATS) return;
  await withCluster(async (_cluster, connection) => {
    const log = await JetStreamLog.open({ connection: await connection(), partition: 0, replicas: 3 });
    await log.fence();
    const positions = await log.append(Array.from({ length: 100 }, (_, i) => encode(`r${i}`)));
    await log.truncateBelow(positions[60]);
    const kept = await readAll(log);
    assert.equal(
      kept.map((r) => r.text),
      Array.from({ length: 40 }, (_, i) => `r${i + 60}`),
    );
    assert.is(kept[0].position, positions[60]);
    assert.equal(
      (await readAll(log, positions[90])).map((r) => r.text),
      Array.from({ length: 10 }, (_, i) => `r${i + 90}`),
    );
    assert.equal(await log.append([encode("next")]), [positions[99] + 1]);
    assert.equal(
      (await readAll(log, positions[99] + 1)).map((r) => r.text),
      ["next"],
    );
  });
});

test.run();
