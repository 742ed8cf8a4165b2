// The records a partition's owner stores in its history within one turn, or handed over in later turns
// within the history's wait, go to a real nats-server as one chain of messages of which only the last asks
// for a PubAck. The chain holds only if each message is
// stored right after the one before it: a message the server refuses in the middle must leave every later
// one unstored and the whole group rejected, never a history with a hole that still reports success.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { PingWrite } from "../../engine/changes.ts";
import { pingWrite as historyPing } from "../helpers.ts";
import { managerOf } from "../../cluster/jetstream-setup.ts";
import { HistoryGapError, PartitionHistory } from "../../cluster/partition-history.ts";
import { T0, withNatsServer } from "./held-appends.ts";

const PROJECT = "00000000-0000-4000-8000-0000000000aa";
const A = "00000000-0000-4000-8000-00000000000a";
const B = "00000000-0000-4000-8000-00000000000b";
const PARTITION = 5;

const pingWrite = (checkUuid: string, n: number, body: Uint8Array | null = null) => historyPing(PROJECT, checkUuid, n, T0, body);
const pings = (...writes: PingWrite[]) => ({ pings: writes, flips: [], deletedChecks: [] });
const errorOf = (promise: Promise<unknown>) => promise.then(() => null, (error: unknown) => error);

test("records of one turn stored as one chain: all of them, in order, and read back", async () => {
  await withNatsServer("the history's chained records", async (connect) => {
    const history = await PartitionHistory.open({ connection: await connect(), partition: PARTITION, replicas: 1 });
    // 30 records in one turn, 2 pings each (A and B); none awaited before the last is handed over
    const stored = Array.from({ length: 30 }, (_, i) => history.record(i + 1, pings(pingWrite(A, i + 1), pingWrite(B, i + 1))));
    await Promise.all(stored);
    assert.equal((await history.pings(A, 100)).map((p) => p.n), Array.from({ length: 30 }, (_, i) => 30 - i));
    assert.equal((await history.pings(B, 5)).map((p) => p.n), [30, 29, 28, 27, 26]);
    assert.is(await history.lastRecorded(), 30);
  });
});

test("a message the server refuses in the middle of a chain: the later ones are not stored, the whole group fails, and later records are refused", async () => {
  await withNatsServer("a refused message in the history's chain", async (connect) => {
    const nc = await connect();
    const history = await PartitionHistory.open({ connection: nc, partition: PARTITION, replicas: 1 });
    await history.record(1, pings(pingWrite(A, 1)));
    // the stream refuses messages over 64 kB (the client still sends them: NATS's payload limit is 1 MB)
    const jsm = await managerOf(nc);
    const info = await jsm.streams.info(history.stream);
    await jsm.streams.update(history.stream, { ...info.config, max_msg_size: 64 * 1024 });

    // one turn: A2, then B1 too large for the stream, then B2 and A3 chained after it
    const group = [
      history.record(2, pings(pingWrite(A, 2))),
      history.record(3, pings(pingWrite(B, 1, new Uint8Array(100_000)), pingWrite(B, 2))),
      history.record(4, pings(pingWrite(A, 3))),
    ].map(errorOf);
    const [second, third, fourth] = await Promise.all(group);
    assert.instance(second, Error, "the group fails as one: its last message was refused");
    assert.instance(third, Error);
    assert.instance(fourth, Error);
    // stored: the start of what was sent, up to the refused message, nothing after it
    assert.equal((await history.pings(A, 10)).map((p) => p.n), [2, 1]);
    assert.equal(await history.pings(B, 10), []);
    assert.is(await history.lastRecorded(), 2);
    // and every later record is refused until the history is opened again (a takeover's replay)
    assert.instance(await errorOf(history.record(5, pings(pingWrite(A, 4)))), HistoryGapError);
    await jsm.streams.update(history.stream, { ...info.config, max_msg_size: -1 });
    const again = await PartitionHistory.open({ connection: nc, partition: PARTITION, replicas: 1 });
    const from = await again.lastRecorded();
    await Promise.all([
      again.record(from, pings(pingWrite(A, 2))),
      again.record(3, pings(pingWrite(B, 1, new Uint8Array(100_000)), pingWrite(B, 2))),
      again.record(4, pings(pingWrite(A, 3))),
    ]);
    assert.equal((await again.pings(A, 10)).map((p) => p.n), [3, 2, 1]);
    assert.equal((await again.pings(B, 10)).map((p) => p.n), [2, 1]);
    assert.equal((await again.pingBody(B, 1))?.length, 100_000);
  });
});

test("records handed over in separate turns within the wait go as one chain: a refused message fails the records before it too", async () => {
  await withNatsServer("the history's chain across turns", async (connect) => {
    const nc = await connect();
    const history = await PartitionHistory.open({ connection: nc, partition: PARTITION, replicas: 1, groupWaitMs: 2_000 });
    await history.record(1, pings(pingWrite(A, 1)));
    const jsm = await managerOf(nc);
    const info = await jsm.streams.info(history.stream);
    await jsm.streams.update(history.stream, { ...info.config, max_msg_size: 64 * 1024 });
    const laterTurn = () => new Promise((resolve) => setTimeout(resolve, 1));
    // A2, then (turns later) B1 too large for the stream: alone, A2 would be its own chain and stored
    const second = errorOf(history.record(2, pings(pingWrite(A, 2))));
    await laterTurn();
    const third = errorOf(history.record(3, pings(pingWrite(B, 1, new Uint8Array(100_000)))));
    await laterTurn();
    const fourth = errorOf(history.record(4, pings(pingWrite(A, 3))));
    assert.instance(await second, Error, "A2 went in one chain with the refused message after it");
    assert.instance(await third, Error);
    assert.instance(await fourth, Error);
    assert.equal((await history.pings(A, 10)).map((p) => p.n), [2, 1], "the chain's start is stored, nothing after the refused message");
  });
});

test.run();
