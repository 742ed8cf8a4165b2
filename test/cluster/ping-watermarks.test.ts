// How far an owner may judge a partition's deadlines while pings stamped by other nodes may still be on
// their way (cluster/ping-watermarks.ts), and the owner's refusal of a ping stamped at or before what it has
// judged (PartitionReplica's LatePingError). Real nats-server; the nodes' clock is the test's.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { NatsConnection } from "@nats-io/nats-core";
import { PingWatermarks } from "../../cluster/ping-watermarks.ts";
import { PartitionNode } from "../../cluster/partition-node.ts";
import { PartitionReplica } from "../../cluster/partition-replica.ts";
import type { Millis } from "../../engine/model.ts";
import { project, until } from "../helpers.ts";
import { pingOf, SECOND, T0, withNatsServer } from "./held-appends.ts";

const PARTITIONS = 4;

test("an owner judges a partition only up to just before the earliest ping another node still has on its way to it", async () => {
  await withNatsServer("watermarks of pings on their way", async (connect) => {
    let now: Millis = T0;
    const clock = () => now;
    const unanswered = { a: new Map<number, Millis>(), b: new Map<number, Millis>() };
    const start = (node: "a" | "b", connection: NatsConnection) =>
      new PingWatermarks({
        connection,
        node,
        partitionCount: PARTITIONS,
        clock,
        publishEveryMs: 20,
        staleAfterMs: 2 * SECOND,
        unansweredSince: (partition) => unanswered[node].get(partition) ?? null,
        storedUpTo: () => 0,
        floors: () => [],
      });
    const [connectionA, connectionB] = [await connect(), await connect()];
    const a = start("a", connectionA),
      b = start("b", connectionB);
    try {
      await until("a hears from b", () => a.heardFrom(now).includes("b"));
      assert.is(a.judgeUpTo(2, now, 0), now - 1, "nothing on its way: up to just before now (a ping stamped now is later)");

      now = T0 + 10 * SECOND;
      unanswered.b.set(2, T0 + 5 * SECOND); // b stamped a ping for partition 2 and has no answer yet
      // b's marks of the same message: its ping holds partition 2 just before its stamp, and no other partition
      await until("b's ping holds partition 2", () => a.judgeUpTo(2, now, 0) === T0 + 5 * SECOND - 1);
      assert.is(a.judgeUpTo(1, now, 0), now - 1, "the other partitions are not held");

      unanswered.a.set(3, T0 + 7 * SECOND); // the owner's own ping on its way counts as well
      assert.is(a.judgeUpTo(3, now, 0), T0 + 7 * SECOND - 1);

      unanswered.b.delete(2); // answered
      await until("b's answered ping holds nothing", () => a.judgeUpTo(2, now, 0) === now - 1);

      unanswered.b.set(2, T0 + 9 * SECOND);
      await until("held again", () => a.judgeUpTo(2, now, 0) === T0 + 9 * SECOND - 1);
      b.close(); // b stops (frozen, cut off, killed): after staleAfterMs it holds nobody back
      await connectionB.flush();
      await connectionA.flush(); // a has taken in everything b published
      now += 2 * SECOND;
      assert.is(a.judgeUpTo(2, now, 0), T0 + 9 * SECOND - 1, "still held within staleAfterMs of b's last word");
      now += 1;
      assert.is(a.judgeUpTo(2, now, 0), now - 1, "b not heard for longer than staleAfterMs");
      assert.equal(a.heardFrom(now), []);

      connectionA.publish("hcd.watermarks", new TextEncoder().encode("not a watermark")); // anything may be published there
      await connectionA.flush();
      assert.is(a.judgeUpTo(2, now, 0), now - 1);
    } finally {
      a.close();
      b.close();
    }
  });
});

test("an owner's own watermark is its state now once its answered pings are handed, else its newest publication they are handed up to", async () => {
  await withNatsServer("an owner's own watermark", async (connect) => {
    let now: Millis = T0,
      stored = 0;
    // publishes once, at the start (T0, nothing answered): every later judgement sees that one publication
    const alone = new PingWatermarks({
      connection: await connect(),
      node: "a",
      partitionCount: PARTITIONS,
      clock: () => now,
      publishEveryMs: 3_600 * SECOND,
      unansweredSince: () => null,
      storedUpTo: () => stored,
      floors: () => [],
    });
    try {
      now = T0 + 10 * SECOND;
      assert.is(alone.judgeUpTo(1, now, 0), now - 1, "its answered pings all handed: up to just before now, not its publication's T0");
      stored = 5; // pings answered since, up to intake position 5
      assert.is(alone.judgeUpTo(1, now, 3), T0 - 1, "handed up to 3 only: its publication of position 0 holds");
      assert.is(alone.judgeUpTo(1, now, 5), now - 1, "handed up to 5: its state now");
    } finally {
      alone.close();
    }
  });
});

