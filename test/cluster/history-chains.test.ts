// The records a partition's owner stores in its history within one turn, or handed over in later turns
// within the history's wait, go to a real nats-server as one chain of messages of which only the last asks
// for a PubAck. The chain holds only if each message is
// stored right after the one before it: a message the server refuses in the middle must leave every later
// one unstored and the whole group rejected, never a history with a hole that still reports success.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Flip } from "../../engine/model.ts";
import { flip, ping } from "../helpers.ts";
import { managerOf } from "../../cluster/jetstream-setup.ts";
import { HistoryGapError, PartitionHistory } from "../../cluster/partition-history.ts";
import { T0, withNatsServer } from "./held-appends.ts";

const A = "00000000-0000-4000-8000-00000000000a";
const B = "00000000-0000-4000-8000-00000000000b";
/** A check whose flips' messages (its uuid on every one) are far larger than the others'. */
const LONG = "c".repeat(1_500);
const PARTITION = 5;
/** Refused: LONG's flips; stored: A's and B's (the stream's limit counts the headers too). */
const SMALL_MESSAGES = 1_024;

const flipOf = (checkUuid: string, n: number): Flip =>
  flip({ checkUuid, n, at: T0 + n * 1_000, from: n % 2 === 1 ? "up" : "down", to: n % 2 === 1 ? "down" : "up" });
const flips = (...written: Flip[]) => ({ flips: written, deletedChecks: [] });
const numbers = (listed: readonly Flip[]) => listed.map((f) => f.n);
const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error,
  );

test("records of one turn stored as one chain: all of them, in order, and read back", async () => {
  await withNatsServer("the history's chained records", async (connect) => {
    const history = await PartitionHistory.open({ connection: await connect(), partition: PARTITION, replicas: 1 });
    // 30 records in one turn, 2 flips each (A and B); none awaited before the last is handed over
    const stored = Array.from({ length: 30 }, (_, i) => history.record(i + 1, flips(flipOf(A, i + 1), flipOf(B, i + 1))));
    await Promise.all(stored);
    assert.equal(
      numbers(await history.flips(A, {})),
      Array.from({ length: 30 }, (_, i) => 30 - i),
    );
    assert.equal(numbers(await history.flips(B, { fromAt: T0 + 26_000 })), [30, 29, 28, 27, 26]);
    assert.is(await history.lastRecorded(), 30);
  });
});

test("a message the server refuses in the middle of a chain: the later ones are not stored, the whole group fails, and later records are refused", async () => {
  await withNatsServer("a refused message in the history's chain", async (connect) => {
    const nc = await connect();
    const history = await PartitionHistory.open({ connection: nc, partition: PARTITION, replicas: 1 });
    await history.record(1, flips(flipOf(A, 1)));
    // the stream refuses messages over 1 kB (the client still sends them: NATS's payload limit is 1 MB)
    const jsm = await managerOf(nc);
    const info = await jsm.streams.info(history.stream);
    await jsm.streams.update(history.stream, { ...info.config, max_msg_size: SMALL_MESSAGES });

    // one turn: A2, then LONG's flip too large for the stream, then B1 and A3 chained after it
    const group = [
      history.record(2, flips(flipOf(A, 2))),
      history.record(3, flips(flipOf(LONG, 1), flipOf(B, 1))),
      history.record(4, flips(flipOf(A, 3))),
    ].map(errorOf);
    const [second, third, fourth] = await Promise.all(group);
    assert.instance(second, Error, "the group fails as one: its last message was refused");
    assert.instance(third, Error);
    assert.instance(fourth, Error);
    // stored: the start of what was sent, up to the refused message, nothing after it
    assert.equal(numbers(await history.flips(A, {})), [2, 1]);
    assert.equal(await history.flips(B, {}), []);
    assert.equal(await history.flips(LONG, {}), []);
    assert.is(await history.lastRecorded(), 2);
    // and every later record is refused until the history is opened again (a takeover's replay)
    assert.instance(await errorOf(history.record(5, flips(flipOf(A, 4)))), HistoryGapError);
    await jsm.streams.update(history.stream, { ...info.config, max_msg_size: -1 });
    const again = await PartitionHistory.open({ connection: nc, partition: PARTITION, replicas: 1 });
    const from = await again.lastRecorded();
    await Promise.all([
      again.record(from, flips(flipOf(A, 2))),
      again.record(3, flips(flipOf(LONG, 1), flipOf(B, 1))),
      again.record(4, flips(flipOf(A, 3))),
    ]);
    assert.equal(numbers(await again.flips(A, {})), [3, 2, 1], "A2 stored once: its second copy was a duplicate");
    assert.equal(numbers(await again.flips(B, {})), [1]);
    assert.equal(await again.flips(LONG, {}), [flipOf(LONG, 1)]);
  });
});

test("records handed over in separate turns within the wait go as one chain: a refused message fails the records before it too", async () => {
  await withNatsServer("the history's chain across turns", async (connect) => {
    const nc = await connect();
    const history = await PartitionHistory.open({ connection: nc, partition: PARTITION, replicas: 1, groupWaitMs: 2_000 });
    await history.record(1, flips(flipOf(A, 1)));
    const jsm = await managerOf(nc);
    const info = await jsm.streams.info(history.stream);
    await jsm.streams.update(history.stream, { ...info.config, max_msg_size: SMALL_MESSAGES });
    const laterTurn = () => new Promise((resolve) => setTimeout(resolve, 1));
    // A2, then (turns later) LONG's flip too large for the stream: alone, A2 would be its own chain and stored
    const second = errorOf(history.record(2, flips(flipOf(A, 2))));
    await laterTurn();
    const third = errorOf(history.record(3, flips(flipOf(LONG, 1))));
    await laterTurn();
    const fourth = errorOf(history.record(4, flips(flipOf(A, 3))));
    assert.instance(await second, Error, "A2 went in one chain with the refused message after it");
    assert.instance(await third, Error);
    assert.instance(await fourth, Error);
    assert.equal(numbers(await history.flips(A, {})), [2, 1], "the chain's start is stored, nothing after the refused message");
  });
});

test("a new owner's replay of the record at lastRecorded(), whose flips were stored before a segment: stored once, and the records after it too", async () => {
  await withNatsServer("a replayed record followed by new ones", async (connect) => {
    const nc = await connect();
    const first = await PartitionHistory.open({ connection: nc, partition: PARTITION, replicas: 1 });
    await first.record(1, flips(flipOf(A, 1), flipOf(B, 1)));
    // the owner's held pings stored at a snapshot covering record 1: the stream's last message is not a flip
    await first.storeSegments(1, new Map([[A, [{ record: ping({ n: 1, at: T0 }), body: null }]]]));
    // a new owner replays from lastRecorded() (1): record 1's flips again (duplicates), and record 2's, in one turn
    const again = await PartitionHistory.open({ connection: nc, partition: PARTITION, replicas: 1 });
    assert.is(await again.lastRecorded(), 1);
    await Promise.all([again.record(1, flips(flipOf(A, 1), flipOf(B, 1))), again.record(2, flips(flipOf(A, 2)))]);
    assert.equal(numbers(await again.flips(A, {})), [2, 1]);
    assert.equal(numbers(await again.flips(B, {})), [1]);
    assert.is(await again.lastRecorded(), 2);
  });
});

test.run();
