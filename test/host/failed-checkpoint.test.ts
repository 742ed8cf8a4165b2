import "../write-faults-on.ts"; // first: arms persistence/write-faults.ts before the store's modules load
// A checkpoint that fails (the tables' write: EIO, ENOSPC) loses nothing: commits go on to the log, so
// pings are acknowledged and changes accepted; a read that needs the tables is refused and the status
// fails until a checkpoint succeeds; the next checkpoint applies what the failed one took, and a restart
// has every commit. Real LMDB stores in temp dirs, shards in this thread and on worker threads.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { randomUUID } from "node:crypto";
import type { Pool, PingCommand } from "../../host/pool-api.ts";
import { createInProcessPool, createWorkerPool } from "../../app/pools.ts";
import type { PoolOptions } from "../../app/pools.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import { setWriteFault } from "../../persistence/write-faults.ts";
import { isStoreUnavailable } from "../../host/write-failures.ts";
import { tempDir } from "../helpers.ts";

const T0 = Date.UTC(2026, 0, 1);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function options(dataDir: string): PoolOptions {
  return {
    dataDir,
    shards: 1,
    durability: "flush",
    startAt: T0 + DAY,
    clock: "virtual",
    notify: { siteRoot: "http://localhost", allowPrivateIps: true, smtpUrl: null },
  };
}

function ping(uuid: string, rid: string, at: number): PingCommand {
  return {
    target: { uuid },
    signal: "success",
    exitStatus: null,
    method: "GET",
    scheme: "http",
    remoteAddr: "10.0.0.1",
    ua: "cron",
    rid,
    body: null,
    at,
  };
}

async function acknowledge(pool: Pool, projectId: string, uuid: string, count: number, from: number): Promise<string[]> {
  const rids: string[] = [];
  for (let i = 0; i < count; i++) {
    const rid = randomUUID();
    assert.ok((await pool.ping(projectId, ping(uuid, rid, from + i * MINUTE))).ok, "acknowledged");
    rids.push(rid);
  }
  return rids;
}

async function logOf(pool: Pool, projectId: string, uuid: string): Promise<{ rids: (string | null)[]; name: string }> {
  const page = await pool.listPings(projectId, uuid);
  if (!page.ok) throw new Error("no ping log");
  return { rids: page.value.pings.map((p) => p.rid).reverse(), name: page.value.check.name };
}

/** The error `promise` rejects with, or null when it resolves. */
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error,
  );

for (const [name, make] of [
  ["in-process", createInProcessPool],
  ["workers", createWorkerPool],
] as const) {
  test(`${name}: a failed checkpoint keeps every commit in the log; the next one applies them and a restart has them`, async () => {
    const dir = tempDir();
    let pool: Pool | null = null;
    try {
      pool = await make(options(dir.path));
      const project = await pool.createProject({ name: "p", checkLimit: 10, pingLogLimit: 100, pingBodyLimit: 100 }, T0);
      const created = await pool.createCheck(project.id, { name: "nightly", timeoutMs: HOUR, graceMs: MINUTE }, [], T0);
      if (!created.ok) throw new Error("no check");
      const uuid = created.value.check.uuid;
      const before = await acknowledge(pool, project.id, uuid, 3, T0 + MINUTE);

      setWriteFault(dir.path, "EIO"); // the tables' directory: checkpoints fail, the log still takes commits
      const error = await rejection(pool.listOutbox()); // reads the outbox from the tables: a checkpoint first
      assert.ok(isStoreUnavailable(error), `the outbox read is refused, not ${String(error)}`);
      assert.ok(isStoreUnavailable(await rejection(pool.probe())), "the status fails while checkpoints fail");
      const during = await acknowledge(pool, project.id, uuid, 3, T0 + 10 * MINUTE);
      const renamed = await pool.updateCheck(project.id, uuid, { name: "renamed" }, T0 + 20 * MINUTE);
      assert.ok(renamed.ok, "changes are accepted: they go to the log");
      const all = [...before, ...during];
      assert.equal(await logOf(pool, project.id, uuid), { rids: all, name: "renamed" });

      setWriteFault(dir.path, null);
      let outbox: unknown = "not yet";
      for (let i = 0; i < 300 && outbox !== null; i++) {
        outbox = await rejection(pool.listOutbox()); // retried once the first retry delay (1 s) has passed
        if (outbox !== null) await sleep(100);
      }
      assert.is(outbox, null, "a checkpoint succeeds once the tables take writes");
      assert.is(await rejection(pool.probe()), null, "the status is OK again");
      await pool.close();

      pool = await make(options(dir.path));
      assert.equal(await logOf(pool, project.id, uuid), { rids: all, name: "renamed" }, "after a restart");
    } finally {
      setWriteFault(dir.path, null);
      await pool?.close().catch(() => {});
      dir.remove();
    }
  });
}

test.run();
