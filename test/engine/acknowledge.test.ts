// Acknowledging an outage on the Shard alone (CONTRACT "Alerting, second part"): reminders stop for the
// current outage, the next up (or pause) clears it, a new outage is not acknowledged; only a down check can
// be. Instants and notifications are written out by hand, in minutes after T0.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import type { Changes } from "../../engine/changes.ts";
import type { CheckSpec, Millis, PingSignal } from "../../engine/model.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import { decodeJournal, encodeJournal } from "../../persistence/journal-codec.ts";
import { pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";

const T0 = Date.UTC(2026, 5, 1);
const H = 60;
const min = (at: Millis) => (at - T0) / MINUTE;

type Event = [minute: number, PingSignal | "advance" | "ack" | "pause" | "resume" | "clear mute"];

/** What integrations heard: "down@10", "reminder 2@130", "down (mute ended)@300", "up@400". */
function heard(changes: Changes): string[] {
  return changes.outbox.map((entry) => {
    const what =
      entry.reminder !== undefined ? `reminder ${entry.reminder}` : entry.id.endsWith("-m") ? "down (mute ended)" : entry.flip.to;
    return `${what}@${min(entry.flip.at)}`;
  });
}

function setUp(spec: CheckSpec) {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p"), T0);
  shard.addChannel({ id: "c", projectId: "p", name: "", kind: "email", value: { kind: "email", address: "a@b.c" }, createdAt: T0 }, T0);
  const made = shard.createCheck(
    "p",
    { timeoutMs: DAY, graceMs: HOUR, reminderIntervalMs: HOUR, channels: { all: true }, ...spec },
    [],
    T0,
  );
  if (!made.ok) throw new Error("create failed");
  shard.takeChanges();
  return { shard, uuid: made.value.check.uuid };
}

/** Runs the events on one check (hourly reminders unless `spec` says otherwise); returns what was heard and each acknowledgement's outcome. */
function run(spec: CheckSpec, events: readonly Event[]): { heard: string[]; acks: string[]; shard: Shard; uuid: string } {
  const { shard, uuid } = setUp(spec);
  const notes: string[] = [],
    acks: string[] = [];
  for (const [minute, what] of events) {
    const at = T0 + minute * MINUTE;
    if (what === "advance") shard.advance(at);
    else if (what === "ack") {
      const done = shard.apply({ kind: "acknowledgeCheck", projectId: "p", uuid, by: "api", at });
      acks.push(done.ok ? `ok, acknowledged=${done.value.alert?.acknowledged !== undefined}` : done.failure.code);
    } else if (what === "pause") shard.pauseCheck("p", uuid, at);
    else if (what === "resume") shard.resumeCheck("p", uuid, at);
    else if (what === "clear mute") shard.updateCheck("p", uuid, { mutedUntilAt: null }, at);
    else assert.ok(shard.ping(pingOf({ uuid }, at, { signal: what })).ok);
    notes.push(...heard(shard.takeChanges()));
  }
  return { heard: notes, acks, shard, uuid };
}

test("an acknowledged outage gets no more reminders; up clears it; the next outage has its reminders again", () => {
  const { heard: notes, acks } = run({}, [
    [1, "success"],
    [10, "fail"],
    [2 * H + 30, "advance"],
    [2 * H + 40, "ack"],
    [12 * H, "advance"],
    [12 * H + 5, "success"],
    [13 * H, "fail"],
    [15 * H + 30, "advance"],
  ]);
  assert.equal(acks, ["ok, acknowledged=true"]);
  assert.equal(notes, [
    "down@10",
    "reminder 1@70",
    "reminder 2@130",
    `up@${12 * H + 5}`,
    `down@${13 * H}`,
    `reminder 1@${14 * H}`,
    `reminder 2@${15 * H}`,
  ]);
});

test("only a down check can be acknowledged: new, up, grace, paused are not_down; up after an ack clears the flag", () => {
  const { acks, shard, uuid } = run({}, [
    [0, "ack"],
    [1, "success"],
    [2, "ack"],
    [1 + 24 * H + 30, "ack"],
    [1 + 24 * H + 40, "pause"],
    [1 + 24 * H + 50, "ack"],
  ]);
  assert.equal(acks, ["not_down", "not_down", "not_down", "not_down"], "new, up, grace (due + 30 min of a 1-hour grace), paused");
  const found = shard.getCheck("p", uuid);
  assert.ok(found.ok && found.value.alert === undefined);
  const later = run({}, [
    [1, "fail"],
    [2, "ack"],
    [3, "success"],
    [4, "ack"],
  ]);
  assert.equal(later.acks, ["ok, acknowledged=true", "not_down"]);
});

test("edge: a check whose deadline fell just before the acknowledgement is down by then and can be acknowledged", () => {
  const due = 1 + 25 * H; // last ping at minute 1, timeout 1 day, grace 1 hour
  assert.equal(
    run({}, [
      [1, "success"],
      [due - 1, "ack"],
    ]).acks,
    ["not_down"],
  );
  const { heard: notes, acks } = run({}, [
    [1, "success"],
    [due, "ack"],
    [due + 5 * H, "advance"],
  ]);
  assert.equal(acks, ["ok, acknowledged=true"]);
  assert.equal(notes, [`down@${due}`], "the down flip is applied first, at its own time; no reminder after the ack");
});

test("a check without reminders keeps its acknowledgement too (nothing else in its alerting state)", () => {
  const { acks, shard, uuid } = run({ reminderIntervalMs: 0 }, [
    [1, "fail"],
    [5, "ack"],
  ]);
  assert.equal(acks, ["ok, acknowledged=true"]);
  const found = shard.getCheck("p", uuid);
  assert.ok(found.ok && found.value.alert?.acknowledged?.by === "api");
});

test("acknowledging again keeps the first acknowledgement", () => {
  const { shard, uuid } = run({}, [
    [1, "fail"],
    [5, "ack"],
    [9, "ack"],
  ]);
  const found = shard.getCheck("p", uuid);
  assert.ok(found.ok);
  if (found.ok) assert.equal(found.value.alert?.acknowledged, { at: T0 + 5 * MINUTE, by: "api" });
});

test("a mute's held down notification is still sent at its end after an ack, with no reminders after it", () => {
  const { heard: notes } = run({ mutedUntilAt: T0 + 5 * HOUR }, [
    [1, "success"],
    [10, "fail"],
    [60, "ack"],
    [12 * H, "advance"],
  ]);
  assert.equal(notes, [`down (mute ended)@${5 * H}`]);
  const cleared = run({ mutedUntilAt: T0 + 5 * HOUR }, [
    [1, "success"],
    [10, "fail"],
    [60, "ack"],
    [90, "clear mute"],
    [12 * H, "advance"],
  ]);
  assert.equal(cleared.heard, ["down (mute ended)@90"]);
});

test("pause ends the outage and its acknowledgement; after resume a new outage has reminders", () => {
  const { heard: notes } = run({}, [
    [1, "fail"],
    [5, "ack"],
    [10, "pause"],
    [20, "resume"],
    [30, "fail"],
    [2 * H + 40, "advance"],
  ]);
  assert.equal(notes, ["down@1", "down@30", "reminder 1@90", "reminder 2@150"]);
});

test("the acknowledgement survives the journal: in a ping's state patch and in a reminder's alert patch", () => {
  const { shard, uuid } = run({}, [
    [1, "fail"],
    [5, "ack"],
  ]);
  const acked = shard.getCheck("p", uuid);
  if (!acked.ok) throw new Error("no check");
  // a log ping: a state-only record (the check as a patch)
  shard.ping(pingOf({ uuid }, T0 + 6 * MINUTE, { signal: "log" }));
  const changes = shard.takeChanges();
  assert.is(changes.stateOnly, true);
  const replayed = decodeJournal(encodeJournal(changes), () => acked.value);
  assert.equal(replayed.checks[0].alert?.acknowledged, { at: T0 + 5 * MINUTE, by: "api" });
  // the acknowledgement's own record: the whole check
  const whole = run({}, [[1, "fail"]]);
  whole.shard.apply({ kind: "acknowledgeCheck", projectId: "p", uuid: whole.uuid, by: "dashboard", at: T0 + 2 * MINUTE });
  const record = whole.shard.takeChanges();
  const back = decodeJournal(encodeJournal(record), () => undefined);
  assert.equal(back.checks[0].alert?.acknowledged, { at: T0 + 2 * MINUTE, by: "dashboard" });
});

test.run();
