// A partition's pings stored as segments (many pings of one check in one message) on a real nats-server:
// read back together with pings stored a message each (as before segments), bodies found inside them, a ping a takeover's
// replay stored twice listed once, and a check's oldest segments trimmed once newer ones hold the most
// the API lists.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { PingWrite } from "../../engine/changes.ts";
import { pingWrite as historyPing } from "../helpers.ts";
import { jetstream } from "@nats-io/jetstream";
import { headers } from "@nats-io/nats-core";
import type { NatsConnection } from "@nats-io/nats-core";
import { managerOf } from "../../cluster/jetstream-setup.ts";
import { wirePackr } from "../../cluster/wire-packr.ts";
import { PartitionHistory } from "../../cluster/partition-history.ts";
import type { HeldPing } from "../../cluster/ping-tail.ts";
import { T0, withNatsServer } from "./held-appends.ts";

const PROJECT = "00000000-0000-4000-8000-0000000000aa";
const A = "00000000-0000-4000-8000-00000000000a";
const PARTITION = 6;

const write = (n: number, body: Uint8Array | null = null): PingWrite => historyPing(PROJECT, A, n, T0, body);
const held = (from: number, to: number, bodies: ReadonlyMap<number, Uint8Array> = new Map()): Map<string, HeldPing[]> =>
  new Map([
    [
      A,
      Array.from({ length: to - from + 1 }, (_, i) => {
        const ping = write(from + i, bodies.get(from + i) ?? null);
        return { record: ping.record, body: ping.body };
      }),
    ],
  ]);
const range = (from: number, to: number) => Array.from({ length: from - to + 1 }, (_, i) => from - i);

/** Stores ping n as a message of its own, [1, record, body], as the history stored pings before segments. */
async function storeAsBefore(nc: NatsConnection, n: number): Promise<void> {
  const h = headers();
  h.set("Hcd-Position", String(n));
  const ping = write(n);
  await jetstream(nc).publish(`hcd.hist.${PARTITION}.ping.${A}`, wirePackr.pack([1, ping.record, ping.body]), { headers: h });
}

async function messagesOf(
  history: PartitionHistory,
  connect: () => ReturnType<Parameters<Parameters<typeof withNatsServer>[1]>[0]>,
): Promise<number> {
  const jsm = await managerOf(await connect());
  const info = await jsm.streams.info(history.stream, { subjects_filter: ">" });
  return info.state.subjects?.[`hcd.hist.${PARTITION}.ping.${A}`] ?? 0;
}

test("segments: many pings a message, read with pings stored a message each; bodies inside; a ping stored twice listed once", async () => {
  await withNatsServer("the history's ping segments", async (connect) => {
    const nc = await connect();
    const history = await PartitionHistory.open({ connection: nc, partition: PARTITION, replicas: 1 });
    for (let n = 1; n <= 3; n++) await storeAsBefore(nc, n);
    const body = new TextEncoder().encode("ping 150's body");
    await history.storeSegments(10, held(4, 300, new Map([[150, body]])));
    assert.is(await messagesOf(history, connect), 3 + 2, "297 pings in two segments (250 and 47) after the 3 single messages");

    assert.equal(
      (await history.pings(A, 1000)).map((p) => p.n),
      range(300, 1),
    );
    assert.equal(
      (await history.pings(A, 10)).map((p) => p.n),
      range(300, 291),
    );
    assert.equal(
      (await history.pings(A, 60)).map((p) => p.n),
      range(300, 241),
      "the newest 60 span both segments",
    );
    assert.equal(new TextDecoder().decode((await history.pingBody(A, 150))!), "ping 150's body");
    assert.is(await history.pingBody(A, 151), null, "a ping without a body");
    assert.is(await history.pingBody(A, 301), null, "no such ping yet");
    assert.is(await history.lastRecorded(), 10, "a segment carries the position of the last record whose pings it holds");

    // a new owner's replay holds pings from its snapshot on, some of them stored already
    await history.storeSegments(20, held(250, 320));
    assert.equal(
      (await history.pings(A, 100)).map((p) => p.n),
      range(320, 221),
      "each ping once",
    );
    assert.equal(
      (await history.pings(A, 1000)).map((p) => p.n),
      range(320, 1),
    );
  });
});

test("trim: a check's oldest segments are purged once newer ones hold the most the API lists (1,000), one more kept", async () => {
  await withNatsServer("the history's segment trim", async (connect) => {
    const history = await PartitionHistory.open({ connection: await connect(), partition: PARTITION, replicas: 1 });
    for (let i = 0; i < 8; i++) await history.storeSegments(i + 1, held(i * 250 + 1, (i + 1) * 250));
    assert.is(await messagesOf(history, connect), 5, "4 segments of 250 hold 1,000 pings; one more is kept");
    const listed = (await history.pings(A, 1000)).map((p) => p.n);
    assert.equal(listed, range(2000, 1001));
    assert.ok((await history.pingBody(A, 750)) === null);
  });
});

test.run();
