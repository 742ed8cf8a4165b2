// Pings made durable where they arrive (cluster/intake-stream.ts) and taken into their partitions' logs by
// the owners (cluster/intake-follower.ts): each acknowledged ping is applied once, across a takeover and a
// snapshot, even when no node owned its partition while it was answered; the owner's judgement waits for
// what the nodes have answered; the stream is purged below what every partition's log holds. Real
// nats-server (R1), real replicas and logs.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { NatsConnection } from "@nats-io/nats-core";
import { createClusterPool } from "../../cluster/cluster-pool.ts";
import { IntakeFollower } from "../../cluster/intake-follower.ts";
import { INTAKE_STREAM, IntakePublisher, openIntakeStream } from "../../cluster/intake-stream.ts";
import { managerOf } from "../../cluster/jetstream-setup.ts";
import { PartitionHistory } from "../../cluster/partition-history.ts";
import { NotOwnerError, PartitionReplica } from "../../cluster/partition-replica.ts";
import type { TakeoverCatchUp } from "../../cluster/partition-replica.ts";
import { partitionOf } from "../../cluster/partitions.ts";
import { PingWatermarks } from "../../cluster/ping-watermarks.ts";
import type { Millis } from "../../engine/model.ts";
import { NotificationQueue } from "../../notify/cluster-queue.ts";
import { project, until } from "../helpers.ts";
import { pingCommand, SECOND, T0, withNatsServer } from "./held-appends.ts";

const PARTITIONS = 4;

