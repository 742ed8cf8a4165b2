// One contract suite, run against both pool implementations: in-process shards and worker threads.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Pool, PingCommand, PingTarget } from "../../host/pool-api.ts";
import { createInProcessPool, createWorkerPool } from "../../app/pools.ts";
import type { PoolOptions } from "../../app/pools.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import { presentCheck } from "../../host/check-json.ts";
import { tempDir, pingThrough } from "../helpers.ts";

const T0 = Date.UTC(2026, 0, 1);
type Make = (options: PoolOptions) => Promise<Pool>;
const IMPLEMENTATIONS: [string, Make][] = [
  ["in-process", createInProcessPool],
  ["workers", createWorkerPool],
];

function options(dataDir: string, shards = 2): PoolOptions {
  return {
    dataDir,
    shards,
    durability: "commit",
    startAt: T0,
    clock: "virtual",
    notify: { siteRoot: "http://localhost", allowPrivateIps: true, smtpUrl: null },
  };
}

function ping(target: PingTarget, at: number, extra: Partial<PingCommand> = {}): PingCommand {
  return {
    target,
    signal: "success",
    exitStatus: null,
    method: "GET",
    scheme: "http",
    remoteAddr: "127.0.0.1",
    ua: "test",
    rid: null,
    body: null,
    at,
    ...extra,
  };
}

const projectInput = { name: "p", checkLimit: 3, pingLogLimit: 5, pingBodyLimit: 100 };

