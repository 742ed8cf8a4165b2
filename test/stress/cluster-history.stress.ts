// A partition's ping logs and flips on a real three-server JetStream cluster (PartitionHistory): pings
// stored as segments and flips as records, pipelined, and read back (a check's newest pings with a limit,
// bodies, flips in a time range, a flip by number); a check of more than 1,000 pings keeps the segments
// holding its newest 1,000 and one more; a position stored again lists nothing twice; a deleted check's pings and flips are gone while lastRecorded() still answers;
// when no consumer can be made, reads go by message gets and answer the same; and after the SIGKILL of
// the server leading the stream, lastRecorded() and reads answer through the two left, and writes go on.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { AckPolicy } from "@nats-io/jetstream";
import type { PingWrite } from "../../engine/changes.ts";
import type { Flip, PingRecord } from "../../engine/model.ts";
import type { HeldPing } from "../../cluster/ping-tail.ts";
import { managerOf } from "../../cluster/jetstream-setup.ts";
import { HistoryGapError, PartitionHistory } from "../../cluster/partition-history.ts";
import { haveProgram } from "../ops/extras.ts";
import { pingWrite as historyPing } from "../helpers.ts";
import { retryUntil, withNatsCluster } from "./nats-cluster.ts";

const HAVE_NATS = haveProgram("nats-server", "a partition's ping logs and flips on a JetStream cluster");
const T0 = 1_800_000_000_000;
const MINUTE = 60_000;
const PROJECT = "00000000-0000-4000-8000-0000000000aa";
const A = "00000000-0000-4000-8000-00000000000a";
const B = "00000000-0000-4000-8000-00000000000b";
const NO_CHANGES = { flips: [], deletedChecks: [] };

/** Retries until the cluster answers (nats-cluster.ts retryUntil), for at most 120,000 ms. */
const eventually = <T>(attempt: () => Promise<T>): Promise<T> => retryUntil(attempt, { timeoutMs: 120_000, everyMs: 250 });

const bodyOf = (n: number) => new TextEncoder().encode(`body of ping ${n}`);
const hasBody = (n: number) => n % 7 === 0;
function pingWrite(checkUuid: string, n: number): PingWrite {
  return historyPing(PROJECT, checkUuid, n, T0, hasBody(n) ? bodyOf(n) : null, "stress");
}
/**
 * Stores what a record at `position` changed as its owner does: its flips and deleted checks as a record,
 * its pings as segments (an owner holds them until a snapshot stores them at the last record's position).
 */
function store(
  history: PartitionHistory,
  position: number,
  changes: { pings: readonly PingWrite[]; flips: readonly Flip[]; deletedChecks: readonly { projectId: string; uuid: string }[] },
): Promise<unknown> {
  const held = new Map<string, HeldPing[]>();
  for (const ping of changes.pings)
    held.set(ping.checkUuid, [...(held.get(ping.checkUuid) ?? []), { record: ping.record, body: ping.body }]);
  return Promise.all([
    history.record(position, { flips: [...changes.flips], deletedChecks: [...changes.deletedChecks] }),
    history.storeSegments(position, held),
  ]);
}
const flipOf = (checkUuid: string, n: number): Flip => ({
  checkUuid,
  n,
  at: T0 + n * MINUTE,
  from: n % 2 === 0 ? "down" : "up",
  to: n % 2 === 0 ? "up" : "down",
  reason: n % 2 === 0 ? "" : "timeout",
  notify: true,
});

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ns = (pings: readonly PingRecord[]) => pings.map((p) => p.n);
const range = (from: number, to: number) => Array.from({ length: Math.abs(to - from) + 1 }, (_, i) => (from <= to ? from + i : from - i));

