// A node follows the sessions and accounts buckets with watches. A watch whose consumer is lost while its
// connection stays up (as when the consumer's server dies) goes silent, and the client would notice only
// after two missed heartbeats of 30 s; one whose consumer is deleted ends. Either way a sign-out or a removed
// user would not reach that node. The follower looks at the bucket every 2 s and starts a stalled watch
// again, and an ended one. One real nats-server; the deadlines (20 s) are failure deadlines.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { NatsConnection } from "@nats-io/nats-core";
import type { KV } from "@nats-io/kv";
import { BucketFollower, watchStalled } from "../../cluster/bucket-follower.ts";
import { DashboardSessions } from "../../cluster/dashboard-sessions.ts";
import { sessionKeyOf } from "../../persistence/session-file.ts";
import { managerOf, openBucket } from "../../cluster/jetstream-setup.ts";
import { openReplicatedAccounts } from "../../cluster/replicated-accounts.ts";
import { Accounts } from "../../host/accounts.ts";
import { until } from "../helpers.ts";
import { withNatsServer } from "./held-appends.ts";

const DAY = 86_400_000;

test("a watch has stalled when it applied nothing between two looks while the bucket was ahead of it at the first", () => {
  assert.ok(watchStalled({ applied: 5, bucket: 7 }, 5));
  assert.not.ok(watchStalled({ applied: 5, bucket: 7 }, 6), "it applied something since");
  assert.not.ok(watchStalled({ applied: 7, bucket: 7 }, 7), "nothing to apply: caught up");
  assert.not.ok(watchStalled({ applied: 0, bucket: 0 }, 0), "an empty bucket");
});

/**
 * `kv`, but its watches can be made to go silent, as one does whose consumer was lost with its server: no
 * entry arrives and the watch does not end. Watches made after freeze() are whole again.
 */
function freezable(kv: KV): { kv: KV; freeze(): void } {
  let frozen: (() => void) | null = null;
  const watch = async (options: Parameters<KV["watch"]>[0]) => {
    const real = await kv.watch(options);
    let silent = false;
    frozen = () => {
      silent = true;
    };
    const silenced = {
      async *[Symbol.asyncIterator]() {
        for await (const entry of real) if (!silent) yield entry;
      },
      stop: () => real.stop(),
    };
    return silenced as unknown as typeof real;
  };
  return {
    kv: new Proxy(kv, { get: (target, name) => (name === "watch" ? watch : Reflect.get(target, name, target)) }),
    freeze: () => frozen?.(),
  };
}

test("a watch gone silent is started again after its last revision, and follows the writes after", async () => {
  await withNatsServer("a watch gone silent", async (connect) => {
    const nc = await connect();
    const bucket = await openBucket(nc, "test-followed", { replicas: 1, history: 1 });
    const { kv, freeze } = freezable(bucket);
    const seen: string[] = [];
    await bucket.put("k.1", new TextEncoder().encode("one"));
    const follower = await BucketFollower.start(kv, {
      key: "k.*",
      onEntry: (entry) => seen.push(`${entry.key}@${entry.revision}`),
      checkEveryMs: 200,
    });
    try {
      await until("the present value", () => seen.length === 1, 20_000);
      freeze();
      await bucket.put("k.2", new TextEncoder().encode("two"));
      await bucket.put("k.1", new TextEncoder().encode("one again"));
      await until("the writes after the watch went silent", () => seen.length === 3, 20_000);
      assert.equal(seen, ["k.1@1", "k.2@2", "k.1@3"], "each once, in order");
      assert.is(follower.restarts, 1);
    } finally {
      follower.stop();
    }
  });
});

/** Deletes every consumer of `stream` (the followers' watches). */
async function dropConsumers(nc: NatsConnection, stream: string): Promise<number> {
  const jsm = await managerOf(nc);
  const consumers = await jsm.consumers.list(stream).next();
  for (const consumer of consumers) await jsm.consumers.delete(stream, consumer.name);
  return consumers.length;
}

test("a sign-out reaches a node whose watch of the sessions lost its consumer", async () => {
  await withNatsServer("a sessions watch whose consumer is lost", async (connect) => {
    const [ncA, ncB] = [await connect(), await connect()];
    const open = (nc: NatsConnection) => DashboardSessions.open({ connection: nc, replicas: 1, idleMs: DAY, bucket: "test-sessions" });
    const [a, b] = [await open(ncA), await open(ncB)];
    try {
      const removed: string[] = [];
      b.onRemoved((key) => removed.push(key)); // a removal names the session's key, never its id
      const id = "s".repeat(43);
      await a.put({ id, principal: { kind: "admin", tokenHash: "h" }, csrf: "c", expiresAt: Date.now() + DAY });
      assert.ok(await b.get(id), "the session is found on node b");
      assert.is(await dropConsumers(ncA, "KV_test-sessions"), 2, "one watch per node");

      await a.remove(id);
      await until("node b hears the sign-out", () => removed.includes(sessionKeyOf(id)), 20_000);
      assert.ok(b.watchRestarts >= 1, `node b's watch restarts: ${b.watchRestarts}`);
    } finally {
      a.close();
      b.close();
    }
  });
});

test("a removed user reaches a node whose watch of the accounts lost its consumer", async () => {
  await withNatsServer("an accounts watch whose consumer is lost", async (connect) => {
    const [ncA, ncB] = [await connect(), await connect()];
    const [storeA, storeB] = await Promise.all(
      [ncA, ncB].map((nc) => openReplicatedAccounts({ connection: nc, replicas: 1, bucket: "test-accounts" })),
    );
    try {
      const a = new Accounts(storeA),
        b = new Accounts(storeB);
      const made = await a.createUser({ email: "ann@example.org" }, Date.UTC(2026, 0, 15));
      assert.ok(made.ok);
      const id = made.value.user.id;
      await until("the user on node b", () => b.userById(id) !== null, 20_000);
      assert.is(await dropConsumers(ncA, "KV_test-accounts"), 2, "one watch per node");

      await storeA.change((document) => ({ ...document, users: document.users.filter((user) => user.id !== id) }));
      await until("node b no longer knows the user", () => b.userById(id) === null, 20_000);
    } finally {
      storeA.close();
      storeB.close();
    }
  });
});

test.run();
