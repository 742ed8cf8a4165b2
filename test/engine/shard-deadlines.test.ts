// How the Shard applies deadlines and notices: in an advance (each at its own instant, a window's start
// before a later reminder of the same advance) and when a command finds them due first (the wheel then
// holds the check's next deadline, and a command that changes nothing hands over nothing). Instants are
// written by hand, in hours and minutes of one day.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import type { Changes } from "../../engine/changes.ts";
import type { CheckSpec, MaintenanceWindow, Millis } from "../../engine/model.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import { pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";

const DAY1 = Date.UTC(2026, 5, 1); // 2026-06-01T00:00Z
const at = (hhmm: string): Millis => DAY1 + Number(hhmm.slice(0, 2)) * HOUR + Number(hhmm.slice(3)) * MINUTE;
const hhmm = (t: Millis) => new Date(t).toISOString().slice(11, 16);

const NIGHTLY: MaintenanceWindow = { id: "w1", name: "nightly", schedule: "0 2 * * *", tz: "UTC", durationMs: 2 * HOUR, createdAt: DAY1 };

/** What integrations heard: "down@01:00", "reminder 1@02:30", "down (window ended)@04:00". */
function heard(changes: Changes): string[] {
  return changes.outbox.map((entry) => {
    const what =
      entry.reminder !== undefined ? `reminder ${entry.reminder}` : entry.id.endsWith("-m") ? "down (window ended)" : entry.flip.to;
    return `${what}@${hhmm(entry.flip.at)}`;
  });
}

/** A shard with project p (one email channel, optional maintenance windows) and one check notifying it. */
function setUp(spec: CheckSpec, windows: readonly MaintenanceWindow[] = []) {
  const shard = new Shard({ newId: sequentialIds(), now: DAY1 });
  shard.createProject(scenarioProject("p"), DAY1);
  shard.addChannel({ id: "c", projectId: "p", name: "", kind: "email", value: { kind: "email", address: "a@b.c" }, createdAt: DAY1 }, DAY1);
  for (const window of windows) assert.ok(shard.apply({ kind: "addMaintenance", projectId: "p", window, at: DAY1 }).ok);
  const made = shard.createCheck("p", { timeoutMs: DAY, graceMs: HOUR, channels: { all: true }, ...spec }, [], DAY1);
  if (!made.ok) throw new Error("create failed");
  shard.takeChanges();
  const uuid = made.value.check.uuid;
  const ping = (when: string, signal: "success" | "fail") => assert.ok(shard.ping(pingOf({ uuid }, at(when), { signal })).ok);
  return { shard, uuid, ping };
}

test("a window starting in the same advance as a later reminder holds it: nothing is sent ahead of time", () => {
  const { shard, ping } = setUp({ reminderIntervalMs: 90 * MINUTE }, [NIGHTLY]);
  shard.advance(at("01:00"));
  ping("01:00", "fail"); // down at 01:00, its first reminder due at 02:30
  assert.equal(heard(shard.takeChanges()), ["down@01:00"]);
  // one advance over the window's start (02:00) and the reminder (02:30): the window starts first and
  // skips the reminder to one interval after its end (04:00 + 90 minutes), after this advance
  shard.advance(at("03:00"));
  assert.equal(heard(shard.takeChanges()), [], "nothing sent during the window");
  assert.is(shard.nextDueAt(), at("05:30"), "the next reminder is one interval after the window's end (the outage was notified)");
  shard.advance(at("06:00"));
  assert.equal(heard(shard.takeChanges()), ["reminder 1@05:30"]);
});

test("a reminder a ping finds due inside a window whose start no advance applied yet is skipped to one interval after the window's end", () => {
  const { shard, ping } = setUp({ reminderIntervalMs: 90 * MINUTE }, [NIGHTLY]);
  shard.advance(at("01:00"));
  ping("01:00", "fail");
  shard.takeChanges();
  // no advance since 01:00: the ping at 03:00 first applies the reminder due at 02:30, inside the window
  ping("03:00", "fail");
  assert.equal(heard(shard.takeChanges()), [], "muted by the window: no reminder");
  shard.advance(at("06:00"));
  assert.equal(heard(shard.takeChanges()), ["reminder 1@05:30"]);
});

test("a command that applies deadlines found due leaves the wheel at the next one: none once settled down", () => {
  const { shard, uuid, ping } = setUp({ timeoutMs: HOUR, graceMs: MINUTE, channels: undefined });
  ping("00:00", "success");
  shard.takeChanges();
  assert.is(shard.nextDueAt(), at("01:01"));
  // refused (the check is not paused), but the deadline it found due at 01:01 is applied first
  assert.not.ok(shard.resumeCheck("p", uuid, at("05:00")).ok);
  assert.equal(
    shard.takeChanges().flips.map((f) => [hhmm(f.at), f.to]),
    [["01:01", "down"]],
  );
  assert.is(shard.nextDueAt(), null, "down with no reminders: nothing left to fire");
});

test("a command that applies a down deadline and reminders found due leaves the wheel at the next reminder", () => {
  const { shard, uuid, ping } = setUp({ timeoutMs: HOUR, graceMs: MINUTE, reminderIntervalMs: HOUR });
  ping("00:00", "success");
  shard.takeChanges();
  assert.not.ok(shard.resumeCheck("p", uuid, at("04:30")).ok);
  assert.equal(heard(shard.takeChanges()), ["down@01:01", "reminder 1@02:01", "reminder 2@03:01", "reminder 3@04:01"]);
  assert.is(shard.nextDueAt(), at("05:01"));
});

test("a refused command on a check with no deadline (new, or down with no reminder) hands over no changes", () => {
  const { shard, uuid, ping } = setUp({ timeoutMs: HOUR, graceMs: MINUTE });
  assert.not.ok(shard.acknowledgeCheck("p", uuid, "ops", at("00:10")).ok, "a new check is not down");
  assert.not.ok(shard.resumeCheck("p", uuid, at("00:20")).ok, "nor paused");
  const none = shard.takeChanges();
  assert.equal([none.checks.length, none.flips.length, none.outbox.length], [0, 0, 0]);
  ping("00:30", "fail");
  shard.takeChanges();
  assert.not.ok(shard.resumeCheck("p", uuid, at("03:00")).ok);
  const still = shard.takeChanges();
  assert.equal([still.checks.length, still.flips.length, still.outbox.length], [0, 0, 0]);
});

test("a reminder a ping finds due, and the ping, change state fields only (the store may journal just those)", () => {
  const { shard, ping } = setUp({ reminderIntervalMs: HOUR });
  shard.advance(at("01:00"));
  ping("01:00", "fail");
  shard.takeChanges();
  ping("02:30", "fail"); // the reminder due at 02:00 first
  const changes = shard.takeChanges();
  assert.equal(heard(changes), ["reminder 1@02:00"]);
  assert.equal([changes.stateOnly, changes.statusOnly, changes.alertOnly], [true, undefined, undefined]);
});

test("an advance that sends reminders only changes the alerting state only (the store may journal just that)", () => {
  const { shard, ping } = setUp({ reminderIntervalMs: HOUR });
  shard.advance(at("01:00"));
  ping("01:00", "fail");
  shard.takeChanges();
  shard.advance(at("03:30"));
  const changes = shard.takeChanges();
  assert.equal(heard(changes), ["reminder 1@02:00", "reminder 2@03:00"]);
  assert.equal([changes.alertOnly, changes.statusOnly, changes.stateOnly], [true, undefined, undefined]);
});

test.run();