test("records are stored pipelined and read back; a check keeps the segments holding its newest 1,000 pings; a record stored again lists nothing twice; a deleted check's history is gone", async () => {
  if (!HAVE_NATS) return;
  await withNatsCluster(async (_cluster, connection) => {
    const nc = await connection(0);
    const history = await eventually(() => PartitionHistory.open({ connection: nc, partition: 7, replicas: 3 }));
    assert.is(await history.lastRecorded(), 0);

    // A: 1,200 pings in 120 records of 10 (a segment each) and a flip every 20 records (6); B: 5 pings and 2 flips, in record 121.
    // Every record is sent before the first is acknowledged.
    const PINGS = 1_200,
      PER_RECORD = 10,
      RECORDS = PINGS / PER_RECORD;
    const recordAt = (position: number) => ({
      pings: range((position - 1) * PER_RECORD + 1, position * PER_RECORD).map((n) => pingWrite(A, n)),
      flips: position % 20 === 0 ? [flipOf(A, position / 20)] : [],
      deletedChecks: [],
    });
    const started = performance.now();
    await Promise.all(range(1, RECORDS).map((position) => store(history, position, recordAt(position))));
    const storeMs = performance.now() - started;
    const bRecord = { pings: range(1, 5).map((n) => pingWrite(B, n)), flips: [flipOf(B, 1), flipOf(B, 2)], deletedChecks: [] };
    await store(history, RECORDS + 1, bRecord);
    assert.is(await history.lastRecorded(), RECORDS + 1);

    // newest first, at most the limit
    assert.equal(ns(await history.pings(A, 10)), range(PINGS, PINGS - 9));
    assert.equal(ns(await history.pings(A, 1)), [PINGS]);
    assert.equal(ns(await history.pings(B, 10)), [5, 4, 3, 2, 1]);
    // only the segments holding the newest 1,000 are kept, and one more (segments of 10 here)
    const all = await history.pings(A, 5_000);
    assert.equal(ns(all), range(PINGS, PINGS - 1_009));
    assert.equal(all[0], pingWrite(A, PINGS).record);
    assert.equal(ns(await history.pings(A, 1_000)), range(PINGS, PINGS - 999));
    // bodies: the newest, one found among the kept, none for a ping without one, none once trimmed
    assert.equal(await history.pingBody(A, 1_197), bodyOf(1_197));
    assert.equal(await history.pingBody(A, 1_001), bodyOf(1_001));
    assert.equal(await history.pingBody(A, 196), bodyOf(196)); // the oldest kept with a body (191 is the oldest kept)
    assert.is(await history.pingBody(A, 1_198), null);
    assert.is(await history.pingBody(A, 189), null); // had one, trimmed
    assert.is(await history.pingBody(A, PINGS + 7), null);
    assert.equal(await history.pingBody(B, 0 + 7 - 7 + 5), null); // B's ping 5 has none
    // flips: newest first, fromAt inclusive, toAt exclusive
    assert.equal(
      (await history.flips(A, {})).map((f) => f.n),
      [6, 5, 4, 3, 2, 1],
    );
    assert.equal(
      (await history.flips(A, { fromAt: T0 + 2 * MINUTE, toAt: T0 + 5 * MINUTE })).map((f) => f.n),
      [4, 3, 2],
    );
    assert.equal(
      (await history.flips(A, { fromAt: T0 + 6 * MINUTE })).map((f) => f.n),
      [6],
    );
    assert.equal(await history.flips(B, {}), [flipOf(B, 2), flipOf(B, 1)]);
    assert.equal(await history.flipNumber(A, 3), flipOf(A, 3));
    assert.equal(await history.flipNumber(A, 6), flipOf(A, 6));
    assert.is(await history.flipNumber(A, 7), null);

    // the same positions stored again (a replay after a takeover): its flips are dropped as duplicates, its
    // pings (segments of their own) listed once
    await Promise.all([store(history, RECORDS, recordAt(RECORDS)), store(history, RECORDS + 1, bRecord)]);
    assert.equal(ns(await history.pings(A, 20)), range(PINGS, PINGS - 19));
    assert.equal(ns(await history.pings(B, 10)), [5, 4, 3, 2, 1]);
    assert.equal(
      (await history.flips(A, {})).map((f) => f.n),
      [6, 5, 4, 3, 2, 1],
    );
    assert.is((await history.flips(B, {})).length, 2);
    assert.is(await history.lastRecorded(), RECORDS + 1);

    // read times (medians of 5), before B goes
    const reads: Record<string, number[]> = {
      "pings(A, 1000)": [],
      "pings(A, 100)": [],
      "pings(A, 10)": [],
      "pingBody(A, 1001)": [],
      "flips(A)": [],
    };
    for (let i = 0; i < 5; i++) {
      reads["pings(A, 1000)"].push((await timed(() => history.pings(A, 1_000))).ms);
      reads["pings(A, 100)"].push((await timed(() => history.pings(A, 100))).ms);
      reads["pings(A, 10)"].push((await timed(() => history.pings(A, 10))).ms);
      reads["pingBody(A, 1001)"].push((await timed(() => history.pingBody(A, 1_001))).ms);
      reads["flips(A)"].push((await timed(() => history.flips(A, {}))).ms);
    }

    // B deleted: its pings and flips go, A's stay, and lastRecorded() answers the deletion's position
    await history.record(RECORDS + 2, { flips: [], deletedChecks: [{ projectId: PROJECT, uuid: B }] });
    assert.equal(await history.pings(B, 10), []);
    assert.equal(await history.flips(B, {}), []);
    assert.is(await history.flipNumber(B, 2), null);
    assert.is(await history.pingBody(B, 4), null);
    assert.is((await history.pings(A, 1_000)).length, 1_000);
    assert.is(await history.lastRecorded(), RECORDS + 2);
    // an empty change publishes nothing
    await history.record(RECORDS + 3, NO_CHANGES);
    assert.is(await history.lastRecorded(), RECORDS + 2);
    // a deletion with records sent right after it (theirs chained to its tombstone)
    await Promise.all([
      history.record(RECORDS + 4, { flips: [], deletedChecks: [{ projectId: PROJECT, uuid: A }] }),
      store(history, RECORDS + 5, { pings: range(1, 3).map((n) => pingWrite(B, n)), flips: [], deletedChecks: [] }),
      store(history, RECORDS + 6, { pings: range(4, 6).map((n) => pingWrite(B, n)), flips: [flipOf(B, 1)], deletedChecks: [] }),
    ]);
    assert.equal(await history.pings(A, 1_000), []);
    assert.equal(await history.flips(A, {}), []);
    assert.equal(ns(await history.pings(B, 10)), [6, 5, 4, 3, 2, 1]);
    // and a new owner's view (another connection, through another server) is the same
    const other = await PartitionHistory.open({ connection: await connection(2), partition: 7, replicas: 3 });
    assert.is(await other.lastRecorded(), RECORDS + 6);
    assert.equal(ns(await other.pings(B, 2)), [6, 5]);
    assert.equal(await other.flipNumber(B, 1), flipOf(B, 1));

    console.log(
      `  stored ${PINGS + 5} pings and ${6 + 2} flips in ${RECORDS + 1} records, pipelined: ${storeMs.toFixed(0)} ms; reads (median of 5): ` +
        Object.entries(reads)
          .map(([what, ms]) => `${what} ${median(ms).toFixed(1)} ms`)
          .join(", "),
    );
  });
});