test("an owner refuses a ping stamped at or before the deadlines it has judged, and nothing of its batch is appended", async () => {
  await withNatsServer("late pings refused by the owner", async (connect) => {
    const replica = await PartitionReplica.open({ connection: await connect(), partition: 1, replicas: 1 });
    await replica.takeOver(T0);
    const owner = project({ createdAt: T0 });
    await replica.submit({ kind: "createProject", project: owner, at: T0 });
    const created = await replica.submit({
      kind: "createCheck",
      projectId: owner.id,
      spec: { name: "late", timeoutMs: 60 * SECOND, graceMs: 60 * SECOND },
      unique: [],
      at: T0,
    });
    assert.ok(created.result.ok);
    const check = created.result.value.check;
    const nPings = () =>
      replica.read((shard) => {
        const found = shard.getCheck(owner.id, check.uuid);
        return found.ok ? found.value.nPings : -1;
      });

    await replica.submit(pingOf(check.uuid, T0 + SECOND)); // before any judgement: taken
    await replica.advance(T0 + 200 * SECOND); // due at T0 + 121 s: down
    const applied = replica.applied;
    const late = await replica.submitAll([pingOf(check.uuid, T0 + 300 * SECOND), pingOf(check.uuid, T0 + 100 * SECOND)]).then(
      () => "taken",
      (error: Error) => error.name,
    );
    assert.is(late, "LatePingError", "a batch with a ping stamped before the judged deadline is refused");
    const atTheEdge = await replica.submit(pingOf(check.uuid, T0 + 200 * SECOND)).then(
      () => "taken",
      (error: Error) => error.name,
    );
    assert.is(atTheEdge, "LatePingError", "stamped at the instant judged: refused too");
    assert.is(replica.applied, applied, "nothing of the refused batches appended");
    assert.is(nPings(), 1);

    await replica.submit(pingOf(check.uuid, T0 + 200 * SECOND + 1)); // after it: taken
    assert.is(nPings(), 2);
  });
});

test("an owner's timer judges a partition's deadlines only as far as judgeUpTo allows", async () => {
  await withNatsServer("the owner's timer and the watermark", async (connect) => {
    let holdAt: Millis | null = null; // while set, judgeUpTo answers it (a ping stamped after it is on its way)
    const asked: Millis[] = []; // the instants the timer asked about while held
    let markTakenOver = () => {};
    const takenOver = new Promise<void>((resolve) => {
      markTakenOver = resolve;
    });
    const node = await PartitionNode.open({
      connection: await connect(),
      node: "a",
      partitionCount: 1,
      replicas: 1,
      leaseMs: 60_000,
      renewEveryMs: 30_000,
      advanceEveryMs: 20,
      judgeUpTo: (_partition, now) => {
        if (holdAt === null) return now - 1;
        asked.push(now);
        return holdAt;
      },
      onTakeover: () => markTakenOver(),
    });
    node.start();
    try {
      await takenOver;
      await until("served", () => node.ready().includes(0));
      const start = Date.now(),
        owner = project({ createdAt: start });
      await node.submit(owner.id, { kind: "createProject", project: owner, at: start });
      // the engine takes a one-second timeout and grace (the API's lower limits are the HTTP layer's)
      const created = await node.submit(owner.id, {
        kind: "createCheck",
        projectId: owner.id,
        spec: { name: "due soon", timeoutMs: SECOND, graceMs: SECOND },
        unique: [],
        at: start,
      });
      assert.ok(created.result.ok);
      const uuid = created.result.value.check.uuid;
      holdAt = start; // a ping stamped just after this is still on its way
      await node.submit(owner.id, pingOf(uuid, start + 1)); // due at start + 2,001 ms
      const status = () =>
        node.read(owner.id, (shard) => {
          const found = shard.getCheck(owner.id, uuid);
          return found.ok ? found.value.status : "gone";
        });

      await until("the timer asks twice about an instant past the deadline", () => asked.filter((at) => at > start + 2_500).length >= 2);
      assert.is(status(), "up", "not judged past the held instant");
      holdAt = null;
      await until("judged once released", () => status() === "down");
    } finally {
      await node.stop();
    }
  });
});

test.run();
