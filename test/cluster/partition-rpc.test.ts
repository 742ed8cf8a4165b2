// Requests to a partition while its ownership moves: the old owner still subscribed next to the new one,
// and the old one stopping while a request is on its way to it. Real nats-server, one connection per node;
// the hosts are stand-ins that count what they apply (the old one refuses, as a host that lost its partition does).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createServer, connect as tcpConnect } from "node:net";
import type { Socket } from "node:net";
import type { NatsConnection } from "@nats-io/nats-core";
import type { PartitionHost } from "../../cluster/partition-host.ts";
import { NotOwnerError } from "../../cluster/partition-replica.ts";
import { PartitionHandle, rpcSubject, servePartition, stopServingPartition } from "../../cluster/partition-rpc.ts";
import { encodeRequest } from "../../cluster/partition-rpc.ts";
import type { HostRequest } from "../../host/shard-requests.ts";
import { withNatsServer } from "./held-appends.ts";
import { until } from "../helpers.ts";

const PARTITION = 5;
const REQUEST: HostRequest = { kind: "probe" };

/** A host that no longer owns the partition: every request refused, as PartitionHost does then. */
function formerOwner() {
  const seen: HostRequest[] = [];
  const host = {
    partition: PARTITION,
    applyAfter: async (request: HostRequest) => {
      seen.push(request);
      throw new NotOwnerError("not served here");
    },
  };
  return { host: host as unknown as PartitionHost, seen };
}

/** The new owner: applies (counts) every request it is given. */
function owner() {
  const applied: HostRequest[] = [];
  const host = {
    partition: PARTITION,
    applyAfter: async (request: HostRequest) => {
      applied.push(request);
      return "applied";
    },
  };
  return { host: host as unknown as PartitionHost, applied };
}

/** A TCP relay to a NATS server whose server-to-client direction can be held (bytes kept, not lost) and released. */
async function holdableRelay(target: string) {
  const { hostname, port } = new URL(target);
  const held: { client: Socket; bytes: Buffer }[] = [];
  let holding = false;
  const server = createServer((client) => {
    const upstream = tcpConnect(Number(port), hostname);
    for (const s of [client, upstream])
      s.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    client.pipe(upstream);
    upstream.on("data", (bytes: Buffer) => {
      if (holding) held.push({ client, bytes });
      else client.write(bytes);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `nats://127.0.0.1:${(server.address() as { port: number }).port}`,
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      for (const { client, bytes } of held.splice(0)) client.write(bytes);
    },
    /** What the server has sent the client and the relay holds, as text (the NATS protocol's lines). */
    heldText: () => Buffer.concat(held.map((h) => h.bytes)).toString("latin1"),
    close: () => server.close(),
  };
}

const handleOn = (connection: NatsConnection) =>
  new PartitionHandle({
    connection,
    partition: PARTITION,
    local: () => null,
    connected: () => true,
    directorySynced: async () => {},
    requestTimeoutMs: 3_000,
    retryForMs: 10_000,
  });

test("old and new owner both subscribed: each request reaches one of them, so a change is applied once", async () => {
  await withNatsServer("partition requests during a handover", async (connect) => {
    const [oldNode, newNode, asker] = [await connect(), await connect(), await connect()];
    const old = formerOwner(),
      current = owner();
    servePartition(oldNode, PARTITION, old.host);
    servePartition(newNode, PARTITION, current.host);
    await Promise.all([oldNode.flush(), newNode.flush()]); // both subscriptions known to the server

    const answers = 20;
    for (let i = 0; i < answers; i++) await asker.request(rpcSubject(PARTITION), encodeRequest(REQUEST), { timeout: 3_000 });
    // everything the server delivered to either node has been handled once their flushes come back
    await Promise.all([oldNode.flush(), newNode.flush()]);
    assert.is(
      old.seen.length + current.applied.length,
      answers,
      `deliveries: ${old.seen.length} to the old owner, ${current.applied.length} to the new`,
    );

    // through the handle every node uses: answered by the new owner, applied there once
    const before = current.applied.length;
    for (let i = 0; i < 10; i++) assert.is(await handleOn(asker).apply({ kind: "pauseCheck" } as HostRequest), "applied");
    assert.is(current.applied.length - before, 10, "each change applied once");
  });
});

test("a request already on its way to an owner that stops serving is still answered, and sent on to the new owner", async () => {
  await withNatsServer("a partition request racing its owner's unsubscription", async (connect, urls) => {
    const relay = await holdableRelay(urls[0]);
    try {
      // the old owner reaches the server through the relay, whose hold stands for the request being in flight
      const [oldNode, newNode, asker] = [await connect([relay.url]), await connect(), await connect()];
      const old = formerOwner(),
        current = owner();
      const subscription = servePartition(oldNode, PARTITION, old.host);
      await oldNode.flush();

      relay.hold();
      const answer = handleOn(asker)
        .apply({ kind: "pauseCheck" } as HostRequest)
        .then(
          (value) => ({ value }),
          (error: Error) => ({ error: error.name }),
        );
      // the server has routed the request to the old owner (held on its way): the unsubscription below comes after it
      await until("the request is on its way to the old owner", () => relay.heldText().includes("MSG "));
      stopServingPartition(subscription);
      servePartition(newNode, PARTITION, current.host);
      await newNode.flush();
      relay.release();

      assert.equal(await answer, { value: "applied" }, "answered by the new owner, not timed out into a 503");
      assert.is(old.seen.length, 1, "the old owner answered the request it was sent");
      assert.is(current.applied.length, 1);
    } finally {
      relay.close();
    }
  });
});

test.run();
