// Ping batches forwarded per owner node, on a real nats-server with one connection per node: the batches
// of one turn for one node travel as one request and each partition gets its own answer; a partition the
// node does not serve is refused before anything is applied and reaches its owner through the partition's
// subject; a node gone is not waited for. The hosts are stand-ins that count what they apply.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { NatsConnection } from "@nats-io/nats-core";
import { NodeForwarder, nodeSubject, serveNode } from "../../cluster/node-forwarding.ts";
import type { PartitionHost } from "../../cluster/partition-host.ts";
import { PartitionHandle, rpcSubject, servePartition } from "../../cluster/partition-rpc.ts";
import { noResponders } from "../../cluster/nats-errors.ts";
import type { HostRequest } from "../../host/shard-requests.ts";
import { withNatsServer } from "./held-appends.ts";

const BATCH = (n: number): HostRequest => ({ kind: "pingBatch", pings: Array.from({ length: n }, () => ({})) }) as unknown as HostRequest;

/** What the stand-in host answers to a batch of `size` pings: one result a ping, naming the partition. */
const RESULTS = (partition: number, size: number) => Array.from({ length: size }, () => ({ ok: true, value: { partition } }));

/** A host of `partition` that applies (counts) every request and answers RESULTS. */
function host(partition: number) {
  const applied: HostRequest[] = [];
  const stand = {
    partition,
    applyAfter: async (request: HostRequest) => {
      applied.push(request);
      return RESULTS(partition, (request as unknown as { pings: unknown[] }).pings.length);
    },
  };
  return { host: stand as unknown as PartitionHost, applied };
}

/** Counts the messages published on `subject` (as the server routes them), from a connection of its own. */
async function countOn(connection: NatsConnection, subject: string): Promise<() => number> {
  let count = 0;
  connection.subscribe(subject, {
    callback: () => {
      count += 1;
    },
  });
  await connection.flush();
  return () => count;
}

test("the batches of one turn for one node go as one request, and each partition gets its own answer", async () => {
  await withNatsServer("ping batches forwarded per node", async (connect) => {
    const [owner, asker, spy] = [await connect(), await connect(), await connect()];
    const p1 = host(1),
      p2 = host(2);
    serveNode(owner, "b", (partition) => (partition === 1 ? p1.host : partition === 2 ? p2.host : null));
    await owner.flush();
    const requests = await countOn(spy, nodeSubject("b"));

    const forwarder = new NodeForwarder(asker);
    const answers = await Promise.all([
      forwarder.send("b", 1, BATCH(3)),
      forwarder.send("b", 2, BATCH(5)),
      forwarder.send("b", 7, BATCH(2)),
    ]);
    assert.equal(answers[0], { ok: true, value: RESULTS(1, 3) });
    assert.equal(answers[1], { ok: true, value: RESULTS(2, 5) });
    assert.is(answers[2].ok, false, "partition 7 is not served by b");
    assert.is((answers[2] as { name: string }).name, "NotOwnerError");
    await spy.flush();
    assert.is(requests(), 1, "one request for the three batches");
    assert.is(p1.applied.length + p2.applied.length, 2, "each served batch applied once");

    // batches sent in different turns are different requests
    await forwarder.send("b", 1, BATCH(1));
    await forwarder.send("b", 2, BATCH(1));
    await spy.flush();
    assert.is(requests(), 3);
  });
});

test("a batch sent to a node that does not serve its partition reaches the owner through the partition's subject, applied once", async () => {
  await withNatsServer("a forwarded batch whose leaseholder is out of date", async (connect) => {
    const [stale, current, asker, spy] = [await connect(), await connect(), await connect(), await connect()];
    const PARTITION = 4;
    const owner = host(PARTITION),
      wrong = host(PARTITION);
    serveNode(stale, "stale", () => null); // held the lease once, serves nothing now
    serveNode(current, "current", (partition) => (partition === PARTITION ? owner.host : null));
    servePartition(current, PARTITION, owner.host);
    await Promise.all([stale.flush(), current.flush()]);
    const partitionRequests = await countOn(spy, rpcSubject(PARTITION));
    const forwarder = new NodeForwarder(asker);
    let leaseholder = "stale";
    const handle = new PartitionHandle({
      connection: asker,
      partition: PARTITION,
      local: () => null,
      connected: () => true,
      directorySynced: async () => {},
      requestTimeoutMs: 3_000,
      retryForMs: 10_000,
      forward: { leaseholder: () => leaseholder, send: (node, request) => forwarder.send(node, PARTITION, request) },
    });

    assert.equal(await handle.apply(BATCH(2)), RESULTS(PARTITION, 2));
    assert.is(owner.applied.length, 1, "applied once, by the owner");
    assert.is(wrong.applied.length, 0);
    await spy.flush();
    assert.is(partitionRequests(), 1, "sent again through the partition's subject");

    // the right leaseholder: answered by the node, the partition's subject not used
    leaseholder = "current";
    assert.equal(await handle.apply(BATCH(4)), RESULTS(PARTITION, 4));
    assert.is(owner.applied.length, 2);
    await spy.flush();
    assert.is(partitionRequests(), 1, "no request on the partition's subject");

    // a leaseholder gone (no subscriber): no responders, sent again through the partition's subject
    leaseholder = "gone";
    const refused = await forwarder.send("gone", PARTITION, BATCH(1)).then(
      () => null,
      (error: unknown) => error,
    );
    assert.ok(noResponders(refused), `no responders, not ${String(refused)}`);
    assert.equal(await handle.apply(BATCH(6)), RESULTS(PARTITION, 6));
    assert.is(owner.applied.length, 3);
    await spy.flush();
    assert.is(partitionRequests(), 2);
  });
});

test.run();
