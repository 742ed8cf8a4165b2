// A partition's records and snapshots survive encoding; a shard loaded from a decoded snapshot and fed the
// same later commands as the original gives the flips and notifications stated below, in the channels'
// creation order.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { ShardCommand } from "../../engine/commands.ts";
import { Shard } from "../../engine/shard.ts";
import type { PartitionRecord } from "../../cluster/partition-codec.ts";
import {
  decodeMessage,
  decodeRecord,
  decodeSnapshot,
  decodeSnapshotHead,
  encodeMessage,
  encodeRecord,
  encodeSnapshot,
  encodeSnapshotHead,
  loadSnapshot,
  snapshotOf,
} from "../../cluster/partition-codec.ts";
import { channel, project } from "../helpers.ts";

const T0 = 1_700_000_000_000;
const SECOND = 1_000;
const CHECK_UUID = "00000000-0000-4000-8000-00000000c0c0";
const BADGE_KEY = "00000000-0000-4000-8000-00000000badd";
const owner = project({ id: "00000000-0000-4000-8000-0000000000aa", createdAt: T0 });
// created "zeta" first, then "alpha": notifications follow creation order, not id or name order
const zeta = channel({ id: "00000000-0000-4000-8000-00000000ffff", projectId: owner.id, name: "zeta", createdAt: T0 });
const alpha = channel({ id: "00000000-0000-4000-8000-000000000001", projectId: owner.id, name: "alpha", createdAt: T0 });

const ping = (at: number, body: Uint8Array | null = null): ShardCommand => ({
  kind: "ping",
  ping: {
    target: { uuid: CHECK_UUID },
    signal: "success",
    exitStatus: null,
    method: "POST",
    scheme: "http",
    remoteAddr: "127.0.0.1",
    ua: "curl",
    rid: null,
    body,
    at,
  },
});

/** A shard whose ids come from the records applied to it, as a partition replica's does. */
function recordShard(now: number): { shard: Shard; apply: (record: PartitionRecord) => void } {
  let ids: string[] = [];
  const shard = new Shard({
    now,
    newId: () => {
      const id = ids.shift();
      if (id === undefined) throw new Error("no id left");
      return id;
    },
  });
  return {
    shard,
    apply: (record) => {
      ids = [...record.ids];
      shard.apply(record.command);
    },
  };
}

const history: PartitionRecord[] = [
  { command: { kind: "createProject", project: owner, at: T0 }, ids: [] },
  { command: { kind: "addChannel", channel: zeta, at: T0 }, ids: [] },
  { command: { kind: "addChannel", channel: alpha, at: T0 }, ids: [] },
  {
    command: {
      kind: "createCheck",
      projectId: owner.id,
      spec: { name: "backup", timeoutMs: 60 * SECOND, graceMs: 30 * SECOND, channels: { all: true } },
      unique: [],
      at: T0,
    },
    ids: [CHECK_UUID, BADGE_KEY],
  },
  { command: ping(T0 + 10 * SECOND, new Uint8Array([1, 2, 3])), ids: [] },
];

test("a command record decodes to the same command and ids, a ping's body as a plain Uint8Array", () => {
  for (const record of history) assert.equal(decodeRecord(encodeRecord(record)), record);
  const body = decodeRecord(encodeRecord(history[4])).command;
  assert.ok(body.kind === "ping" && body.ping.body?.constructor === Uint8Array);
});

