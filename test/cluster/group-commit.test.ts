// Group commit into a partition's log, against one real nats-server: commands appended together travel
// as one log message (a batch) up to a size bound, replay on a takeover and after a snapshot as the
// records they hold, a log written one record per message before batches existed still replays, and a
// batch whose history an earlier owner stored in part is completed by the next owner, each flip once.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { JetStreamLog } from "../../cluster/jetstream-log.ts";
import { decodeMessage, encodeRecord, RECORD_IDS } from "../../cluster/partition-codec.ts";
import { PartitionHistory } from "../../cluster/partition-history.ts";
import { PartitionReplica } from "../../cluster/partition-replica.ts";
import type { AppliedRecord, PartitionReplicaOptions } from "../../cluster/partition-replica.ts";
import { wirePackr } from "../../cluster/wire-packr.ts";
import type { Check } from "../../engine/model.ts";
import { project } from "../helpers.ts";
import { pingOf, SECOND, T0, withNatsServer } from "./held-appends.ts";

const PARTITION = 5;
let ids = 0;
const newId = () => `00000000-0000-4000-8000-${(++ids).toString(16).padStart(12, "0")}`;

type Connect = Parameters<Parameters<typeof withNatsServer>[1]>[0];

async function projectWithCheck(replica: PartitionReplica): Promise<Check> {
  const owner = project({ id: newId(), createdAt: T0 });
  await replica.submit({ kind: "createProject", project: owner, at: T0 });
  const { result } = await replica.submit({
    kind: "createCheck",
    projectId: owner.id,
    spec: { name: "batched", timeoutMs: 3_600 * SECOND, graceMs: 60 * SECOND },
    unique: [],
    at: T0,
  });
  assert.ok(result.ok);
  return result.value.check;
}

const nPings = (replica: PartitionReplica, check: Check) =>
  replica.read((shard) => {
    const found = shard.getCheck(check.projectId, check.uuid);
    return found.ok ? found.value.nPings : -1;
  });

/** Each log message's record ids and the rids of the pings in it, in log order (fence markers skipped). */
async function logMessages(connect: Connect): Promise<{ id: number; rids: string[] }[]> {
  const log = await JetStreamLog.open({ connection: await connect(), partition: PARTITION, replicas: 1 });
  const messages: { id: number; rids: string[] }[] = [];
  for await (const { bytes } of log.readFrom(1)) {
    const id = (wirePackr.unpack(bytes) as unknown[])[0] as number;
    messages.push({ id, rids: decodeMessage(bytes).flatMap(({ command }) => (command.kind === "ping" ? [command.ping.rid ?? ""] : [])) });
  }
  return messages;
}

