// The cluster's notification work queue on a real three-server JetStream cluster, delivering to a real
// webhook receiver on loopback: entries enqueued are delivered, an entry enqueued twice (before or after
// its delivery) is stored and delivered once, a failing receiver gets retries and then the entry goes,
// pending() shows what waits with its attempts and last error, an entry given up leaves the queue, a failed
// down holds back its check's up, an entry held past the ack wait stays with its node, 1,000 entries go out
// exactly once each with one node and with two (figures printed), close() hands back what it had not
// started, and with two nodes on their own connections, one node's connection closed while it holds
// entries loses none of them: the other node sends them all once the ack wait has passed.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import type { OutboxEntry } from "../../engine/changes.ts";
import type { Channel, WebhookSpec } from "../../engine/model.ts";
import type { DeliveryResult } from "../../notify/deliverer.ts";
import { managerOf } from "../../cluster/jetstream-setup.ts";
import { ACK_WAIT_MS } from "../../cluster/notification-stream.ts";
import { NotificationQueue } from "../../notify/cluster-queue.ts";
import { Deliverer } from "../../notify/deliverer.ts";
import { haveProgram } from "../ops/extras.ts";
import { channel, check } from "../helpers.ts";
import { outboxEntry } from "../notify/memory-outbox.ts";
import type { Answer, Captured } from "../notify/receivers.ts";
import { httpReceiver } from "../notify/receivers.ts";
import { StoreOutbox } from "../notify/store-outbox.ts";
import type { NatsCluster } from "./nats-cluster.ts";
import { startNatsCluster } from "./nats-cluster.ts";

const HAVE_NATS = haveProgram("nats-server", "the cluster's notification queue on a JetStream cluster");

let cluster: NatsCluster | null = null;
const connections: NatsConnection[] = [];
const queues: NotificationQueue[] = [];
let streams = 0;

test.before(async () => {
  if (HAVE_NATS) cluster = await startNatsCluster({ size: 3 });
});

test.after(async () => {
  await Promise.all(queues.map((q) => q.close().catch(() => {})));
  await Promise.all(connections.map((nc) => nc.close().catch(() => {})));
  await cluster?.close();
});

/** A connection that talks to server `first` first, as a node on its own machine would. */
async function connection(first: number): Promise<NatsConnection> {
  const urls = cluster!.urls;
  const nc = await connect({ servers: [...urls.slice(first), ...urls.slice(0, first)], noRandomize: true, reconnectTimeWait: 250 });
  connections.push(nc);
  return nc;
}

/** A stream, subject and consumer of the test's own, so that tests never see each other's entries. */
function names() {
  streams += 1;
  return { stream: `NQ_${streams}`, subject: `nq.${streams}`, consumer: "deliver" };
}

async function queue(nc: NatsConnection, own: ReturnType<typeof names>): Promise<NotificationQueue> {
  const q = await NotificationQueue.open({ connection: nc, replicas: 3, ...own });
  queues.push(q);
  return q;
}

function webhook(url: string): Channel {
  const spec: WebhookSpec = {
    method_down: "POST",
    url_down: `${url}/down/$NAME`,
    body_down: "$STATUS $NAME_JSON",
    headers_down: {},
    method_up: "POST",
    url_up: `${url}/up/$NAME`,
    body_up: "$STATUS $NAME_JSON",
    headers_up: {},
  };
  return channel({ kind: "webhook", value: { kind: "webhook", spec, json: false } });
}

/** Entries for `count` checks named c-0, c-1, …, each going down at 0, all to one webhook channel. */
function entries(count: number, ch: Channel): OutboxEntry[] {
  return Array.from({ length: count }, (_, i) => outboxEntry({ check: check({ name: `c-${i}`, status: "down" }), channel: ch }));
}

const DELIVERY = { siteRoot: "http://hcd.test", allowPrivateIps: true, fromAddress: "hcd@hcd.test", timeoutMs: 20_000, baseBackoffMs: 200 };

