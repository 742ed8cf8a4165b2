// Deadlines judged in order with the pings before them, and hcd's own downtime, through a real pool on a
// real store: a ping acknowledged before a deadline always reaches its shard first (the watermark), and a
// restart after a downtime holds the checks whose deadline fell in it (CONTRACT "hcd's own downtime and clock").
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createInProcessPool } from "../../app/pools.ts";
import type { PoolOptions } from "../../app/pools.ts";
import type { ShardedPool } from "../../host/pool.ts";
import type { Pool } from "../../host/pool-api.ts";
import type { Clock } from "../../host/clock.ts";
import { MINUTE, SECOND } from "../../engine/model.ts";
import { ClockMark } from "../../persistence/clock-mark.ts";
import { pingOf } from "../../bench/scenarios.ts";
import { closedPort, tempDir } from "../helpers.ts";

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);

/** A clock that reads like the real one but stands where the test puts it. */
function heldClock(at: number): Clock & { at: number } {
  const clock = { kind: "real" as const, at, now: () => clock.at };
  return clock;
}

async function poolOn(dataDir: string, clock: Clock | null, mark: ClockMark | null): Promise<ShardedPool> {
  const options: PoolOptions = {
    dataDir,
    shards: 2,
    durability: "flush",
    startAt: clock?.now() ?? T0,
    clock: clock === null ? "virtual" : "real",
    clockNow: clock ?? undefined,
    mark,
    notify: { siteRoot: "http://localhost", allowPrivateIps: true, smtpUrl: `smtp://127.0.0.1:${await closedPort()}` },
  };
  return (await createInProcessPool(options)) as ShardedPool;
}

/** A project with an email channel and a check of timeout and grace 60 s, pinged at `at`. */
async function pingedCheck(pool: Pool, at: number): Promise<{ projectId: string; uuid: string }> {
  const project = await pool.createProject({ name: "p", checkLimit: 10, pingLogLimit: 100, pingBodyLimit: 100 }, at);
  const channel = await pool.addChannel(
    project.id,
    { name: "ops", kind: "email", value: { kind: "email", address: "ops@example.com" } },
    at,
  );
  if (!channel.ok) throw new Error("no channel");
  const created = await pool.createCheck(project.id, { name: "job", timeoutMs: MINUTE, graceMs: MINUTE, channels: { all: true } }, [], at);
  if (!created.ok) throw new Error("no check");
  const uuid = created.value.check.uuid;
  await pool.ping(project.id, pingOf({ uuid }, at));
  return { projectId: project.id, uuid };
}

async function flipsOf(pool: Pool, projectId: string, uuid: string): Promise<[string, number][]> {
  const flips = await pool.listFlips(projectId, { uuid }, {});
  if (!flips.ok) throw new Error("no flips");
  return flips.value.map((f): [string, number] => [f.to, f.at]).sort((a, b) => a[1] - b[1]); // the API lists newest first
}

test("a ping stamped before a deadline, still being written when the deadline is judged, is applied first", async () => {
  const dir = tempDir();
  const pool = await poolOn(dir.path, null, null);
  try {
    const { projectId, uuid } = await pingedCheck(pool, T0);
    const dueAt = T0 + 2 * MINUTE;
    const acknowledged = pool.ping(projectId, pingOf({ uuid }, dueAt - 5)); // its intake write is under way...
    const judged = await pool.judgeDeadlines(dueAt + 10); // ...while the deadlines are judged
    await acknowledged;
    assert.ok(judged < dueAt - 5, `judged up to ${judged - dueAt} ms from the deadline, not past the ping`);
    assert.equal(await flipsOf(pool, projectId, uuid), [["up", T0]], "no false down");
    // once the ping is in, the next judgement goes up to now, and the check's new deadline counts from the ping
    assert.is(await pool.judgeDeadlines(dueAt + 10), dueAt + 10);
    await pool.judgeDeadlines(dueAt - 5 + 2 * MINUTE);
    assert.equal(await flipsOf(pool, projectId, uuid), [
      ["up", T0],
      ["down", dueAt - 5 + 2 * MINUTE],
    ]);
  } finally {
    await pool.close();
    dir.remove();
  }
});

test("after a downtime, a check due in it waits for its grace since the restart; the down notification names the downtime", async () => {
  const dir = tempDir();
  try {
    const clock = heldClock(T0);
    const mark = ClockMark.open(dir.path, "real");
    const before = await poolOn(dir.path, clock, mark);
    const { projectId, uuid } = await pingedCheck(before, T0);
    clock.at = T0 + SECOND;
    await before.judgeDeadlines(clock.at).then((at) => mark.record(at));
    await before.close();
    mark.close();

    clock.at = T0 + 151 * SECOND; // stopped for 150 s: the deadline at T0 + 120 s fell in between
    const again = ClockMark.open(dir.path, "real");
    assert.is(again.lastAt, T0 + SECOND);
    const after = await poolOn(dir.path, clock, again);
    try {
      assert.equal(await flipsOf(after, projectId, uuid), [["up", T0]], "nothing on the restart");
      await after.judgeDeadlines(T0 + 151 * SECOND + MINUTE - 1);
      assert.equal(await flipsOf(after, projectId, uuid), [["up", T0]], "nothing before its grace since the restart");
      await after.judgeDeadlines(T0 + 151 * SECOND + MINUTE);
      assert.equal(await flipsOf(after, projectId, uuid), [
        ["up", T0],
        ["down", T0 + 211 * SECOND],
      ]);
      const [entry] = await after.listOutbox();
      assert.equal(entry.downtime, { fromAt: T0 + SECOND, toAt: T0 + 151 * SECOND });
    } finally {
      await after.close();
      again.close();
    }
  } finally {
    dir.remove();
  }
});

test("without a mark (a first start, or a store from before marks) missed deadlines are judged at once, as before", async () => {
  const dir = tempDir();
  try {
    const clock = heldClock(T0);
    const before = await poolOn(dir.path, clock, null);
    const { projectId, uuid } = await pingedCheck(before, T0);
    await before.close();
    clock.at = T0 + 151 * SECOND;
    const after = await poolOn(dir.path, clock, null);
    try {
      assert.equal(await flipsOf(after, projectId, uuid), [
        ["up", T0],
        ["down", T0 + 120 * SECOND],
      ]);
    } finally {
      await after.close();
    }
  } finally {
    dir.remove();
  }
});

test.run();
