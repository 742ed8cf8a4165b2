// The intake log a crash left: its pings reach their shards at the next start, once each, past the marks
// of what the shards had already committed, also when SHARDS changed; then its files go.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { randomUUID } from "node:crypto";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import type { Pool, PingCommand } from "../../host/pool-api.ts";
import { createInProcessPool, createWorkerPool } from "../../app/pools.ts";
import type { PoolOptions } from "../../app/pools.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import type { Project } from "../../engine/model.ts";
import { encodeIntake, INTAKE_DIR, intakeShard, openIntakeLog } from "../../persistence/intake.ts";
import { shardOf } from "../../host/routing.ts";
import { frame, segmentName } from "../../persistence/file-log.ts";
import { tempDir } from "../helpers.ts";

const T0 = Date.UTC(2026, 0, 1);

function options(dataDir: string, shards: number): PoolOptions {
  return {
    dataDir,
    shards,
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
    ua: "crashed-front-end",
    rid,
    body: new TextEncoder().encode(`run ${rid}`),
    at,
  };
}

/** Writes an intake log as a front end that crashed left it: `rids` pinged in order, routed for `shards` shards. */
async function leaveIntake(
  dataDir: string,
  writer: string,
  projectId: string,
  uuid: string,
  rids: readonly string[],
  shards: number,
): Promise<void> {
  const log = openIntakeLog(dataDir, writer, true);
  const shard = intakeShard(shardOf(projectId, shards), shards);
  for (const [i, rid] of rids.entries())
    await log.append([encodeIntake({ shard, projectId, command: ping(uuid, rid, T0 + (i + 1) * MINUTE) })]);
  await log.close(0); // keeps every file, as a kill would
}

/** Creates a project and a check with a timeout of an hour and a minute's grace (no ping yet). */
async function projectWithCheck(pool: Pool): Promise<{ project: Project; uuid: string }> {
  const project = await pool.createProject({ name: "p", checkLimit: 10, pingLogLimit: 100, pingBodyLimit: 100 }, T0);
  const created = await pool.createCheck(project.id, { name: "nightly", timeoutMs: HOUR, graceMs: MINUTE }, [], T0);
  if (!created.ok) throw new Error("no check");
  return { project, uuid: created.value.check.uuid };
}

async function pingsOf(
  pool: Pool,
  projectId: string,
  uuid: string,
): Promise<{ nPings: number; rids: (string | null)[]; bodies: string[] }> {
  const page = await pool.listPings(projectId, uuid);
  if (!page.ok) throw new Error("no ping log");
  const bodies: string[] = [];
  for (const p of page.value.pings) {
    const body = await pool.pingBody(projectId, uuid, p.n);
    bodies.push(body.ok ? new TextDecoder().decode(body.value) : "");
  }
  return { nPings: page.value.check.nPings, rids: page.value.pings.map((p) => p.rid).reverse(), bodies: bodies.reverse() };
}