/** Resolves once `ready()` holds, checked every 50 ms; rejects with `what` after `timeoutMs`. */
async function until(what: string, ready: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function storedMessages(nc: NatsConnection, stream: string): Promise<{ messages: number; lastSeq: number }> {
  const info = await (await managerOf(nc)).streams.info(stream);
  return { messages: info.state.messages, lastSeq: info.state.last_seq };
}

const paths = (requests: readonly Captured[]) => requests.map((r) => r.path);
const count = (requests: readonly Captured[], path: string) => requests.filter((r) => r.path === path).length;

test("entries enqueued reach the webhook once each; an entry enqueued twice, before or after its delivery, is stored and delivered once", async () => {
  if (!HAVE_NATS) return;
  const rx = await httpReceiver();
  try {
    const own = names();
    const nc = await connection(0);
    const q = await queue(nc, own);
    const ch = webhook(rx.url);
    const batch = entries(5, ch);
    await q.enqueue(batch);
    await q.enqueue([batch[0]]); // the same entry again
    await q.enqueue(batch); // and the whole batch again, in one pipelined call
    assert.equal(await storedMessages(nc, own.stream), { messages: 5, lastSeq: 5 });
    assert.equal(
      (await q.pending()).map((e) => e.id),
      batch.map((e) => e.id).sort(),
    );

    q.startDelivering(DELIVERY, () => Date.now());
    await until("five deliveries", () => rx.requests.length >= 5);
    assert.equal(paths(rx.requests).sort(), ["/down/c-0", "/down/c-1", "/down/c-2", "/down/c-3", "/down/c-4"]);
    assert.is(rx.requests.find((r) => r.path === "/down/c-3")?.body, 'down "c-3"');

    // after the delivery: the first entry again, then its check's up flip on the same channel; the up is sent
    // after anything earlier of its check and channel, so once it is in, a second down would be too
    const [first] = batch;
    const up = outboxEntry({
      check: first.check as ReturnType<typeof check>,
      channel: ch,
      flip: { at: 1_000, n: 2, from: "down", to: "up" },
    });
    await q.enqueue([first]);
    await q.enqueue([up]);
    await until("the up flip", () => count(rx.requests, "/up/c-0") === 1);
    assert.is(count(rx.requests, "/down/c-0"), 1);
    assert.is(rx.requests.length, 6);
    assert.is((await storedMessages(nc, own.stream)).lastSeq, 6, "the second copy was never stored");
    await until("an empty queue", async () => (await q.pending()).length === 0);
  } finally {
    await rx.close();
  }
});

test("a receiver answering 500 gets retries with backoff and then the entry is sent; pending() shows its attempts and last error meanwhile", async () => {
  if (!HAVE_NATS) return;
  let releaseSecond: (answer: Answer) => void = () => {};
  const secondAnswer = new Promise<Answer>((resolve) => {
    releaseSecond = resolve;
  });
  const rx = await httpReceiver((_request, i) => (i === 0 ? { status: 500 } : i === 1 ? secondAnswer : { status: 200 }));
  try {
    const own = names();
    const q = await queue(await connection(1), own);
    const [entry] = entries(1, webhook(rx.url));
    await q.enqueue([entry]);
    const before = await q.pending();
    assert.equal(
      before.map((e) => [e.id, e.attempts, e.lastError]),
      [[entry.id, 0, null]],
    );

    const results: DeliveryResult[] = [];
    q.startDelivering({ ...DELIVERY, onResult: (_e, result) => results.push(result) }, () => Date.now());
    await until("the first retry", () => rx.requests.length === 2); // the receiver holds its answer
    const waiting = await q.pending();
    assert.equal(
      waiting.map((e) => [e.id, e.attempts, e.lastError]),
      [[entry.id, 1, "Received status code 500"]],
    );
    assert.ok(waiting[0].nextAttemptAt > 0, "a retry time was set");
    releaseSecond({ status: 500 });
    await until("the delivery", () => results.includes("sent"));
    assert.equal(results, ["failed", "failed", "sent"]);
    assert.equal(paths(rx.requests), ["/down/c-0", "/down/c-0", "/down/c-0"]);
    await until("an empty queue", async () => (await q.pending()).length === 0);
  } finally {
    releaseSecond({ status: 500 });
    await rx.close();
  }
});

test("an entry is given up after maxAttempts failures and leaves the queue", async () => {
  if (!HAVE_NATS) return;
  const rx = await httpReceiver(() => ({ status: 500 }));
  try {
    const own = names();
    const q = await queue(await connection(2), own);
    const [entry] = entries(1, webhook(rx.url));
    await q.enqueue([entry]);
    const results: DeliveryResult[] = [];
    q.startDelivering({ ...DELIVERY, maxAttempts: 2, onResult: (_e, result) => results.push(result) }, () => Date.now());
    await until("giving up", () => results.includes("given_up"));
    assert.equal(results, ["failed", "given_up"]);
    assert.is(rx.requests.length, 2);
    await until("an empty queue", async () => (await q.pending()).length === 0);
    assert.is((await storedMessages(connections.at(-1)!, own.stream)).messages, 0);
  } finally {
    await rx.close();
  }
});

test("a down whose send fails holds back its check's up on the same channel: the receiver hears down, down again, then up", async () => {
  if (!HAVE_NATS) return;
  const rx = await httpReceiver((_request, i) => ({ status: i === 0 ? 500 : 200 }));
  try {
    const own = names();
    const q = await queue(await connection(0), own);
    const ch = webhook(rx.url);
    const [down] = entries(1, ch);
    const up = outboxEntry({
      check: down.check as ReturnType<typeof check>,
      channel: ch,
      flip: { at: 1_000, n: 2, from: "down", to: "up" },
    });
    await q.enqueue([down, up]);
    q.startDelivering(DELIVERY, () => Date.now());
    await until("the up flip", () => count(rx.requests, "/up/c-0") === 1);
    assert.equal(paths(rx.requests), ["/down/c-0", "/down/c-0", "/up/c-0"]);
  } finally {
    await rx.close();
  }
});

test("an entry a node holds longer than the ack wait (its send hangs, the next one waits for the slot) is not handed to another node", async () => {
  if (!HAVE_NATS) return;
  let releaseFirst: (answer: Answer) => void = () => {};
  const firstAnswer = new Promise<Answer>((resolve) => {
    releaseFirst = resolve;
  });
  const rx = await httpReceiver((_request, i) => (i === 0 ? firstAnswer : { status: 200 }));
  try {
    const own = names();
    const ncA = await connection(0);
    const a = await queue(ncA, own),
      b = await queue(await connection(1), own);
    await a.enqueue(entries(2, webhook(rx.url)));
    const sentBy = { a: [] as string[], b: [] as string[] };
    const node = (name: "a" | "b") => ({
      ...DELIVERY,
      timeoutMs: ACK_WAIT_MS * 2,
      batchSize: 2,
      concurrency: 1,
      onResult: (entry: OutboxEntry, result: DeliveryResult) => {
        if (result === "sent") sentBy[name].push(entry.check.name);
      },
    });
    a.startDelivering(node("a"), () => Date.now()); // takes both entries, sends one at a time
    await until("node a's first send", () => rx.requests.length === 1);
    b.startDelivering(node("b"), () => Date.now());
    // held past the ack wait: a condition to create, not a result to wait for
    await new Promise((resolve) => setTimeout(resolve, ACK_WAIT_MS + 5_000));
    releaseFirst({ status: 200 });
    await until("both entries sent", () => sentBy.a.length + sentBy.b.length === 2);
    await until("an empty queue", async () => (await a.pending()).length === 0);
    assert.equal(sentBy, { a: ["c-0", "c-1"], b: [] });
    assert.equal(paths(rx.requests), ["/down/c-0", "/down/c-1"]);
    const consumer = await (await managerOf(ncA)).consumers.info(own.stream, own.consumer);
    assert.equal([consumer.num_redelivered, consumer.num_ack_pending, consumer.num_pending], [0, 0, 0]);
  } finally {
    releaseFirst({ status: 200 });
    await rx.close();
  }
});

/** Enqueues 1,000 entries and delivers them with `nodes` nodes; asserts each arrived exactly once; returns the times. */
async function deliverThousand(
  nodes: 1 | 2,
): Promise<{ enqueueMs: number; listMs: number; deliverMs: number; pendingMs: number; sent: number[] }> {
  const rx = await httpReceiver();
  try {
    const own = names();
    const ncA = await connection(0);
    const qs = [await queue(ncA, own)];
    if (nodes === 2) qs.push(await queue(await connection(1), own));
    const batch = entries(1_000, webhook(rx.url));
    const enqueueStart = performance.now();
    await qs[0].enqueue(batch);
    const enqueueMs = performance.now() - enqueueStart;
    const listStart = performance.now();
    assert.is((await qs[0].pending()).length, 1_000);
    const listMs = performance.now() - listStart;
    const sent = qs.map(() => 0);
    const deliverStart = performance.now();
    qs.forEach((q, i) =>
      q.startDelivering(
        {
          ...DELIVERY,
          onResult: (_e, result) => {
            if (result === "sent") sent[i] += 1;
          },
        },
        () => Date.now(),
      ),
    );
    await until("1,000 deliveries", () => sent.reduce((x, y) => x + y) >= 1_000, 180_000);
    const deliverMs = performance.now() - deliverStart;
    const consumer = async () => (await managerOf(ncA)).consumers.info(own.stream, own.consumer);
    await until("nothing left to deliver", async () => {
      const c = await consumer();
      return c.num_ack_pending === 0 && c.num_pending === 0;
    });
    const pendingStart = performance.now();
    assert.equal(await qs[0].pending(), []);
    const pendingMs = performance.now() - pendingStart;
    const perPath = new Map<string, number>();
    for (const r of rx.requests) perPath.set(r.path, (perPath.get(r.path) ?? 0) + 1);
    assert.is(perPath.size, 1_000);
    assert.equal(
      [...perPath.values()].filter((n) => n !== 1),
      [],
    );
    assert.is(
      sent.reduce((x, y) => x + y),
      1_000,
    );
    await Promise.all(qs.map((q) => q.close()));
    return { enqueueMs, listMs, deliverMs, pendingMs, sent };
  } finally {
    await rx.close();
  }
}

/** The same-run baseline: the single-node Deliverer sending 1,000 entries from an LMDB outbox (a shard's wiring). */
async function deliverThousandSingleNode(): Promise<number> {
  const rx = await httpReceiver();
  const outbox = await StoreOutbox.open(entries(1_000, webhook(rx.url)));
  try {
    const deliverer = new Deliverer({ ...DELIVERY, outbox });
    const start = performance.now();
    while (outbox.all().length > 0) await deliverer.deliverDue(Date.now());
    const ms = performance.now() - start;
    assert.is(new Set(rx.requests.map((r) => r.path)).size, 1_000);
    assert.is(rx.requests.length, 1_000);
    return ms;
  } finally {
    await outbox.close();
    await rx.close();
  }
}

test("1,000 entries, delivered by one node and by two: each exactly once when nothing fails (figures printed beside the single-node deliverer's)", async () => {
  if (!HAVE_NATS) return;
  for (let round = 1; round <= 2; round++) {
    console.log(
      `figures, round ${round}: single-node deliverer (LMDB outbox) delivered 1,000 in ${(await deliverThousandSingleNode()).toFixed(0)} ms`,
    );
    for (const nodes of [1, 2] as const) {
      const { enqueueMs, listMs, deliverMs, pendingMs, sent } = await deliverThousand(nodes);
      if (nodes === 2)
        assert.ok(
          sent.every((n) => n > 0),
          `both nodes delivered (${sent.join(", ")})`,
        );
      console.log(
        `figures, round ${round}, ${nodes} node(s): enqueue 1,000 (R3, pipelined) ${enqueueMs.toFixed(0)} ms; pending() of 1,000 ${listMs.toFixed(0)} ms; delivered in ` +
          `${deliverMs.toFixed(0)} ms (${sent.join(" + ")}); pending() of the emptied queue ${pendingMs.toFixed(0)} ms`,
      );
    }
  }
});

test("close() lets the send in flight finish, hands what it had not started to the other node, and leaves the connection open", async () => {
  if (!HAVE_NATS) return;
  let releaseFirst: (answer: Answer) => void = () => {};
  const firstAnswer = new Promise<Answer>((resolve) => {
    releaseFirst = resolve;
  });
  const rx = await httpReceiver((_request, i) => (i === 0 ? firstAnswer : { status: 200 }));
  try {
    const own = names();
    const ncA = await connection(0);
    const a = await queue(ncA, own),
      b = await queue(await connection(1), own);
    await a.enqueue(entries(2, webhook(rx.url)));
    const sentBy = { a: [] as string[], b: [] as string[] };
    const node = (name: "a" | "b") => ({
      ...DELIVERY,
      batchSize: 2,
      concurrency: 1,
      onResult: (entry: OutboxEntry, result: DeliveryResult) => {
        if (result === "sent") sentBy[name].push(entry.check.name);
      },
    });
    a.startDelivering(node("a"), () => Date.now()); // takes both entries, sends one at a time
    await until("node a's first send", () => rx.requests.length === 1);
    const closing = a.close();
    b.startDelivering(node("b"), () => Date.now());
    releaseFirst({ status: 200 });
    await closing;
    await until("the second entry", () => sentBy.b.length === 1);
    assert.equal(sentBy, { a: ["c-0"], b: ["c-1"] });
    assert.equal(paths(rx.requests), ["/down/c-0", "/down/c-1"]);
    assert.is(ncA.isClosed(), false);
    await a.enqueue(entries(1, webhook(rx.url))); // still publishes: only its delivering stopped
    await until("the entry enqueued after close()", () => sentBy.b.length === 2);
  } finally {
    releaseFirst({ status: 200 });
    await rx.close();
  }
});

test("the stream's leader killed: enqueue gets through the election, a replay of entries already delivered is dropped, each entry is delivered once", async () => {
  if (!HAVE_NATS) return;
  const rx = await httpReceiver();
  try {
    const own = names();
    const probe = await connection(0);
    await queue(probe, own); // the stream, to find its leader
    const info = await (await managerOf(probe)).streams.info(own.stream);
    const leader = cluster!.servers.findIndex((server) => server.name === info.cluster?.leader);
    assert.ok(leader >= 0, `the stream has a leader (${info.cluster?.leader})`);
    const node = await queue(await connection((leader + 1) % 3), own); // a node whose server survives
    const ch = webhook(rx.url);
    const before = entries(20, ch);
    const after = Array.from({ length: 20 }, (_, i) => outboxEntry({ check: check({ name: `d-${i}`, status: "down" }), channel: ch }));
    await node.enqueue(before);
    let sent = 0;
    node.startDelivering(
      {
        ...DELIVERY,
        onResult: (_e, result) => {
          if (result === "sent") sent += 1;
        },
      },
      () => Date.now(),
    );
    await until("the first 20 deliveries", () => sent === 20);

    await cluster!.stop(leader, "SIGKILL");
    // what a takeover does: the entries it replays (already delivered) and new ones, sent again until acknowledged
    const deadline = Date.now() + 120_000,
      start = performance.now();
    let attempts = 0;
    for (;;) {
      try {
        attempts += 1;
        await node.enqueue([...before, ...after]);
        break;
      } catch (error) {
        console.log(`enqueue refused: ${String(error)}`);
        if (Date.now() > deadline) throw error;
      }
    }
    console.log(
      `figures: 40 entries enqueued across the stream leader's loss in ${(performance.now() - start).toFixed(0)} ms, ${attempts} call(s)`,
    );
    await until("the next 20 deliveries", () => sent >= 40, 120_000);
    const jsm = await managerOf(await connection((leader + 1) % 3));
    await until(
      "nothing left to deliver",
      async () => {
        const c = await jsm.consumers.info(own.stream, own.consumer).catch(() => null);
        return c !== null && c.num_ack_pending === 0 && c.num_pending === 0;
      },
      120_000,
    );
    const perPath = new Map<string, number>();
    for (const r of rx.requests) perPath.set(r.path, (perPath.get(r.path) ?? 0) + 1);
    assert.is(perPath.size, 40);
    assert.equal(
      [...perPath].filter(([, n]) => n !== 1),
      [],
    );
    assert.is(sent, 40);
  } finally {
    await rx.close();
    for (const [i, server] of cluster!.servers.entries()) if (!server.running()) await cluster!.restart(i);
  }
});

test("two nodes share the queue; one node's connection closed while it holds entries loses none: the other sends them all", async () => {
  if (!HAVE_NATS) return;
  const N = 12;
  // every request is held until the test answers it: first to see both nodes busy, then with 500
  const held: ((answer: Answer) => void)[] = [];
  let holding = true;
  const failedPaths: string[] = [];
  const rx = await httpReceiver((request) => {
    if (!holding) return { status: 200 };
    return new Promise<Answer>((resolve) =>
      held.push((answer) => {
        if (answer !== "hang" && answer.status === 500) failedPaths.push(request.path);
        resolve(answer);
      }),
    );
  });
  try {
    const own = names();
    const producer = await queue(await connection(0), own);
    const batch = entries(N, webhook(rx.url));
    await producer.enqueue(batch);

    const sentBy = { a: new Set<string>(), b: new Set<string>() };
    const failedBy = { a: 0, b: 0 };
    // each node takes at most 2 entries at once and sends at most 2 at once: 4 requests held means both are busy
    const node = (name: "a" | "b") => ({
      ...DELIVERY,
      batchSize: 2,
      concurrency: 2,
      onResult: (entry: OutboxEntry, result: DeliveryResult) => {
        if (result === "sent") sentBy[name].add(entry.check.name);
        if (result === "failed") failedBy[name] += 1;
      },
    });
    const a = await queue(await connection(1), own);
    const ncB = await connection(2);
    const b = await queue(ncB, own);
    a.startDelivering(node("a"), () => Date.now());
    b.startDelivering(node("b"), () => Date.now());
    await until("both nodes sending", () => held.length === 4);

    await ncB.close(); // node b is gone with two sends in flight (and whatever else it had taken)
    holding = false;
    for (const answer of held.splice(0)) answer({ status: 500 });

    await until("every entry sent by node a", () => sentBy.a.size === N, 180_000);
    assert.equal([...sentBy.a].sort(), batch.map((e) => e.check.name).sort());
    assert.is(sentBy.b.size, 0, "node b never recorded a delivery");
    assert.is(failedPaths.length, 4);
    assert.is(failedBy.a, 2, "node a recorded its own two failures; node b's two came back to it after the ack wait");
    for (const path of failedPaths) assert.ok(count(rx.requests, path) >= 2, `${path} was sent again`);
    await until("an empty queue", async () => (await producer.pending()).length === 0);
  } finally {
    for (const answer of held.splice(0)) answer({ status: 500 });
    await rx.close();
  }
});

test.run();