for (const [name, make] of IMPLEMENTATIONS) {
  test(`${name}: ping, deadline and restart keep state, pings and flips`, async () => {
    const dir = tempDir();
    try {
      let pool = await make(options(dir.path));
      const project = await pool.createProject(projectInput, T0);
      const created = await pool.createCheck(project.id, { name: "backup", timeoutMs: DAY, graceMs: HOUR }, [], T0);
      assert.ok(created.ok);
      if (!created.ok) return;
      const uuid = created.value.check.uuid;
      assert.equal(await pingThrough(pool, ping({ uuid }, T0 + MINUTE)), { ok: true, value: { checkUuid: uuid, created: false } });
      await pool.advance(T0 + 2 * DAY);
      const got = await pool.getCheck(project.id, { uuid });
      assert.is(got.ok && got.value.status, "down");
      await pool.close();

      pool = await make(options(dir.path, 3)); // SHARDS may change between restarts
      assert.is(pool.authenticate(project.apiKey)?.project.id, project.id);
      const flips = await pool.listFlips(project.id, { uuid }, {});
      assert.equal(flips.ok && flips.value.map((f) => [f.at, f.from, f.to]), [
        [T0 + MINUTE + DAY + HOUR, "up", "down"], // stamped with the deadline, not the advance
        [T0 + MINUTE, "new", "up"],
      ]);
      const pings = await pool.listPings(project.id, uuid);
      assert.equal(pings.ok && pings.value.pings.map((p) => p.n), [1]);
      await pool.close();
    } finally {
      dir.remove();
    }
  });

  test(`${name}: a deadline that passed while stopped is applied at restart, stamped with its own due time`, async () => {
    const dir = tempDir();
    try {
      let pool = await make(options(dir.path));
      const project = await pool.createProject(projectInput, T0);
      const created = await pool.createCheck(project.id, { timeoutMs: HOUR, graceMs: HOUR }, [], T0);
      if (!created.ok) throw new Error("create failed");
      const uuid = created.value.check.uuid;
      await pingThrough(pool, ping({ uuid }, T0));
      await pool.close(); // stopped at T0; due to go down at T0 + 2 h

      pool = await make({ ...options(dir.path), startAt: T0 + 3 * DAY });
      const flips = await pool.listFlips(project.id, { uuid }, {});
      assert.equal(flips.ok && flips.value.map((f) => [f.at, f.to, f.reason]), [
        [T0 + 2 * HOUR, "down", "timeout"],
        [T0, "up", ""],
      ]);
      await pool.close();
    } finally {
      dir.remove();
    }
  });

  test(`${name}: the list document is the presented checks, again after a ping changed one`, async () => {
    const dir = tempDir();
    const pool = await make(options(dir.path));
    try {
      const project = await pool.createProject({ ...projectInput, checkLimit: 20 }, T0);
      for (let i = 0; i < 12; i++) await pool.createCheck(project.id, { name: `job ${i} ✓`, tags: i % 2 ? "a" : "b" }, [], T0);
      const view = { at: T0 + MINUTE, siteRoot: "http://localhost", readonly: false, emailDomain: null };
      const expected = async (at: number) =>
        JSON.stringify({
          checks: (await pool.listChecks(project.id, { tags: [] })).map((check) => presentCheck(check, { ...view, at })),
        });
      const listed = async (at: number) => new TextDecoder().decode(await pool.listChecksJson(project.id, { tags: [] }, { ...view, at }));
      assert.is(await listed(T0 + MINUTE), await expected(T0 + MINUTE));
      const first = (await pool.listChecks(project.id, { tags: [] }))[0];
      await pingThrough(pool, ping({ uuid: first.uuid }, T0 + MINUTE));
      assert.is(await listed(T0 + 2 * MINUTE), await expected(T0 + 2 * MINUTE), "the pinged check shows its new state");
      assert.is(await listed(T0 + 2 * MINUTE), await expected(T0 + 2 * MINUTE), "and the cached ones stay whole");
    } finally {
      await pool.close();
      dir.remove();
    }
  });

  test(`${name}: directory answers keys, ping keys, ownership`, async () => {
    const dir = tempDir();
    const pool = await make(options(dir.path));
    try {
      const a = await pool.createProject(projectInput, T0);
      const b = await pool.createProject(projectInput, T0);
      assert.is(pool.authenticate(a.apiKeyReadonly)?.readonly, true);
      assert.is(pool.authenticate(a.apiKey)?.readonly, false);
      assert.is(pool.authenticate("nope"), null);
      assert.is(pool.projectByPingKey(b.pingKey)?.id, b.id);
      const created = await pool.createCheck(a.id, {}, [], T0);
      if (!created.ok) throw new Error("create failed");
      const uuid = created.value.check.uuid;
      assert.equal(await pool.getCheck(b.id, { uuid }), { ok: false, failure: { code: "forbidden" } });
      assert.equal((await pool.pauseCheck(b.id, uuid, T0)).ok, false);
      assert.is(pool.projectOfCheck(uuid)?.id, a.id);
    } finally {
      await pool.close();
      dir.remove();
    }
  });

  test(`${name}: slug pings auto-provision with create, refuse ambiguity, respect the limit twice over`, async () => {
    const dir = tempDir();
    const pool = await make(options(dir.path));
    try {
      const p = await pool.createProject({ ...projectInput, checkLimit: 1 }, T0);
      const target = { pingKey: p.pingKey, slug: "nightly", create: false };
      assert.equal(await pingThrough(pool, ping(target, T0)), { ok: false, failure: { code: "not_found", what: "check" } });
      const made = await pingThrough(pool, ping({ ...target, create: true }, T0));
      assert.is(made.ok && made.value.created, true);
      if (!made.ok) return;
      assert.is(pool.projectOfCheck(made.value.checkUuid)?.id, p.id);
      const second = await pingThrough(pool, ping({ ...target, slug: "other", create: true }, T0));
      assert.is(second.ok, true); // over the limit of 1, within twice the limit
      const third = await pingThrough(pool, ping({ ...target, slug: "third", create: true }, T0));
      assert.is(third.ok, false);
      await pool
        .createCheck(p.id, { slug: "nightly" }, [], T0)
        .then((r) => assert.equal(r, { ok: false, failure: { code: "check_limit" } }));
      const again = await pingThrough(pool, ping(target, T0 + 1));
      assert.is(again.ok && again.value.created, false);
    } finally {
      await pool.close();
      dir.remove();
    }
  });

  test(`${name}: a check's pings and bodies are exactly its newest pingLogLimit, whatever its log holds, across checkpoints and a restart`, async () => {
    const dir = tempDir();
    let pool = await make(options(dir.path));
    try {
      const p = await pool.createProject({ ...projectInput, pingLogLimit: 8 }, T0); // the store trims in steps of 2
      const created = await pool.createCheck(p.id, {}, [], T0);
      if (!created.ok) throw new Error("create failed");
      const uuid = created.value.check.uuid;
      for (let n = 1; n <= 30; n++) {
        assert.ok((await pingThrough(pool, ping({ uuid }, T0 + n, { body: new TextEncoder().encode(`run ${n}`) }))).ok);
        if (n % 3 === 0) await pool.listOutbox(); // a checkpoint of every shard
        if (n === 20) {
          await pool.close();
          pool = await make(options(dir.path));
        }
        const listed = await pool.listPings(p.id, uuid);
        assert.equal(
          listed.ok && listed.value.pings.map((r) => r.n),
          Array.from({ length: Math.min(n, 8) }, (_, i) => n - i),
          `after ping ${n}`,
        );
        const oldest = await pool.pingBody(p.id, uuid, Math.max(1, n - 7)),
          gone = await pool.pingBody(p.id, uuid, n - 8);
        assert.is(oldest.ok && new TextDecoder().decode(oldest.value), `run ${Math.max(1, n - 7)}`, `after ping ${n}`);
        assert.is(gone.ok, false, `after ping ${n}: the body of ${n - 8}`);
      }
    } finally {
      await pool.close();
      dir.remove();
    }
  });

  test(`${name}: many concurrent pings are all acknowledged and logged in order`, async () => {
    const dir = tempDir();
    const pool = await make(options(dir.path));
    try {
      const p = await pool.createProject({ ...projectInput, pingLogLimit: 1000 }, T0);
      const created = await pool.createCheck(p.id, {}, [], T0);
      if (!created.ok) throw new Error("create failed");
      const uuid = created.value.check.uuid;
      const results = await Promise.all(
        Array.from({ length: 300 }, (_, i) => pingThrough(pool, ping({ uuid }, T0 + i, { body: new TextEncoder().encode(`run ${i}`) }))),
      );
      assert.ok(results.every((r) => r.ok));
      const listed = await pool.listPings(p.id, uuid);
      assert.is(listed.ok && listed.value.pings.length, 300);
      assert.is(listed.ok && listed.value.check.nPings, 300);
      const body = await pool.pingBody(p.id, uuid, 300);
      assert.is(body.ok && new TextDecoder().decode(body.value), "run 299");
    } finally {
      await pool.close();
      dir.remove();
    }
  });
}

test.run();