test("when no consumer can be made, reads go by message gets and answer the same: newest pings with a limit, bodies, flips", async () => {
  if (!HAVE_NATS) return;
  await withNatsCluster(async (_cluster, connection) => {
    const nc = await connection(0);
    // the partition's stream made beforehand with room for one consumer, and that one taken: every
    // consumer a read asks for is refused (as a cluster without a meta leader refuses it)
    const jsm = await managerOf(nc);
    const stream = "HCD_HIST_11";
    await eventually(() =>
      jsm.streams.add({ name: stream, subjects: ["hcd.hist.11.>"], num_replicas: 3, max_consumers: 1, max_msgs_per_subject: 1_000 }),
    );
    await jsm.consumers.add(stream, { durable_name: "taken", ack_policy: AckPolicy.None });
    const history = await PartitionHistory.open({ connection: nc, partition: 11, replicas: 3 });
    assert.is(history.stream, stream);
    await Promise.all(
      range(1, 30).map((position) =>
        store(history, position, {
          pings: [pingWrite(A, position)],
          flips: position % 10 === 0 ? [flipOf(A, position / 10)] : [],
          deletedChecks: [],
        }),
      ),
    );
    const refused = await jsm.consumers.add(stream, { ack_policy: AckPolicy.None }).then(
      () => null,
      (error: unknown) => error,
    );
    assert.ok(refused !== null, "a second consumer is refused");

    assert.equal(ns(await history.pings(A, 10)), range(30, 21));
    assert.equal(ns(await history.pings(A, 100)), range(30, 1));
    assert.equal(await history.pingBody(A, 28), bodyOf(28));
    assert.equal(await history.pingBody(A, 7), bodyOf(7));
    assert.is(await history.pingBody(A, 8), null);
    assert.equal(
      (await history.flips(A, {})).map((f) => f.n),
      [3, 2, 1],
    );
    assert.equal(await history.flipNumber(A, 2), flipOf(A, 2));
  });
});

test("after the SIGKILL of the server leading the stream, lastRecorded() and reads answer through the two left, and writes go on", async () => {
  if (!HAVE_NATS) return;
  await withNatsCluster(async (cluster, connection) => {
    const writer = await PartitionHistory.open({ connection: await connection(0), partition: 3, replicas: 3 });
    await Promise.all(
      range(1, 50).map((position) => store(writer, position, { pings: [pingWrite(A, position)], flips: [], deletedChecks: [] })),
    );
    const jsm = await managerOf(await connection(0));
    const leaderName = (await jsm.streams.info(writer.stream)).cluster?.leader;
    const leader = cluster.servers.findIndex((s) => s.name === leaderName);
    assert.ok(leader >= 0, `history leader ${leaderName}`);
    await cluster.stop(leader, "SIGKILL");

    const started = performance.now();
    const reader = await eventually(async () =>
      PartitionHistory.open({ connection: await connection((leader + 1) % 3), partition: 3, replicas: 3 }),
    );
    assert.is(await eventually(() => reader.lastRecorded()), 50);
    const answeredMs = performance.now() - started;
    assert.equal(ns(await eventually(() => reader.pings(A, 5))), [50, 49, 48, 47, 46]);
    assert.equal(await eventually(() => reader.pingBody(A, 49)), bodyOf(49));
    // writes go on (the record is sent again until a new leader takes it, stored once)
    await eventually(() => store(reader, 51, { pings: [pingWrite(A, 51)], flips: [flipOf(A, 1)], deletedChecks: [] }));
    assert.is(await reader.lastRecorded(), 51);
    assert.equal(ns(await reader.pings(A, 100)), range(51, 1));
    assert.equal(await reader.flipNumber(A, 1), flipOf(A, 1));
    console.log(`  leader ${leaderName} killed; lastRecorded() answered through the two left after ${answeredMs.toFixed(0)} ms`);
  });
});

