// Two nodes' partitions on a real three-server JetStream cluster, on the real clock: node X owns all four
// partitions, takes a check's creation and a ping, then freezes (stops renewing and advancing, releases
// nothing). Node Y, which refused the project's commands while X owned its partition, gains the
// partitions once X's leases run out and takes them over. The check fell due while no node served its
// partition: Y holds it, and flips it down once its grace has passed since the takeover, once (CONTRACT
// "hcd's own downtime and clock"); X's commands are refused from then on. And a node that hands
// partitions over to one that joins frees them: memory follows ownership.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import type { Flip } from "../../engine/model.ts";
import { PartitionNode } from "../../cluster/partition-node.ts";
import { NotOwnerError } from "../../cluster/partition-replica.ts";
import { partitionOf } from "../../cluster/partitions.ts";
import { haveProgram } from "../ops/extras.ts";
import { project } from "../helpers.ts";
import { startNatsCluster } from "./nats-cluster.ts";

const HAVE_NATS = haveProgram("nats-server", "cluster nodes taking over partitions on a JetStream cluster");
const PARTITIONS = 4;

/** Resolves once `ready()` is true, polling; rejects with `what` after `timeoutMs`. */
async function until(ready: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const limit = Date.now() + timeoutMs;
  while (!ready()) {
    if (Date.now() > limit) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test("a frozen node's partitions are taken over by another, which judges a deadline that fell meanwhile a grace after the takeover", async () => {
  if (!HAVE_NATS) return;
  const cluster = await startNatsCluster({ size: 3 });
  const connections: NatsConnection[] = [];
  const nodes: PartitionNode[] = [];
  try {
    const tookOver = new Map<string, { at: number; held: number }>(); // "<node> <partition>" → when its takeover ended, and what it held
    const open = async (name: string, first: number, flips: Flip[]) => {
      const servers = [...cluster.urls.slice(first), ...cluster.urls.slice(0, first)];
      const nc = await connect({ servers, noRandomize: true, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
      connections.push(nc);
      const node = await PartitionNode.open({
        connection: nc,
        node: name,
        partitionCount: PARTITIONS,
        replicas: 3,
        replica: { snapshotEvery: 1_000, onApplied: (applied) => flips.push(...applied.changes.flips) },
        onTakeover: (partition, report) => {
          tookOver.set(`${name} ${partition}`, { at: Date.now(), held: report.held });
        },
      });
      nodes.push(node);
      return node;
    };
    const flipsOfX: Flip[] = [],
      flipsOfY: Flip[] = [];
    const x = await open("x", 0, flipsOfX);
    x.start();
    await until(() => x.ready().length === PARTITIONS, "x owns and has taken over every partition");

    const owner = project({ id: "00000000-0000-4000-8000-0000000000bb", createdAt: Date.now() });
    const y = await open("y", 1, flipsOfY);
    const refused = await y.submit(owner.id, { kind: "createProject", project: owner, at: owner.createdAt }).then(
      () => null,
      (error: unknown) => error,
    );
    assert.instance(refused, NotOwnerError, "y refuses a partition it does not own");

    await x.submit(owner.id, { kind: "createProject", project: owner, at: owner.createdAt });
    const { result } = await x.submit(owner.id, {
      kind: "createCheck",
      projectId: owner.id,
      spec: { name: "job", timeoutMs: 2_000, graceMs: 1_000 },
      unique: [],
      at: Date.now(),
    });
    assert.ok(result.ok);
    const uuid = result.value.check.uuid;
    const pingAt = Date.now();
    await x.submit(owner.id, {
      kind: "ping",
      ping: {
        target: { uuid },
        signal: "success",
        exitStatus: null,
        method: "GET",
        scheme: "http",
        remoteAddr: "127.0.0.1",
        ua: "",
        rid: null,
        body: null,
        at: pingAt,
      },
    });
    const dueAt = pingAt + 3_000;

    x.pause(); // frozen: no renewals, no advances, nothing released
    const frozenAt = Date.now();
    y.start();
    const partition = partitionOf(owner.id, PARTITIONS);
    await until(() => y.ready().includes(partition), `y takes partition ${partition} over`);
    const tookMs = Date.now() - frozenAt;
    await until(() => flipsOfY.some((f) => f.checkUuid === uuid && f.to === "down"), "y flips the check down");

    const down = flipsOfY.filter((f) => f.checkUuid === uuid && f.to === "down");
    assert.is(down.length, 1, "down once");
    const takeover = tookOver.get(`y ${partition}`);
    assert.is(takeover?.held, 1, "y held the check that fell due while the partition had no owner");
    // the takeover's instant is between x's freeze and the end of y's takeover; the flip a grace (1 s) after it
    assert.ok(
      dueAt < frozenAt + 3_000 && down[0].at - 1_000 >= frozenAt && down[0].at - 1_000 <= takeover!.at,
      `down at ping + ${down[0].at - pingAt} ms, not a grace after the takeover (froze at ping + ${frozenAt - pingAt}, took over by ping + ${takeover!.at - pingAt})`,
    );
    assert.equal(
      flipsOfX.filter((f) => f.checkUuid === uuid && f.to === "down"),
      [],
      "x, frozen, never flipped it",
    );
    const check = y.read(owner.id, (shard) => shard.getCheck(owner.id, uuid));
    assert.ok(check.ok);
    assert.equal([check.value.status, check.value.nPings], ["down", 1]);

    const late = await x.submit(owner.id, { kind: "advance", at: Date.now() }).then(
      () => null,
      (error: unknown) => error,
    );
    assert.ok(late instanceof Error, "x's commands are refused once its leases ran out");
    console.log(
      `  partition ${partition} taken over by y ${tookMs} ms after x froze; down flip at ping + ${down[0].at - pingAt} ms; x refused with ${late.name}`,
    );
  } finally {
    for (const node of nodes) node.pause();
    await Promise.all(connections.map((nc) => nc.close().catch(() => {})));
    await cluster.close();
  }
});

test("a partition whose lease lapsed for a moment during its takeover is taken over again once the lease is renewed", async () => {
  if (!HAVE_NATS) return;
  const cluster = await startNatsCluster({ size: 3 });
  const nc = await connect({ servers: cluster.urls, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  let node: PartitionNode | null = null;
  try {
    // The node's clock jumps 5.7 s ahead while its first takeover runs (as a stalled event loop or slow
    // renewals would look): its 6 s leases are then within the 0.5 s margin of running out, so the node stops
    // counting itself owner and gives that takeover up. Its next round renews the leases, still its own, and
    // announces no new gain: the partitions must be taken over again all the same.
    let jump = 0,
      jumped = 0;
    node = await PartitionNode.open({
      connection: nc,
      node: "x",
      partitionCount: PARTITIONS,
      replicas: 3,
      clock: () => Date.now() + jump,
      prepare: async () => {
        if (jumped++ === 0) jump = 5_700;
        return {};
      },
    });
    node.start();
    await until(() => node!.ready().length === PARTITIONS, "x serves every partition after the lapse", 30_000);
    assert.is(jumped, PARTITIONS, "each partition's replica was opened once");
    const owner = project({ id: "00000000-0000-4000-8000-0000000000cc", createdAt: Date.now() });
    await node.submit(owner.id, { kind: "createProject", project: owner, at: owner.createdAt });
    assert.ok(
      node.read(owner.id, (shard) => shard.projects().some((p) => p.id === owner.id)),
      "the partition takes commands again",
    );
  } finally {
    node?.pause();
    await nc.close().catch(() => {});
    await cluster.close();
  }
});

test("a node that hands partitions over to a node that joins frees their shards: each holds its share", async () => {
  if (!HAVE_NATS) return;
  const cluster = await startNatsCluster({ size: 3 });
  const connections: NatsConnection[] = [];
  const nodes: PartitionNode[] = [];
  try {
    const open = async (name: string) => {
      const nc = await connect({ servers: cluster.urls, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
      connections.push(nc);
      const node = await PartitionNode.open({ connection: nc, node: name, partitionCount: PARTITIONS, replicas: 3 });
      nodes.push(node);
      node.start();
      return node;
    };
    const x = await open("x");
    await until(() => x.ready().length === PARTITIONS, "x serves every partition");
    assert.equal(x.held(), [0, 1, 2, 3]);
    const y = await open("y");
    await until(() => y.ready().length === PARTITIONS / 2 && x.held().length === PARTITIONS / 2, "x hands half to y and frees it");
    assert.equal([...x.held(), ...y.held()].sort(), [0, 1, 2, 3], "each partition held by one node");
    assert.equal(x.held(), x.ready(), "x holds only what it serves");
  } finally {
    for (const node of nodes) node.pause();
    await Promise.all(connections.map((nc) => nc.close().catch(() => {})));
    await cluster.close();
  }
});

test.run();
