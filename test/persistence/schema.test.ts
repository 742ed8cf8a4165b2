// The store's schema: a store of schema 1 (ping bodies in a table of their own) opens, reads as it did,
// and is upgraded to 2 (bodies in the ping log's entries); a schema this build does not know is refused.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { open } from "lmdb";
import type { Key } from "lmdb";
import type { Changes, PingWrite } from "../../engine/changes.ts";
import type { Check } from "../../engine/model.ts";
import { openStore } from "../../persistence/store.ts";
import { check, ping, tempDir } from "../helpers.ts";

const STRUCTURES = Symbol.for("structures");

function changes(extra: Partial<Changes>): Changes {
  return { projects: [], channels: [], checks: [], deletedChecks: [], pings: [], flips: [], outbox: [], ...extra };
}

function pingWrite(owner: Check, n: number, body: Uint8Array | null, keep = 100): PingWrite {
  return { projectId: owner.projectId, checkUuid: owner.uuid, keep, body, record: ping({ n, at: 1_000 * n, bodySize: body?.length ?? 0 }) };
}

/** Opens the tables of `dir` as lmdb does for the store, runs `work`, closes. */
async function withRawTables<T>(
  dir: string,
  work: (t: { pings: ReturnType<typeof openDb>; bodies: ReturnType<typeof openDb>; meta: ReturnType<typeof openDb> }) => Promise<T>,
): Promise<T> {
  const env = open<unknown, Key>(dir, { maxDbs: 16 });
  try {
    return await work({
      pings: openDb(env, "pings", { sharedStructuresKey: STRUCTURES }),
      bodies: openDb(env, "bodies", { encoding: "binary" }),
      meta: openDb(env, "meta", {}),
    });
  } finally {
    await env.close();
  }
}

function openDb(env: ReturnType<typeof open<unknown, Key>>, name: string, options: object) {
  return env.openDB<unknown, Key>(name, options);
}

test("a store of schema 1 reads its pings and bodies, is upgraded to 2, and trims its old bodies with its pings", async () => {
  const dir = tempDir();
  try {
    const c = check({ nPings: 6 });
    let store = await openStore(dir.path, { durability: "commit" });
    await store.commit(changes({ checks: [c] }));
    await store.close();
    // what a build of schema 1 left: records alone in the ping log, their bodies in the bodies table
    await withRawTables(dir.path, async (t) => {
      for (let n = 1; n <= 6; n++) {
        await t.pings.put([c.uuid, n], ping({ n, at: 1_000 * n, bodySize: n === 3 ? 0 : 1 }));
        if (n !== 3) await t.bodies.put([c.uuid, n], Buffer.from([n]));
      }
      await t.meta.put("schema", 1);
    });
    store = await openStore(dir.path, { durability: "commit" });
    assert.equal(
      store.pingPage(c.uuid, 10).map((r) => r.n),
      [6, 5, 4, 3, 2, 1],
    );
    assert.equal(store.pingBody(c.uuid, 5), new Uint8Array([5]));
    assert.is(store.pingBody(c.uuid, 3), null);
    assert.equal(store.newestPing(c.uuid, 6)?.body, new Uint8Array([6]));
    // new pings go into the log's entries; a keep of 4 (slack 1) trims the old ones with their bodies
    await store.commit(changes({ checks: [{ ...c, nPings: 7 }], pings: [pingWrite(c, 7, new Uint8Array([7, 7]), 4)] }));
    await store.checkpoint();
    assert.equal(
      store.pingPage(c.uuid, 10).map((r) => r.n),
      [7, 6, 5, 4],
    );
    assert.equal(store.pingBody(c.uuid, 7), new Uint8Array([7, 7]));
    assert.equal(store.pingBody(c.uuid, 4), new Uint8Array([4]));
    await store.close();
    await withRawTables(dir.path, async (t) => {
      assert.is(t.meta.get("schema"), 2);
      assert.equal(
        Array.from(t.bodies.getKeys({ start: [c.uuid], end: [c.uuid + "\u0001"] })).map((k) => (k as [string, number])[1]),
        [4, 5, 6],
      );
    });
  } finally {
    dir.remove();
  }
});

test("a store of a schema this build doesn't read is refused, naming both", async () => {
  const dir = tempDir();
  try {
    const store = await openStore(dir.path, { durability: "commit" });
    await store.close();
    await withRawTables(dir.path, async (t) => {
      await t.meta.put("schema", 3);
    });
    const refused = await openStore(dir.path, { durability: "commit" }).then(
      async (s) => {
        await s.close();
        return "opened";
      },
      (error: Error) => error.message,
    );
    assert.match(refused, /schema version 3, this build reads 1 and 2/);
  } finally {
    dir.remove();
  }
});

test("a ping's body lives in its log entry: the bodies table stays empty", async () => {
  const dir = tempDir();
  try {
    const c = check({ nPings: 2 });
    const store = await openStore(dir.path, { durability: "commit" });
    await store.commit(changes({ checks: [c], pings: [pingWrite(c, 1, new Uint8Array([1])), pingWrite(c, 2, null)] }));
    await store.checkpoint();
    assert.equal(store.pingBody(c.uuid, 1), new Uint8Array([1]));
    assert.is(store.pingBody(c.uuid, 2), null);
    assert.equal(
      store.pingPage(c.uuid, 10).map((r) => [r.n, r.bodySize]),
      [
        [2, 0],
        [1, 1],
      ],
    );
    await store.close();
    await withRawTables(dir.path, async (t) => {
      assert.is(Array.from(t.bodies.getKeys({})).length, 0);
      const [record, body] = t.pings.get([c.uuid, 1]) as [unknown, Uint8Array];
      assert.equal([record, Array.from(body)], [ping({ n: 1, at: 1_000, bodySize: 1 }), [1]]);
    });
  } finally {
    dir.remove();
  }
});

test.run();