/** A project whose id falls in `partition` of PARTITIONS. */
function projectIn(partition: number) {
  for (let i = 0; ; i++) {
    const candidate = project({ id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`, createdAt: T0 });
    if (partitionOf(candidate.id, PARTITIONS) === partition) return candidate;
  }
}

/** A replica of `partition` taken over on `connection`, with a project and one check (a day's timeout). */
async function ownerWithCheck(connection: NatsConnection, partition: number) {
  const replica = await PartitionReplica.open({ connection, partition, replicas: 1 });
  await replica.takeOver(T0);
  const owner = projectIn(partition);
  await replica.submit({ kind: "createProject", project: owner, at: T0 });
  const created = await replica.submit({
    kind: "createCheck",
    projectId: owner.id,
    spec: { name: "nightly", timeoutMs: 86_400 * SECOND },
    unique: [],
    at: T0,
  });
  assert.ok(created.result.ok);
  return { replica, owner, uuid: created.result.value.check.uuid };
}

/**
 * A takeover's catch-up as a node makes it (cluster-pool.ts): `follower` joined at the log's mark, every
 * ping up to the stream position `upTo` applied, then judged up to the takeover's instant.
 */
const catchUpThrough =
  (follower: IntakeFollower, partition: number, upTo: number): TakeoverCatchUp =>
  async (replica, now) => {
    follower.join(partition, replica.intakeMark, replica);
    await follower.reached(partition, upTo);
    return now;
  };

/** The owner with a check on `partition` of `connection` given up, and one ping for the check answered by `front` while nobody owns it. */
async function abandonedWithPing(connection: NatsConnection, front: IntakePublisher, partition: number, at: Millis) {
  const owner = await ownerWithCheck(connection, partition);
  owner.replica.abandon();
  await front.send(partition, owner.owner.id, pingCommand(owner.uuid, at)); // answered: in the stream, no owner
  return owner;
}

/** A node's watermarks on the test's clock, publishing every 20 ms, quiet after 2 s. */
const watermarksOf = (
  connection: NatsConnection,
  node: string,
  clock: () => Millis,
  state: Pick<ConstructorParameters<typeof PingWatermarks>[0], "unansweredSince" | "storedUpTo" | "floors">,
) => new PingWatermarks({ connection, node, partitionCount: PARTITIONS, clock, publishEveryMs: 20, staleAfterMs: 2 * SECOND, ...state });

const nPingsOf = (replica: PartitionReplica, projectId: string, uuid: string) =>
  replica.read((shard) => {
    const found = shard.getCheck(projectId, uuid);
    return found.ok ? found.value.nPings : -1;
  });

test("answered pings reach their partition's log once: across a takeover, and while no node owned the partition", async () => {
  await withNatsServer("intake pings across a takeover", async (connect) => {
    const [ncA, ncB, ncFront] = [await connect(), await connect(), await connect()];
    await openIntakeStream(ncFront, 1);
    const front = new IntakePublisher({ connection: ncFront, connected: () => true });
    const a = await ownerWithCheck(ncA, 2);
    const followerA = new IntakeFollower({ connection: ncA, lingerMs: 5 });
    followerA.join(2, a.replica.intakeMark, a.replica);
    const other = projectIn(1); // a partition nobody reads here: its pings share the messages and are skipped
    const send = (n: number, from: number) =>
      Promise.all(
        Array.from({ length: n }, (_, i) =>
          Promise.all([
            front.send(2, a.owner.id, pingCommand(a.uuid, T0 + (from + i) * SECOND)),
            front.send(1, other.id, pingCommand("00000000-0000-4000-8000-00000000aaaa", T0 + (from + i) * SECOND)),
          ]),
        ),
      );

    await send(20, 1);
    await followerA.reached(2, front.storedUpTo);
    assert.is(nPingsOf(a.replica, a.owner.id, a.uuid), 20, "the owner applied every answered ping once");
    const markOfA = a.replica.intakeMark;
    assert.ok(markOfA > 0 && markOfA <= front.storedUpTo);

    // A loses the partition; pings are still answered (they are in the stream) while nobody owns it
    a.replica.abandon();
    followerA.leave(2);
    await send(10, 100);

    const b = await PartitionReplica.open({ connection: ncB, partition: 2, replicas: 1 });
    await b.takeOver(T0 + 200 * SECOND);
    assert.is(nPingsOf(b, a.owner.id, a.uuid), 20, "the log replayed: A's pings, once");
    assert.is(b.intakeMark, markOfA, "the log says how far A read the stream");
    const followerB = new IntakeFollower({ connection: ncB, lingerMs: 5 });
    try {
      followerB.join(2, b.intakeMark, b);
      await followerB.reached(2, front.storedUpTo);
      assert.is(nPingsOf(b, a.owner.id, a.uuid), 30, "B took the pings answered while nobody owned the partition, and none of A's again");
    } finally {
      followerA.close();
      followerB.close();
    }
  });
});

test("a takeover takes in the pings answered while nobody owned the partition before it judges: each keeps its own stamp", async () => {
  await withNatsServer("intake pings before a takeover judges", async (connect) => {
    const [ncA, ncB] = [await connect(), await connect()];
    await openIntakeStream(ncA, 1);
    const front = new IntakePublisher({ connection: ncA, connected: () => true });
    const a = await abandonedWithPing(ncA, front, 2, T0 + 100 * SECOND);

    const b = await PartitionReplica.open({ connection: ncB, partition: 2, replicas: 1 });
    const follower = new IntakeFollower({ connection: ncB, lingerMs: 5 });
    try {
      let judgedBefore: number | null = null;
      const catchUp = catchUpThrough(follower, 2, front.storedUpTo);
      await b.takeOver(T0 + 200 * SECOND, null, async (replica, now) => {
        const upTo = await catchUp(replica, now);
        judgedBefore = replica.applied;
        return upTo;
      });
      const check = b.read((shard) => shard.getCheck(a.owner.id, a.uuid));
      assert.ok(check.ok);
      assert.is(check.value.nPings, 1);
      assert.is(check.value.lastPingAt, T0 + 100 * SECOND, "applied at its own stamp, not at the takeover's instant");
      assert.ok(judgedBefore !== null && b.applied > judgedBefore, "the takeover's advance came after the caught-up ping");
    } finally {
      follower.close();
    }
  });
});

test("a takeover whose catch-up fails writes nothing more until taken over again; the next one takes the pings in", async () => {
  await withNatsServer("a failed takeover catch-up", async (connect) => {
    const nc = await connect();
    await openIntakeStream(nc, 1);
    const front = new IntakePublisher({ connection: nc, connected: () => true });
    const a = await abandonedWithPing(nc, front, 1, T0 + 50 * SECOND);

    const b = await PartitionReplica.open({ connection: nc, partition: 1, replicas: 1 });
    const failing = b.takeOver(T0 + 60 * SECOND, null, async () => {
      throw new Error("the intake stream did not answer");
    });
    assert.match(
      String(
        await failing.then(
          () => "taken over",
          (error: unknown) => error,
        ),
      ),
      /did not answer/,
    );
    assert.is(b.state, "stale", "not the writer after a failed catch-up");
    const refused = await b.submit({ kind: "advance", at: T0 + 61 * SECOND }).then(
      () => null,
      (error: unknown) => error,
    );
    assert.instance(refused, NotOwnerError, "a command is refused, not appended");

    const follower = new IntakeFollower({ connection: nc, lingerMs: 5 });
    try {
      await b.takeOver(T0 + 62 * SECOND, null, catchUpThrough(follower, 1, front.storedUpTo));
      assert.is(b.state, "owner");
      const check = b.read((shard) => shard.getCheck(a.owner.id, a.uuid));
      assert.ok(check.ok);
      assert.is(check.value.lastPingAt, T0 + 50 * SECOND, "the second takeover took the ping in at its stamp");
    } finally {
      follower.close();
    }
  });
});

test("a node taking a partition over applies the pings answered while nobody owned it at their own stamps", async () => {
  await withNatsServer("intake pings through a node's takeover", async (connect) => {
    const [ncA, ncB, ncFront] = [await connect(), await connect(), await connect()];
    const notifications = await NotificationQueue.open({ connection: ncFront, replicas: 1 });
    const nodeOn = (connection: NatsConnection, name: string) =>
      createClusterPool({
        connection,
        node: name,
        replicas: 1,
        partitionCount: 2,
        notifications,
        advanceEveryMs: 100,
        openHistory: (partition) => PartitionHistory.open({ connection, partition, replicas: 1 }),
      });
    const a = await nodeOn(ncA, "a");
    let projectId: string, uuid: string;
    try {
      await until("node a serves both partitions", () => a.served().length === 2, 30_000);
      projectId = (await a.pool.createProject({ name: "p", checkLimit: 20, pingLogLimit: 100, pingBodyLimit: 10_000 }, Date.now())).id;
      const created = await a.pool.createCheck(projectId, { name: "c", timeoutMs: 86_400 * SECOND }, [], Date.now());
      assert.ok(created.ok);
      uuid = created.value.check.uuid;
    } finally {
      await a.close(); // releases both partitions: nobody owns them
    }
    const front = new IntakePublisher({ connection: ncFront, connected: () => true });
    const stamp = Date.now();
    await front.send(partitionOf(projectId, 2), projectId, pingCommand(uuid, stamp));
    const b = await nodeOn(ncB, "b");
    try {
      await until("node b serves both partitions", () => b.served().length === 2, 30_000);
      const read = await b.pool.getCheck(projectId, { uuid });
      assert.ok(read.ok);
      assert.is(read.value.nPings, 1);
      assert.is(read.value.lastPingAt, stamp, "the ping kept its stamp through the takeover");
    } finally {
      await b.close();
      await notifications.close();
    }
  });
});

test("a partition joining behind the reader's position makes it go back: the joiner gets its pings, the others none twice", async () => {
  await withNatsServer("intake reader going back for a joiner", async (connect) => {
    const nc = await connect();
    await openIntakeStream(nc, 1);
    const front = new IntakePublisher({ connection: nc, connected: () => true });
    const first = await ownerWithCheck(nc, 1),
      second = await ownerWithCheck(nc, 3);
    const follower = new IntakeFollower({ connection: nc, lingerMs: 5 });
    try {
      follower.join(1, 0, first.replica);
      for (let i = 1; i <= 6; i++) {
        await Promise.all([
          front.send(1, first.owner.id, pingCommand(first.uuid, T0 + i * SECOND)),
          front.send(3, second.owner.id, pingCommand(second.uuid, T0 + i * SECOND)),
        ]);
      }
      await follower.reached(1, front.storedUpTo);
      assert.is(follower.received, front.storedUpTo, "the reader is at the stream's end");
      assert.is(nPingsOf(second.replica, second.owner.id, second.uuid), 0, "partition 3 not joined: nothing handed to it");

      follower.join(3, 0, second.replica); // its log holds none of the stream: the reader goes back to the start
      await follower.reached(3, front.storedUpTo);
      assert.is(nPingsOf(second.replica, second.owner.id, second.uuid), 6, "the joiner got the pings the reader had passed");
      await front.send(1, first.owner.id, pingCommand(first.uuid, T0 + 7 * SECOND));
      await follower.reached(1, front.storedUpTo);
      assert.is(nPingsOf(first.replica, first.owner.id, first.uuid), 7, "partition 1 read again from the start took none twice");
    } finally {
      follower.close();
    }
  });
});

test("a snapshot keeps how far the stream was read: a new owner starts there and applies each later ping once", async () => {
  await withNatsServer("intake position in a snapshot", async (connect) => {
    const [ncA, ncB] = [await connect(), await connect()];
    await openIntakeStream(ncA, 1);
    const front = new IntakePublisher({ connection: ncB, connected: () => true });
    const a = await ownerWithCheck(ncA, 0);
    const followerA = new IntakeFollower({ connection: ncA, lingerMs: 5 });
    followerA.join(0, 0, a.replica);
    for (let i = 1; i <= 5; i++) await front.send(0, a.owner.id, pingCommand(a.uuid, T0 + i * SECOND));
    await followerA.reached(0, front.storedUpTo);
    const saved = await a.replica.snapshot();
    assert.ok(saved.saved);
    followerA.close();
    a.replica.abandon();
    for (let i = 6; i <= 8; i++) await front.send(0, a.owner.id, pingCommand(a.uuid, T0 + i * SECOND));

    const b = await PartitionReplica.open({ connection: ncB, partition: 0, replicas: 1 });
    const report = await b.takeOver(T0 + 60 * SECOND);
    assert.is(report.snapshotSequence, a.replica.applied, "taken over from A's snapshot");
    assert.is(b.intakeMark, 5, "the snapshot's position: the fifth message of the stream");
    const followerB = new IntakeFollower({ connection: ncB, lingerMs: 5 });
    try {
      followerB.join(0, b.intakeMark, b);
      await followerB.reached(0, front.storedUpTo);
      assert.is(nPingsOf(b, a.owner.id, a.uuid), 8);
    } finally {
      followerB.close();
    }
  });
});

test("an acknowledged ping that reaches its owner after deadlines past its stamp were judged is applied, not refused; a position taken is not taken twice", async () => {
  await withNatsServer("late intake pings applied", async (connect) => {
    const a = await ownerWithCheck(await connect(), 3);
    await a.replica.advance(T0 + 200 * SECOND);
    await a.replica.submitIntake([{ seq: 7, ping: pingCommand(a.uuid, T0 + 100 * SECOND) }]);
    assert.is(nPingsOf(a.replica, a.owner.id, a.uuid), 1);
    const applied = a.replica.applied;
    assert.equal(
      await a.replica.submitIntake([{ seq: 7, ping: pingCommand(a.uuid, T0 + 300 * SECOND) }]),
      [],
      "position 7 is in the log already",
    );
    assert.is(a.replica.applied, applied, "nothing appended");
    await a.replica.submitIntake([
      { seq: 6, ping: pingCommand(a.uuid, T0 + 300 * SECOND) },
      { seq: 9, ping: pingCommand(a.uuid, T0 + 301 * SECOND) },
    ]);
    assert.is(nPingsOf(a.replica, a.owner.id, a.uuid), 2, "of positions 6 and 9, only 9 is new");
    assert.is(a.replica.intakeMark, 9);
  });
});

test("an owner judges only up to what the nodes answered and it has read: a node's watermark counts once its position is read", async () => {
  await withNatsServer("watermarks with intake positions", async (connect) => {
    const now: Millis = T0;
    const stored = { a: 0, b: 0 };
    const floors: Record<"a" | "b", [number, number][]> = {
      a: [
        [0, 5],
        [1, 7],
      ],
      b: [[2, 3]],
    };
    const unanswered = { a: new Map<number, Millis>(), b: new Map<number, Millis>() };
    const start = (node: "a" | "b", connection: NatsConnection) =>
      watermarksOf(connection, node, () => now, {
        unansweredSince: (partition) => unanswered[node].get(partition) ?? null,
        storedUpTo: () => stored[node],
        floors: () => floors[node],
      });
    const a = start("a", await connect()),
      b = start("b", await connect());
    try {
      await until("a hears from b", () => a.heardFrom(now).includes("b"));
      assert.is(a.judgeUpTo(2, now, 0), now - 1);
      assert.is(a.floor(now), null, "partition 3's floor is not known");

      // b answers pings up to position 10 and has one for partition 2 on its way
      stored.b = 10;
      unanswered.b.set(2, T0 - 5 * SECOND);
      await until("b's new watermark heard", () => a.newestSeq() === 10);
      assert.is(a.judgeUpTo(2, now, 9), T0 - 1, "b's older watermark counts while position 10 is not read here");
      assert.is(a.judgeUpTo(2, now, 10), T0 - 5 * SECOND - 1, "read: b's newest counts");

      // this node's own answered pings count the same way
      stored.a = 12;
      unanswered.b.delete(2);
      await until("b's ping answered", () => a.judgeUpTo(2, now, 12) === now - 1);
      unanswered.a.set(2, T0 + 1);
      assert.is(a.judgeUpTo(2, now, 12), now - 1, "a ping stamped after now holds nothing");

      floors.b = [
        [2, 3],
        [3, 4],
      ];
      await until("every partition's floor known", () => a.floor(now) !== null);
      assert.is(a.floor(now), 3, "the lowest of the partitions' floors");
    } finally {
      a.close();
      b.close();
    }
  });
});

test("a node gone quiet holds nobody back once the pings it said it answered are read", async () => {
  await withNatsServer("a quiet node's last position", async (connect) => {
    let now: Millis = T0;
    const start = (node: string, stored: number, connection: NatsConnection) =>
      watermarksOf(connection, node, () => now, { unansweredSince: () => null, storedUpTo: () => stored, floors: () => [] });
    const a = start("a", 0, await connect()),
      b = start("b", 10, await connect());
    try {
      await until("a hears b's position", () => a.newestSeq() === 10);
      b.close(); // killed: its last word says it answered pings up to position 10
      now += 3 * SECOND;
      assert.is(a.judgeUpTo(2, now, 9), -Infinity, "b is quiet, but its answered pings are not all read");
      assert.is(a.judgeUpTo(2, now, 10), now - 1, "read: b holds nobody back");
      assert.equal(a.heardFrom(now), []);
    } finally {
      a.close();
      b.close();
    }
  });
});

test("a node's pool answers pings from the stream, a read after them sees them, and the stream is purged below what every log holds", async () => {
  await withNatsServer("intake through a cluster node", async (connect) => {
    const nc = await connect();
    const notifications = await NotificationQueue.open({ connection: nc, replicas: 1 });
    const node = await createClusterPool({
      connection: nc,
      node: "a",
      replicas: 1,
      partitionCount: 2,
      notifications,
      intakePurgeEveryMs: 200,
      advanceEveryMs: 100,
      openHistory: (partition) => PartitionHistory.open({ connection: nc, partition, replicas: 1 }),
    });
    try {
      await until("both partitions served", () => node.served().length === 2, 30_000);
      const now = Date.now();
      const projectId = (await node.pool.createProject({ name: "p", checkLimit: 20, pingLogLimit: 100, pingBodyLimit: 10_000 }, now)).id;
      const check = await node.pool.createCheck(projectId, { name: "c", timeoutMs: 86_400 * SECOND }, [], now);
      assert.ok(check.ok);
      const uuid = check.value.check.uuid;
      for (let i = 0; i < 3; i++) {
        const answered = await node.pool.ping(projectId, pingCommand(uuid, Date.now()));
        assert.ok(answered.ok);
      }
      const read = await node.pool.getCheck(projectId, { uuid });
      assert.ok(read.ok);
      assert.is(read.value.nPings, 3, "the read waited for the pings answered before it");

      const jsm = await managerOf(nc);
      const stored = (await jsm.streams.info(INTAKE_STREAM)).state.last_seq;
      assert.ok(stored >= 1);
      await until(
        "the stream purged up to what both logs hold",
        async () => (await jsm.streams.info(INTAKE_STREAM)).state.first_seq > stored,
        30_000,
      );
    } finally {
      await node.close();
      await notifications.close();
    }
  });
});

test.run();
