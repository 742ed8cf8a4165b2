// A partition's fence names the lease it was taken under, and a node reads its lease again right before
// fencing: one whose lease another node wrote since it claimed it (it was paused, or its clock is
// behind) does not take the log back. One real nats-server; a node of one partition.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import { managerOf } from "../../cluster/jetstream-setup.ts";
import { encodeLease, newLease } from "../../cluster/leases.ts";
import { PartitionNode } from "../../cluster/partition-node.ts";
import { withNatsServer } from "./held-appends.ts";

const LEASE_STREAM = "KV_hcd-owner-0",
  LEASE_SUBJECT = "$KV.hcd-owner-0.owner",
  LOG_STREAM = "HCD_LOG_0";
// one round in the test's time: the lease's revision is the claim's
const ROUNDS = { leaseMs: 60_000, renewEveryMs: 30_000, advanceEveryMs: 60_000 };

async function leaseRevision(nc: NatsConnection): Promise<number> {
  return (await (await managerOf(nc)).streams.getMessage(LEASE_STREAM, { last_by_subj: LEASE_SUBJECT }))!.seq;
}

test("the fence marker names the node and the lease revision it was taken under", async () => {
  await withNatsServer("a fence that names its lease", async (connect) => {
    const nc = await connect();
    let markTakenOver = () => {};
    const takenOver = new Promise<void>((resolve) => {
      markTakenOver = resolve;
    });
    const node = await PartitionNode.open({
      connection: nc,
      node: "a",
      partitionCount: 1,
      replicas: 1,
      ...ROUNDS,
      onTakeover: () => markTakenOver(),
    });
    node.start();
    try {
      await takenOver;
      const marker = await (await managerOf(nc)).streams.getMessage(LOG_STREAM, { seq: 1 });
      assert.is(marker?.header?.get("Hcd-Fence-Node"), "a");
      assert.is(marker?.header?.get("Hcd-Fence-Lease-Revision"), String(await leaseRevision(nc)));
    } finally {
      await node.stop();
    }
  });
});

test("a node whose lease another wrote after its claim does not fence the log", async () => {
  await withNatsServer("a stale owner kept from fencing", async (connect) => {
    const nc = await connect();
    let markLost = () => {};
    const lost = new Promise<void>((resolve) => {
      markLost = resolve;
    });
    const node = await PartitionNode.open({
      connection: nc,
      node: "a",
      partitionCount: 1,
      replicas: 1,
      leaseMs: 3_000,
      renewEveryMs: 1_000,
      advanceEveryMs: 60_000,
      // between the claim and the takeover, node b claims the partition (a's lease ran out by b's clock)
      prepare: async () => {
        await jetstream(nc).publish(LEASE_SUBJECT, encodeLease(newLease("b", Date.now(), 60_000)), {
          expect: { lastSequence: await leaseRevision(nc) },
        });
        return {};
      },
      onLost: () => markLost(),
    });
    node.start();
    try {
      await lost; // a's next round saw b's lease
      const log = await (await managerOf(nc)).streams.info(LOG_STREAM);
      assert.is(log.state.last_seq, 0, "nothing appended to the log: no fence by a");
      assert.equal(node.ready(), []);
    } finally {
      await node.stop();
    }
  });
});

test.run();
