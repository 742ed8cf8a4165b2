// The intake log lets go of what every shard has committed: its older segments go while pings keep
// coming (the directory stays small however many pings pass), and nothing acknowledged is lost by it.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { createInProcessPool } from "../../app/pools.ts";
import type { PoolOptions } from "../../app/pools.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import type { Pool } from "../../host/pool-api.ts";
import { shardOf } from "../../host/routing.ts";
import { INTAKE_DIR, intakeWriters, readIntake } from "../../persistence/intake.ts";
import { tempDir } from "../helpers.ts";

const T0 = Date.UTC(2026, 0, 1);

const options = (dataDir: string): PoolOptions => ({
  dataDir,
  shards: 2,
  durability: "flush",
  startAt: T0,
  clock: "virtual",
  intakeTrimEveryMs: 20,
  notify: { siteRoot: "http://localhost", allowPrivateIps: true, smtpUrl: null },
});

/** The numbers of the intake segments on disk, lowest first. */
const segments = (dataDir: string) =>
  readdirSync(join(dataDir, INTAKE_DIR))
    .filter((f) => f.endsWith(".log"))
    .map((f) => Number(/_(\d+)\.log$/.exec(f)?.[1] ?? -1))
    .sort((a, b) => a - b);

test("older intake segments go once every shard has committed them; every acknowledged ping is kept", async () => {
  const dir = tempDir();
  let pool: Pool = await createInProcessPool(options(dir.path));
  try {
    const project = await pool.createProject({ name: "p", checkLimit: 10, pingLogLimit: 1000, pingBodyLimit: 100 }, T0);
    const made = await pool.createCheck(project.id, { name: "busy", timeoutMs: DAY, graceMs: HOUR }, [], T0);
    if (!made.ok) throw new Error("no check");
    const uuid = made.value.check.uuid;
    let sent = 0;
    const ping = async () => {
      sent += 1;
      await pool.ping(project.id, {
        target: { uuid },
        signal: "success",
        exitStatus: null,
        method: "GET",
        scheme: "http",
        remoteAddr: "10.0.0.1",
        ua: "job",
        rid: null,
        body: null,
        at: T0 + sent * MINUTE,
      });
    };
    // pings keep coming; the segments roll at each trim and the older ones must go: the first is gone
    // while a fifth is written
    const giveUpAt = Date.now() + 10_000;
    for (;;) {
      await ping();
      const now = segments(dir.path);
      if (now[0] > 1 && now.at(-1)! >= 5) break;
      if (Date.now() > giveUpAt) assert.unreachable(`segments on disk after ${sent} pings: ${JSON.stringify(now)}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // once the pings stop, what is left shrinks to the segment being written and at most one before it
    // (how many pile up meanwhile depends on how fast the shards commit, so only the end state is asserted)
    let left = segments(dir.path);
    while (left.length > 2) {
      if (Date.now() > giveUpAt + 10_000) assert.unreachable(`segments left after the pings stopped: ${JSON.stringify(left)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      left = segments(dir.path);
    }
    await pool.close();

    pool = await createInProcessPool(options(dir.path));
    const page = await pool.listPings(project.id, uuid);
    assert.ok(page.ok);
    assert.is(page.value.check.nPings, sent, "every acknowledged ping kept, once");
  } finally {
    await pool.close();
    dir.remove();
  }
});

test("a trim keeps the segment of an acknowledged ping still waiting for its shard, while later pings to another shard were handed over", async () => {
  const dir = tempDir();
  // the hand-off timer never fires here: a ping waits until another request goes to its shard
  const pool = await createInProcessPool({ ...options(dir.path), intakeTrimEveryMs: 10, intakeHandOffMs: HOUR });
  try {
    // a check in each of the two shards
    const checkIn: { projectId: string; uuid: string }[] = [];
    for (let n = 0; checkIn[0] === undefined || checkIn[1] === undefined; n++) {
      if (n > 50) throw new Error("no project in each shard");
      const project = await pool.createProject({ name: `p${n}`, checkLimit: 10, pingLogLimit: 1000, pingBodyLimit: 100 }, T0);
      const shard = shardOf(project.id, 2);
      if (checkIn[shard] !== undefined) continue;
      const made = await pool.createCheck(project.id, { name: "c", timeoutMs: DAY, graceMs: HOUR }, [], T0);
      if (!made.ok) throw new Error("no check");
      checkIn[shard] = { projectId: project.id, uuid: made.value.check.uuid };
    }
    const ping = (to: { projectId: string; uuid: string }, at: number) =>
      pool.ping(to.projectId, {
        target: { uuid: to.uuid },
        signal: "success",
        exitStatus: null,
        method: "GET",
        scheme: "http",
        remoteAddr: "10.0.0.1",
        ua: "job",
        rid: null,
        body: null,
        at,
      });
    // the ping to shard 0 is acknowledged and waits (no other request goes to shard 0 from here on)
    const waitingAt = T0 + MINUTE;
    await ping(checkIn[0], waitingAt);
    // pings to shard 1, each handed over at once by a read of its check, until the log has rolled to a
    // fourth segment: a trim has then run to its end after later pings than the waiting one were handed
    const giveUpAt = Date.now() + 10_000;
    for (let n = 2; segments(dir.path).at(-1)! < 4; n++) {
      if (Date.now() > giveUpAt) assert.unreachable(`segments on disk: ${JSON.stringify(segments(dir.path))}`);
      await ping(checkIn[1], T0 + n * MINUTE);
      await pool.getCheck(checkIn[1].projectId, { uuid: checkIn[1].uuid });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const [{ writer }] = intakeWriters(dir.path);
    const kept = readIntake(dir.path, writer).filter((r) => r.entry.command.at === waitingAt);
    assert.is(kept.length, 1, "the waiting ping is still in the intake log: a crash now would replay it");
  } finally {
    await pool.close();
    dir.remove();
  }
});

test.run();
