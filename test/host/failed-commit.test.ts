import "../write-faults-on.ts"; // first: arms persistence/write-faults.ts before the store's modules load
// A shard's commit that fails (its command log write: ENOSPC, EIO) after the shard applied the change:
// the change is refused and not kept in memory, the pings the front end had already acknowledged from
// its intake log are kept (the shard is rebuilt from the store and applies them again), and once writes
// succeed again they reach the shard's log, the intake log lets them go, and a restart still has them.
// With real LMDB stores in temp dirs, shards in this thread and on worker threads.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { randomUUID } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { Pool, PingCommand } from "../../host/pool-api.ts";
import { createInProcessPool, createWorkerPool } from "../../app/pools.ts";
import type { PoolOptions } from "../../app/pools.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import type { Project } from "../../engine/model.ts";
import { INTAKE_DIR } from "../../persistence/intake.ts";
import { LOG_DIR } from "../../persistence/open.ts";
import { setWriteFault } from "../../persistence/write-faults.ts";
import type { FaultCode } from "../../persistence/write-faults.ts";
import { isStoreUnavailable } from "../../host/write-failures.ts";
import { sample, tempDir } from "../helpers.ts";
import { createMetrics } from "../../http/metrics.ts";
import { systemClock } from "../../host/clock.ts";

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
    method: "POST",
    scheme: "http",
    remoteAddr: "10.0.0.1",
    ua: "cron",
    rid,
    body: new TextEncoder().encode(`run ${rid}`),
    at,
  };
}

async function projectWithCheck(pool: Pool): Promise<{ project: Project; uuid: string }> {
  const project = await pool.createProject({ name: "p", checkLimit: 10, pingLogLimit: 100, pingBodyLimit: 100 }, T0);
  const created = await pool.createCheck(project.id, { name: "nightly", timeoutMs: HOUR, graceMs: MINUTE }, [], T0);
  if (!created.ok) throw new Error("no check");
  return { project, uuid: created.value.check.uuid };
}

/** Pings `count` times with fresh rids, each acknowledged; returns the rids. */
async function acknowledge(pool: Pool, projectId: string, uuid: string, count: number, from: number): Promise<string[]> {
  const rids: string[] = [];
  for (let i = 0; i < count; i++) {
    const rid = randomUUID();
    const answer = await pool.ping(projectId, ping(uuid, rid, from + i * MINUTE));
    assert.ok(answer.ok, "acknowledged");
    rids.push(rid);
  }
  return rids;
}

/** The rids of a check's ping log, oldest first, and the check's ping count and name. */
async function logOf(pool: Pool, projectId: string, uuid: string): Promise<{ rids: (string | null)[]; nPings: number; name: string }> {
  const page = await pool.listPings(projectId, uuid);
  if (!page.ok) throw new Error("no ping log");
  return { rids: page.value.pings.map((p) => p.rid).reverse(), nPings: page.value.check.nPings, name: page.value.check.name };
}

async function checkOf(pool: Pool, projectId: string, uuid: string): Promise<{ nPings: number; name: string }> {
  const found = await pool.getCheck(projectId, { uuid });
  if (!found.ok) throw new Error("no check");
  return { nPings: found.value.nPings, name: found.value.name };
}

/** Resolves once the pool's probe succeeds (the store accepts writes again): the probes retry after 1 s, then 2 s. */
async function untilWritable(pool: Pool): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      await pool.probe();
      return;
    } catch (error) {
      if (!isStoreUnavailable(error)) throw error;
    }
    await sleep(100);
  }
  throw new Error("the store still refuses writes after 30 s");
}

async function refused(promise: Promise<unknown>, what: string): Promise<void> {
  try {
    await promise;
  } catch (error) {
    assert.ok(isStoreUnavailable(error), `${what}: refused as StoreUnavailableError, not ${String(error)}`);
    return;
  }
  assert.unreachable(`${what}: accepted while the log refuses writes`);
}

const intakeFiles = (dataDir: string) => readdirSync(join(dataDir, INTAKE_DIR)).filter((f) => f.endsWith(".log"));