for (const [name, make] of [
  ["in-process", createInProcessPool],
  ["workers", createWorkerPool],
] as const) {
  test(`${name}: a crashed front end's intake pings are applied at start, once, past the shards' marks, with SHARDS changed`, async () => {
    const dir = tempDir();
    try {
      let pool = await make(options(dir.path, 1));
      const { project, uuid } = await projectWithCheck(pool);
      await pool.close();

      const writer = randomUUID();
      const first = [randomUUID(), randomUUID(), randomUUID()];
      await leaveIntake(dir.path, writer, project.id, uuid, first, 1);
      pool = await make(options(dir.path, 1));
      const replayed = await pingsOf(pool, project.id, uuid);
      assert.is(replayed.nPings, 3);
      assert.equal(replayed.rids, first);
      assert.equal(
        replayed.bodies,
        first.map((rid) => `run ${rid}`),
      );
      // the last ping at T0+3min with a timeout of an hour and a minute's grace: down at T0+64min, applied at start (T0+1 day)
      const flips = await pool.listFlips(project.id, { uuid }, {});
      assert.equal(flips.ok && flips.value.map((f) => [f.at, f.to]), [
        [T0 + 3 * MINUTE + HOUR + MINUTE, "down"],
        [T0 + MINUTE, "up"],
      ]);
      assert.equal(
        readdirSync(join(dir.path, INTAKE_DIR)).filter((f) => f.includes(writer)),
        [],
        "the replayed intake log is gone",
      );
      await pool.close();

      // The same writer's log again, as if its files had outlived the replay, with two more pings: the
      // marks of the first run hold the first three, under another shard count too.
      const more = [randomUUID(), randomUUID()];
      await leaveIntake(dir.path, writer, project.id, uuid, [...first, ...more], 1);
      pool = await make(options(dir.path, 3));
      const again = await pingsOf(pool, project.id, uuid);
      assert.is(again.nPings, 5, "each ping applied once");
      assert.equal(again.rids, [...first, ...more]);
      await pool.close();

      // and nothing is applied a third time after a restart
      pool = await make(options(dir.path, 2));
      assert.is((await pingsOf(pool, project.id, uuid)).nPings, 5);
      await pool.close();
    } finally {
      dir.remove();
    }
  });

  test(`${name}: pings acknowledged from the intake log are seen by the next request, and a clean stop leaves no intake file`, async () => {
    const dir = tempDir();
    try {
      let pool = await make(options(dir.path, 2));
      const { project, uuid } = await projectWithCheck(pool);
      for (let i = 1; i <= 20; i++) {
        const answer = await pool.ping(project.id, ping(uuid, randomUUID(), T0 + i * MINUTE));
        assert.ok(answer.ok);
        const seen = await pool.getCheck(project.id, { uuid });
        assert.is(seen.ok && seen.value.nPings, i, "the check shows the acknowledged ping");
      }
      await pool.close();
      const left = readdirSync(join(dir.path, INTAKE_DIR)).filter((f) => f.endsWith(".log"));
      assert.equal(left, [], "every intake record is in a shard's log");
      pool = await make(options(dir.path, 2));
      assert.is((await pingsOf(pool, project.id, uuid)).nPings, 20);
      await pool.close();
    } finally {
      dir.remove();
    }
  });
}

test("an intake log of another process that still runs is left alone; once that process is gone it is replayed", async () => {
  const dir = tempDir();
  // a live process and its identity, as its files would carry it
  const identityModule = fileURLToPath(new URL("../../persistence/process-identity.js", import.meta.url));
  const other = spawn(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import { ownIdentity } from ${JSON.stringify(identityModule)}; console.log(ownIdentity()); setInterval(() => {}, 1000);`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  try {
    const [line] = (await once(other.stdout, "data")) as [Buffer];
    const identity = line.toString().trim();
    let pool = await createInProcessPool(options(dir.path, 1));
    const { project, uuid } = await projectWithCheck(pool);
    await pool.close();

    const name = segmentName(identity, randomUUID(), 1);
    const shard = intakeShard(0, 1);
    writeFileSync(
      join(dir.path, INTAKE_DIR, name),
      frame(1, encodeIntake({ shard, projectId: project.id, command: ping(uuid, randomUUID(), T0 + MINUTE) })),
    );
    pool = await createInProcessPool(options(dir.path, 1));
    assert.is((await pingsOf(pool, project.id, uuid)).nPings, 0, "a running writer's pings are not applied");
    await pool.close();
    assert.ok(readdirSync(join(dir.path, INTAKE_DIR)).includes(name), "a running writer's file stays");

    other.kill("SIGKILL");
    await once(other, "exit");
    pool = await createInProcessPool(options(dir.path, 1));
    assert.is((await pingsOf(pool, project.id, uuid)).nPings, 1, "once its process is gone, its pings are applied");
    await pool.close();
    assert.not.ok(readdirSync(join(dir.path, INTAKE_DIR)).includes(name), "and its file goes");
  } finally {
    other.kill("SIGKILL");
    dir.remove();
  }
});

test.run();