test("a log message holds one record as a command message, several as a batch message, and both decode to the records in order", () => {
  const single = encodeMessage([encodeRecord(history[4])]);
  assert.equal(single, encodeRecord(history[4]), "one record: the command message a log held before batches");
  assert.equal(decodeMessage(single), [history[4]]);
  const batch = encodeMessage(history.map(encodeRecord));
  assert.equal(decodeMessage(batch), history);
  const body = decodeMessage(batch)[4].command;
  assert.ok(body.kind === "ping" && body.ping.body?.constructor === Uint8Array);
  const reused = new Uint8Array(batch); // a copy (a Buffer's slice is a view)
  const kept = decodeMessage(reused);
  reused.fill(0); // the client may hand the next message in the same buffer: nothing decoded may be a view into it
  assert.equal(kept, history, "what was decoded is unchanged once the message's buffer is overwritten");
  assert.throws(() => decodeRecord(batch), /not a partition command record/);
  assert.throws(
    () => decodeMessage(encodeSnapshotHead({ logSequence: 1, firstChunk: 1, chunks: 1, bytes: 1 })),
    /not a partition command record/,
  );
});

test("each kind of message refuses to be read as another", () => {
  const head = encodeSnapshotHead({ logSequence: 42, firstChunk: 7, chunks: 3, bytes: 600_000 });
  assert.equal(decodeSnapshotHead(head), { logSequence: 42, firstChunk: 7, chunks: 3, bytes: 600_000 });
  assert.throws(() => decodeRecord(head), /not a partition command record/);
  assert.throws(() => decodeSnapshot(encodeRecord(history[0])), /not a partition snapshot record/);
});

test("a decoded snapshot holds the projects, channels in creation order, and checks with their state", () => {
  const original = recordShard(T0);
  for (const record of history) original.apply(record);
  const decoded = decodeSnapshot(encodeSnapshot(snapshotOf(original.shard, T0 + 10 * SECOND, 0)));
  assert.is(decoded.at, T0 + 10 * SECOND);
  assert.equal(
    decoded.projects.map((p) => p.project),
    [owner],
  );
  assert.equal(
    decoded.projects[0].channels.map((c) => c.name),
    ["zeta", "alpha"],
  );
  const [stored] = decoded.projects[0].checks;
  assert.equal(
    [stored.uuid, stored.badgeKey, stored.status, stored.nPings, stored.lastPingAt],
    [CHECK_UUID, BADGE_KEY, "up", 1, T0 + 10 * SECOND],
  );
});

test("a shard loaded from a decoded snapshot, given the same later commands, flips as the original: down at the due time", () => {
  const original = recordShard(T0);
  for (const record of history) original.apply(record);
  original.shard.takeChanges();
  const copy = recordShard(T0 + 10 * SECOND);
  loadSnapshot(copy.shard, decodeSnapshot(encodeSnapshot(snapshotOf(original.shard, T0 + 10 * SECOND, 0))));

  // last ping at T0+10 s, timeout 60 s, grace 30 s: down at T0+100 s, whenever the advance comes
  const later: PartitionRecord[] = [
    { command: { kind: "advance", at: T0 + 99 * SECOND }, ids: [] },
    { command: { kind: "advance", at: T0 + 500 * SECOND }, ids: [] },
    { command: ping(T0 + 600 * SECOND), ids: [] },
  ];
  const expectedFlips = [
    { checkUuid: CHECK_UUID, n: 2, at: T0 + 100 * SECOND, from: "up", to: "down", reason: "timeout", notify: true },
    { checkUuid: CHECK_UUID, n: 3, at: T0 + 600 * SECOND, from: "down", to: "up", reason: "", notify: true },
  ];
  for (const replica of [original, copy]) {
    const flips = [],
      notified = [];
    for (const record of later) {
      replica.apply(record);
      const changes = replica.shard.takeChanges();
      flips.push(...changes.flips);
      notified.push(...changes.outbox.map((entry) => `${entry.flip.to}@${entry.flip.at - T0}:${entry.channel.id}`));
    }
    assert.equal(flips, expectedFlips);
    assert.equal(notified, [`down@100000:${zeta.id}`, `down@100000:${alpha.id}`, `up@600000:${zeta.id}`, `up@600000:${alpha.id}`]);
  }
  assert.equal(copy.shard.snapshot(), original.shard.snapshot());
});

test.run();