const rids = (count: number, prefix: string) => Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(2, "0")}`);

test("commands appended together are one log message; a new owner replays its records in order", async () => {
  await withNatsServer("a batch in one log message", async (connect) => {
    const nc = await connect();
    const a = await PartitionReplica.open({ connection: nc, partition: PARTITION, replicas: 1, newId });
    await a.takeOver(T0);
    const check = await projectWithCheck(a);
    const sent = rids(20, "one");
    const answers = await a.submitAll(sent.map((rid, i) => pingOf(check.uuid, T0 + (i + 1) * SECOND, rid)));
    assert.equal(
      answers.map((answer) => answer.result.ok),
      sent.map(() => true),
    );
    assert.is(new Set(answers.map((answer) => answer.position)).size, 1, "every ping at its message's position");
    assert.is(nPings(a, check), 20);
    const pingMessages = (await logMessages(connect)).filter((m) => m.rids.length > 0);
    assert.equal(pingMessages, [{ id: RECORD_IDS.batch, rids: sent }]);

    a.abandon();
    const b = await PartitionReplica.open({ connection: nc, partition: PARTITION, replicas: 1, newId });
    const report = await b.takeOver(T0 + 30 * SECOND);
    assert.is(report.replayed, 23, "A's advance at its takeover, the project, the check and the 20 pings");
    assert.is(nPings(b, check), 20);
    const last = b.read((shard) => shard.getCheck(check.projectId, check.uuid));
    assert.ok(last.ok);
    assert.is(last.value.lastPingAt, T0 + 20 * SECOND, "applied in the batch's order");
  });
});

test("a batch larger than maxMessageBytes goes as several messages, in order, each record once", async () => {
  await withNatsServer("a batch split by its size", async (connect) => {
    const nc = await connect();
    const options: PartitionReplicaOptions = { connection: nc, partition: PARTITION, replicas: 1, newId, maxMessageBytes: 1_000 };
    const a = await PartitionReplica.open(options);
    await a.takeOver(T0);
    const check = await projectWithCheck(a);
    const recordBytes = encodeRecord({ command: pingOf(check.uuid, T0 + SECOND, "split-00"), ids: [] }).length;
    const sent = rids(12, "split");
    await a.submitAll(sent.map((rid, i) => pingOf(check.uuid, T0 + (i + 1) * SECOND, rid)));
    const pingMessages = (await logMessages(connect)).filter((m) => m.rids.length > 0);
    const perMessage = Math.floor(1_000 / recordBytes);
    assert.ok(perMessage >= 2 && perMessage < 12, `${recordBytes} bytes a record`);
    assert.equal(
      pingMessages.map((m) => m.rids.length),
      [...Array.from({ length: Math.floor(12 / perMessage) }, () => perMessage), ...(12 % perMessage > 0 ? [12 % perMessage] : [])],
    );
    assert.equal(
      pingMessages.flatMap((m) => m.rids),
      sent,
    );
    a.abandon();
    const b = await PartitionReplica.open(options);
    await b.takeOver(T0 + 30 * SECOND);
    assert.is(nPings(b, check), 12);
  });
});

test("a snapshot covers whole batch messages: a new owner loads it and replays only the messages after it", async () => {
  await withNatsServer("a snapshot between batch messages", async (connect) => {
    const nc = await connect();
    const a = await PartitionReplica.open({ connection: nc, partition: PARTITION, replicas: 1, newId });
    await a.takeOver(T0);
    const check = await projectWithCheck(a);
    await a.submitAll(rids(5, "before").map((rid, i) => pingOf(check.uuid, T0 + (i + 1) * SECOND, rid)));
    const outcome = await a.snapshot();
    assert.ok(outcome.saved);
    assert.is(a.snapshotSequence, a.applied);
    await a.submitAll(rids(3, "after").map((rid, i) => pingOf(check.uuid, T0 + (i + 10) * SECOND, rid)));
    a.abandon();
    const b = await PartitionReplica.open({ connection: nc, partition: PARTITION, replicas: 1, newId });
    const report = await b.takeOver(T0 + 30 * SECOND);
    assert.is(report.snapshotSequence, a.snapshotSequence);
    assert.is(report.replayed, 3, "the three pings of the batch after the snapshot");
    assert.is(nPings(b, check), 8);
  });
});

test("snapshots come every snapshotEvery records, however few messages hold them", async () => {
  await withNatsServer("a snapshot counted in records", async (connect) => {
    const nc = await connect();
    const a = await PartitionReplica.open({ connection: nc, partition: PARTITION, replicas: 1, newId, snapshotEvery: 10 });
    await a.takeOver(T0);
    const check = await projectWithCheck(a);
    assert.is(a.snapshotSequence, 0, "3 records so far");
    await a.submitAll(rids(12, "many").map((rid, i) => pingOf(check.uuid, T0 + (i + 1) * SECOND, rid)));
    await a.settled();
    assert.ok(a.lastSnapshotError === null, String(a.lastSnapshotError));
    assert.is(a.snapshotSequence, a.applied, "the snapshot after the 12 pings' one message");
  });
});

test("a log written one record per message (before batches) replays, and batches follow it", async () => {
  await withNatsServer("an old log replayed", async (connect) => {
    const nc = await connect();
    const owner = project({ id: newId(), createdAt: T0 });
    const uuid = newId(),
      badge = newId();
    const old = await JetStreamLog.open({ connection: nc, partition: PARTITION, replicas: 1 });
    await old.fence();
    await old.append([
      encodeRecord({ command: { kind: "createProject", project: owner, at: T0 }, ids: [] }),
      encodeRecord({
        command: {
          kind: "createCheck",
          projectId: owner.id,
          spec: { name: "old", timeoutMs: 3_600 * SECOND, graceMs: 60 * SECOND },
          unique: [],
          at: T0,
        },
        ids: [uuid, badge],
      }),
      encodeRecord({ command: pingOf(uuid, T0 + SECOND, "old-1"), ids: [] }),
      encodeRecord({ command: pingOf(uuid, T0 + 2 * SECOND, "old-2"), ids: [] }),
    ]);
    const replica = await PartitionReplica.open({ connection: nc, partition: PARTITION, replicas: 1, newId });
    const report = await replica.takeOver(T0 + 10 * SECOND);
    assert.is(report.replayed, 4);
    const check = replica.read((shard) => shard.getCheck(owner.id, uuid));
    assert.ok(check.ok);
    assert.is(check.value.nPings, 2);
    await replica.submitAll([pingOf(uuid, T0 + 11 * SECOND, "new-1"), pingOf(uuid, T0 + 12 * SECOND, "new-2")]);
    assert.is(nPings(replica, check.value), 4);
    assert.equal(
      (await logMessages(connect)).filter((m) => m.rids.length > 0).map((m) => m.rids),
      [["old-1"], ["old-2"], ["new-1", "new-2"]],
    );
  });
});

test("a batch message whose history the previous owner stored in part: the next owner stores the rest, each flip once", async () => {
  await withNatsServer("a batch's history completed by the next owner", async (connect) => {
    const nc = await connect();
    const historyOfA = await PartitionHistory.open({ connection: nc, partition: PARTITION, replicas: 1 });
    let markPartial = () => {};
    const partial = new Promise<void>((resolve) => {
      markPartial = resolve;
    });
    // A stops after the history of the batch's first two records: the rest of its records' never comes
    const effectsOfA = async ({ position, index, command, changes }: AppliedRecord) => {
      if (command.kind === "ping" && index >= 2) {
        markPartial();
        return new Promise<void>(() => {});
      }
      await historyOfA.record(position, changes, index);
    };
    const options = (effects: PartitionReplicaOptions["effects"], history: PartitionHistory): PartitionReplicaOptions => ({
      connection: nc,
      partition: PARTITION,
      replicas: 1,
      newId,
      effects,
      recordedUpTo: () => history.lastRecorded(),
    });
    const a = await PartitionReplica.open(options(effectsOfA, historyOfA));
    await a.takeOver(T0);
    const check = await projectWithCheck(a);
    // failure, success, failure, ...: every ping of the batch flips the check
    const sent = rids(5, "part").map((rid, i) => {
      const ping = pingOf(check.uuid, T0 + (i + 1) * SECOND, rid);
      return { ...ping, ping: { ...ping.ping, signal: i % 2 === 0 ? ("fail" as const) : ("success" as const) } };
    });
    a.submitAll(sent).catch(() => {});
    await partial;
    a.abandon();

    const historyOfB = await PartitionHistory.open({ connection: nc, partition: PARTITION, replicas: 1 });
    const b = await PartitionReplica.open(
      options((applied) => historyOfB.record(applied.position, applied.changes, applied.index), historyOfB),
    );
    await b.takeOver(T0 + 30 * SECOND);
    const stored = await historyOfB.flips(check.uuid, {});
    assert.equal(
      stored.map((f) => f.n),
      [5, 4, 3, 2, 1],
      "every flip of the batch in the history, once",
    );
    assert.equal(
      stored.map((f) => f.at).reverse(),
      sent.map((command) => command.ping.at),
    );
    assert.equal(stored.map((f) => f.to).reverse(), ["down", "up", "down", "up", "down"]);
  });
});

test.run();
