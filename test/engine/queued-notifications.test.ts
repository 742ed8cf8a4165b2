// The outbox entries the Shard queues: what a flip's notification and a reminder carry beyond the
// check and channel (the ping that caused it, the project's name, the outage's start, the first attempt).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import type { OutboxEntry } from "../../engine/changes.ts";
import { HOUR, MINUTE } from "../../engine/model.ts";
import { pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";
import { channel } from "../helpers.ts";

const T0 = Date.UTC(2026, 5, 1);

/** A project "Backups" with one channel and a check (timeout 1 h, grace 1 min, reminders every hour). */
function setUp(): { shard: Shard; uuid: string } {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p", { name: "Backups" }), T0);
  shard.addChannel(channel({ id: "ch", projectId: "p", name: "ops" }), T0);
  const made = shard.createCheck(
    "p",
    { name: "nightly", timeoutMs: HOUR, graceMs: MINUTE, reminderIntervalMs: HOUR, channels: { all: true } },
    [],
    T0,
  );
  if (!made.ok) throw new Error(JSON.stringify(made.failure));
  shard.takeChanges();
  return { shard, uuid: made.value.check.uuid };
}
/** The fields of an entry that are neither its check nor its channel. */
function rest(entry: OutboxEntry): Record<string, unknown> {
  const { check: _check, channel: _channel, id: _id, ...others } = entry;
  return others;
}

test("a failure ping's down notification: the ping and its body, the project's name, first attempt at the flip", () => {
  const { shard, uuid } = setUp();
  shard.ping(pingOf({ uuid }, T0 + MINUTE, { signal: "fail", method: "POST", body: new TextEncoder().encode("disk full") }));
  const { outbox, flips, pings } = shard.takeChanges();
  assert.is(outbox.length, 1);
  assert.equal(rest(outbox[0]), {
    projectId: "p",
    flip: flips[0],
    lastPing: pings[0].record,
    lastPingBody: new TextEncoder().encode("disk full"),
    projectName: "Backups",
    downSinceAt: null,
    attempts: 0,
    nextAttemptAt: T0 + MINUTE,
    lastError: null,
  });
  assert.equal([flips[0].to, flips[0].at], ["down", T0 + MINUTE]);
});

test("a reminder: a down-to-down flip of its own instant, the outage's start, no ping", () => {
  const { shard, uuid } = setUp();
  shard.ping(pingOf({ uuid }, T0 + MINUTE, { signal: "fail" }));
  const down = shard.takeChanges();
  shard.advance(T0 + MINUTE + HOUR);
  const { outbox, checks } = shard.takeChanges();
  assert.is(outbox.length, 1);
  assert.equal(rest(outbox[0]), {
    projectId: "p",
    flip: { checkUuid: uuid, n: down.flips[0].n, at: T0 + MINUTE + HOUR, from: "down", to: "down", reason: "", notify: true },
    lastPing: null,
    lastPingBody: null,
    projectName: "Backups",
    downSinceAt: T0 + MINUTE,
    attempts: 0,
    nextAttemptAt: T0 + MINUTE + HOUR,
    lastError: null,
    reminder: 1,
  });
  assert.is(checks[0].nFlips, down.flips[0].n);
});

test("a run still open past its grace (no max_duration): a timeout, whose notification names no run start (only a run that took too long does)", () => {
  const { shard, uuid } = setUp();
  shard.ping(pingOf({ uuid }, T0 + MINUTE, { signal: "start" }));
  shard.takeChanges();
  shard.advance(T0 + HOUR); // before its first reminder
  const { outbox, flips } = shard.takeChanges();
  assert.equal(
    flips.map((f) => [f.to, f.reason]),
    [["down", "timeout"]],
  );
  assert.is(outbox.length, 1);
  assert.equal(["runStartedAt" in outbox[0], "downtime" in outbox[0], "reminder" in outbox[0]], [false, false, false]);
});

test("a run that took too long while hcd was not running: the down notification names both the run's start and the downtime", () => {
  const { shard, uuid } = setUp();
  shard.updateCheck("p", uuid, { maxDurationMs: 30 * MINUTE }, T0);
  shard.ping(pingOf({ uuid }, T0 + 10 * MINUTE, { signal: "start" }));
  shard.takeChanges();
  const downtime = { fromAt: T0 + 20 * MINUTE, toAt: T0 + 50 * MINUTE }; // the run's limit (T0 + 40 min) fell inside
  assert.is(shard.holdForDowntime(downtime, downtime.toAt), 1);
  shard.advance(T0 + 2 * HOUR); // judged a grace (1 min) after the downtime's end
  const { outbox, flips } = shard.takeChanges();
  assert.equal(
    flips.map((f) => [f.to, f.reason, f.at]),
    [["down", "duration", T0 + 51 * MINUTE]],
  );
  assert.equal([outbox[0].downtime, outbox[0].runStartedAt], [downtime, T0 + 10 * MINUTE]);
});

test.run();