test("what is stored is the start of what was sent: after a lost message the later ones are refused, and so is every later record; opened again, a replay from lastRecorded() stores the rest once and in order", async () => {
  if (!HAVE_NATS) return;
  await withNatsCluster(async (cluster, connection) => {
    const pingsAt = (position: number, ...more: PingWrite[]) => ({
      pings: [pingWrite(A, position), ...more],
      flips: [],
      deletedChecks: [],
    });
    const open = async (first: number) =>
      PartitionHistory.open({ connection: await connection(first), partition: 4, replicas: 3, ackTimeoutMs: 1_000 });
    const errorOf = (promise: Promise<unknown>) =>
      promise.then(
        () => null,
        (error: unknown) => error,
      );
    const writer = await open(0);
    await Promise.all(range(1, 20).map((position) => store(writer, position, pingsAt(position))));

    // a message lost in the middle of a pipeline (here one the client refuses to send: a segment of 2 MB,
    // over the servers' 1 MB payload limit): the messages sent after it, of its unit and the next, are refused
    const tooLarge: PingWrite = { ...pingWrite(B, 1), body: new Uint8Array(2_000_000) };
    const [lost, next] = await Promise.all([
      errorOf(store(writer, 21, pingsAt(21, tooLarge, pingWrite(B, 2)))),
      errorOf(store(writer, 22, pingsAt(22))),
    ]);
    assert.instance(lost, Error);
    assert.instance(next, Error);
    // the chain's messages before the refused one went without a PubAck: they may be stored just after the refusal
    await retryUntil(async () => assert.equal(ns(await writer.pings(A, 100)), range(21, 1)), { timeoutMs: 10_000, everyMs: 50 });
    assert.equal(await writer.pings(B, 10), []);
    assert.is(await writer.lastRecorded(), 21);
    // and every later record, until the history is opened again
    assert.instance(await errorOf(writer.storeSegments(23, new Map([[A, [pingWrite(A, 23)]]]))), HistoryGapError);
    const again = await open(1);
    const from = await again.lastRecorded();
    for (const position of range(from, 23)) await store(again, position, pingsAt(position));
    assert.equal(ns(await again.pings(A, 100)), range(23, 1));

    // no quorum (two of the three servers gone): a record fails, and the later ones are refused after the quorum is back
    await cluster.stop(1, "SIGKILL");
    await cluster.stop(2, "SIGKILL");
    const failure = await errorOf(store(again, 24, pingsAt(24)));
    assert.instance(failure, Error);
    assert.not.instance(failure, HistoryGapError);
    // both back at once: one restarted beside the server left alone can take Debian's 2.9.10 over 30 s to
    // elect a meta leader with it (seen once), which is NATS's start-up, not what this test is about
    await Promise.all([cluster.restart(1), cluster.restart(2)]);
    assert.instance(await errorOf(again.storeSegments(25, new Map([[A, [pingWrite(A, 25)]]]))), HistoryGapError);
    let replayedFrom = 0;
    await eventually(async () => {
      const history = await open(1);
      replayedFrom = await history.lastRecorded();
      for (const position of range(replayedFrom, 25)) await store(history, position, pingsAt(position));
    });
    assert.ok(replayedFrom === 23 || replayedFrom === 24, `replayed from ${replayedFrom}`);
    const reader = await PartitionHistory.open({ connection: await connection(2), partition: 4, replicas: 3 });
    assert.equal(ns(await eventually(() => reader.pings(A, 100))), range(25, 1));
    assert.is(await reader.lastRecorded(), 25);
    console.log(
      `  a lost message: ${(lost as Error).message.slice(0, 60)}; the next record: ${(next as Error).message.slice(0, 60)}; ` +
        `without a quorum: ${(failure as Error).message.slice(0, 60)}, replayed from ${replayedFrom}`,
    );
  });
});

test.run();
