// A partition's snapshots on a real nats-server: nothing stored reads as none; a reader whose snapshot is
// replaced (its chunks let go) between reading the head and reading the chunks reads the newer one.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { NatsConnection } from "@nats-io/nats-core";
import { SnapshotStore } from "../../cluster/snapshot-store.ts";
import { SECOND, T0, withNatsServer } from "./held-appends.ts";

/** `nc`, but before its requests to `subject` are sent, `before(payload)` runs (and is awaited). */
function askedAfter(nc: NatsConnection, subject: string, before: (payload: unknown) => Promise<void>): NatsConnection {
  return new Proxy(nc, {
    get(target, property) {
      if (property === "request") {
        return async (...args: Parameters<NatsConnection["request"]>) => {
          if (args[0] === subject) await before(JSON.parse(new TextDecoder().decode(args[1] as Uint8Array)));
          return target.request(...args);
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

test("no snapshot stored: load and head answer null", async () => {
  await withNatsServer("an empty snapshot store", async (connect) => {
    const store = await SnapshotStore.open({ connection: await connect(), partition: 0, replicas: 1 });
    assert.is(await store.head(), null);
    assert.is(await store.load(), null);
  });
});

test("a snapshot replaced while it is read: the reader reads the newer one", async () => {
  await withNatsServer("a snapshot replaced under its reader", async (connect) => {
    const nc = await connect();
    const writer = await SnapshotStore.open({ connection: nc, partition: 0, replicas: 1 });
    assert.equal((await writer.save(10, { at: T0, projects: [], intake: 0 })).saved, true);
    let replaced = false;
    const reader = await SnapshotStore.open({
      partition: 0,
      replicas: 1,
      // the reader's first chunk get waits for a newer snapshot, whose save lets the older chunks go
      connection: askedAfter(nc, "$JS.API.STREAM.MSG.GET.HCD_SNAP_0", async (payload) => {
        if (replaced || typeof (payload as { seq?: unknown }).seq !== "number") return;
        replaced = true;
        assert.equal((await writer.save(20, { at: T0 + SECOND, projects: [], intake: 0 })).saved, true);
      }),
    });
    const loaded = await reader.load();
    assert.ok(replaced, "the newer snapshot was saved during the read");
    assert.equal([loaded?.logSequence, loaded?.snapshot.at], [20, T0 + SECOND]);
  });
});

test.run();