for (const [name, make] of [
  ["in-process", createInProcessPool],
  ["workers", createWorkerPool],
] as const) {
  for (const code of ["ENOSPC", "EIO"] as const satisfies readonly FaultCode[]) {
    test(`${name}, ${code}: a failed commit refuses its change and keeps the acknowledged pings through the rebuild, the probe's commit, the intake log letting go and a restart`, async () => {
      const dir = tempDir();
      const logDir = join(dir.path, LOG_DIR);
      let pool: Pool | null = null;
      try {
        pool = await make(options(dir.path));
        const { project, uuid } = await projectWithCheck(pool);
        const before = await acknowledge(pool, project.id, uuid, 2, T0 + MINUTE);
        assert.equal((await logOf(pool, project.id, uuid)).rids, before, "committed before the fault");

        setWriteFault(logDir, code);
        const during = await acknowledge(pool, project.id, uuid, 3, T0 + 10 * MINUTE);
        // the rename goes to the shard after the pings waiting for it: its commit holds both, and fails
        await refused(pool.updateCheck(project.id, uuid, { name: "renamed" }, T0 + 20 * MINUTE), "the rename");
        await refused(pool.probe(), "the probe");
        assert.equal(
          await checkOf(pool, project.id, uuid),
          { nPings: 5, name: "nightly" },
          "the shard shows the acknowledged pings and not the refused rename",
        );
        await refused(pool.createCheck(project.id, { name: "second" }, [], T0 + 21 * MINUTE), "a new check");
        // pings acknowledged from the intake log are applied while commits fail
        const meanwhile = await acknowledge(pool, project.id, uuid, 2, T0 + 30 * MINUTE);
        assert.equal(await checkOf(pool, project.id, uuid), { nPings: 7, name: "nightly" });
        assert.equal((await logOf(pool, project.id, uuid)).rids, before, "the ping log read shows what the store holds");

        setWriteFault(logDir, null);
        await untilWritable(pool);
        // the rename's commit failed (the intake's commits meanwhile may have failed too)
        const { body } = await createMetrics(pool, systemClock).exposition();
        const commitFailures = sample(body, "hcd_commit_failures_total") ?? 0;
        assert.ok(commitFailures >= 1, `hcd_commit_failures_total ${commitFailures}`);
        const all = [...before, ...during, ...meanwhile];
        assert.equal(await logOf(pool, project.id, uuid), { rids: all, nPings: 7, name: "nightly" }, "committed once writes succeed");
        await pool.close();
        assert.equal(intakeFiles(dir.path), [], "the intake log let go of every record");

        pool = await make(options(dir.path));
        assert.equal(await logOf(pool, project.id, uuid), { rids: all, nPings: 7, name: "nightly" }, "after a restart");
        assert.is((await pool.listChecks(project.id, { tags: [] })).length, 1, "the refused check was never made");
        await pool.close();
      } finally {
        setWriteFault(logDir, null);
        await pool?.close().catch(() => {});
        dir.remove();
      }
    });
  }

  test(`${name}: stopped while commits fail, the intake log keeps the acknowledged pings and the next start applies them`, async () => {
    const dir = tempDir();
    const logDir = join(dir.path, LOG_DIR);
    let pool: Pool | null = null;
    try {
      pool = await make(options(dir.path));
      const { project, uuid } = await projectWithCheck(pool);
      setWriteFault(logDir, "ENOSPC");
      const rids = await acknowledge(pool, project.id, uuid, 3, T0 + MINUTE);
      assert.is((await checkOf(pool, project.id, uuid)).nPings, 3);
      await refused(pool.updateCheck(project.id, uuid, { name: "renamed" }, T0 + 10 * MINUTE), "the rename");
      await pool.close();
      assert.ok(intakeFiles(dir.path).length > 0, "the intake log keeps what no shard committed");

      setWriteFault(logDir, null);
      pool = await make(options(dir.path));
      assert.equal(await logOf(pool, project.id, uuid), { rids, nPings: 3, name: "nightly" });
      await pool.close();
      assert.equal(intakeFiles(dir.path), [], "once committed, the intake log goes");
    } finally {
      setWriteFault(logDir, null);
      await pool?.close().catch(() => {});
      dir.remove();
    }
  });
}

test("in-process: a reader that saw a change before its commit failed is told to read again after the rebuild", async () => {
  const dir = tempDir();
  const logDir = join(dir.path, LOG_DIR);
  let pool: Pool | null = null;
  try {
    pool = await createInProcessPool(options(dir.path));
    const { project, uuid } = await projectWithCheck(pool);
    const first = await pool.checksSince(project.id, null);
    setWriteFault(logDir, "EIO");
    const rename = pool.updateCheck(project.id, uuid, { name: "renamed" }, T0 + MINUTE);
    // the shard shows a change from the moment it applies it, before its commit (a write on a later
    // turn of the event loop): wait for it in microtasks only, so that the read comes before the write
    for (let i = 0; i < 1_000 && (await pool.projectVersion(project.id)) === first.version; i++);
    const during = await pool.checksSince(project.id, first.version);
    assert.equal(
      during.checks.map((c) => c.name),
      ["renamed"],
      "the reader saw the change before its commit",
    );
    await refused(rename, "the rename");
    const after = await pool.checksSince(project.id, during.version);
    assert.ok(after.whole, "a version from before the rebuild is not taken as current");
    assert.equal(
      after.checks.map((c) => c.name),
      ["nightly"],
    );
  } finally {
    setWriteFault(logDir, null);
    await pool?.close().catch(() => {});
    dir.remove();
  }
});

test.run();
