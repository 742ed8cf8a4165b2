// Recurring maintenance windows on the Shard alone (CONTRACT "Alerting, second part"): each time a window's
// schedule fires, the project is muted for its duration, as by a project mute: status and flips go on,
// nothing is notified, and a check still down at the window's end is notified once. Instants written by hand.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import type { Changes } from "../../engine/changes.ts";
import type { CheckSpec, MaintenanceWindow, Millis, PingSignal } from "../../engine/model.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import { maintenanceEndAt, nextMaintenanceAt } from "../../engine/maintenance.ts";
import { pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";

const DAY1 = Date.UTC(2026, 5, 1); // 2026-06-01T00:00Z
const at = (hhmm: string, day = DAY1): Millis => day + Number(hhmm.slice(0, 2)) * HOUR + Number(hhmm.slice(3)) * MINUTE;
const hhmm = (t: Millis) => new Date(t).toISOString().slice(11, 16);

const NIGHTLY: MaintenanceWindow = { id: "w1", name: "nightly", schedule: "0 2 * * *", tz: "UTC", durationMs: 2 * HOUR, createdAt: DAY1 };

/** What integrations heard: "down@01:00", "reminder 1@01:10", "down (window ended)@04:00". */
function heard(changes: Changes, format = hhmm): string[] {
  return changes.outbox.map((entry) => {
    const what =
      entry.reminder !== undefined ? `reminder ${entry.reminder}` : entry.id.endsWith("-m") ? "down (window ended)" : entry.flip.to;
    return `${what}@${format(entry.flip.at)}`;
  });
}

function setUp(spec: CheckSpec, windows: readonly MaintenanceWindow[], startAt = DAY1) {
  const shard = new Shard({ newId: sequentialIds(), now: startAt });
  shard.createProject(scenarioProject("p"), startAt);
  shard.addChannel(
    { id: "c", projectId: "p", name: "", kind: "email", value: { kind: "email", address: "a@b.c" }, createdAt: startAt },
    startAt,
  );
  for (const window of windows) assert.ok(shard.apply({ kind: "addMaintenance", projectId: "p", window, at: startAt }).ok);
  const made = shard.createCheck("p", { timeoutMs: DAY, graceMs: HOUR, channels: { all: true }, ...spec }, [], startAt);
  if (!made.ok) throw new Error("create failed");
  shard.takeChanges();
  const uuid = made.value.check.uuid;
  const notes: string[] = [];
  // as a running server: the clock reaches each instant (every deadline and window start due fires) before a ping there
  const step = (when: Millis, what: PingSignal | "advance", format = hhmm) => {
    shard.advance(when);
    if (what !== "advance") assert.ok(shard.ping(pingOf({ uuid }, when, { signal: what })).ok);
    notes.push(...heard(shard.takeChanges(), format));
  };
  return { shard, uuid, notes, step };
}

test("a check going down inside a window: silent, one down notification at the window's end", () => {
  const t = setUp({}, [NIGHTLY]);
  t.step(at("00:30"), "success");
  t.step(at("02:30"), "fail");
  t.step(at("03:59"), "advance");
  assert.equal(t.notes, []);
  t.step(at("06:00"), "advance");
  assert.equal(t.notes, ["down (window ended)@04:00"]);
});

test("down and up again inside a window: nothing at all; outside the window everything is heard", () => {
  const t = setUp({}, [NIGHTLY]);
  t.step(at("00:30"), "success");
  t.step(at("02:30"), "fail");
  t.step(at("03:00"), "success");
  t.step(at("05:00"), "advance");
  t.step(at("05:10"), "fail"); // the marker: after the window, a down is heard at once
  assert.equal(t.notes, ["down@05:10"]);
});

test("edge: a window starting while the check is down (notified before, no reminders): not notified again at its end", () => {
  const t = setUp({}, [NIGHTLY]);
  t.step(at("00:30"), "success");
  t.step(at("01:00"), "fail");
  t.step(at("05:00"), "advance");
  assert.equal(t.notes, ["down@01:00"]);
});

test("edge: the instant a window starts it mutes; the instant it ends it does not", () => {
  const starts = setUp({}, [NIGHTLY]);
  starts.step(at("00:30"), "success");
  starts.step(at("02:00"), "fail");
  starts.step(at("04:00"), "advance");
  assert.equal(starts.notes, ["down (window ended)@04:00"]);
  const ends = setUp({}, [NIGHTLY]);
  ends.step(at("00:30"), "success");
  ends.step(at("01:59"), "success");
  ends.step(at("04:00"), "fail");
  assert.equal(ends.notes, ["down@04:00"]);
});

test("reminders falling inside a window are skipped (the outage is not notified again as new); the next comes one interval after its end", () => {
  const t = setUp({ reminderIntervalMs: HOUR }, [NIGHTLY]);
  t.step(at("00:05"), "success");
  t.step(at("00:10"), "fail");
  t.step(at("05:30"), "advance");
  // the reminder count goes on from before the window, as after a project mute
  assert.equal(t.notes, ["down@00:10", "reminder 1@01:10", "reminder 2@05:00"]);
});

test("the window recurs: the next night mutes again; removing the window ends its mute at once", () => {
  const t = setUp({}, [NIGHTLY]);
  t.step(at("00:30"), "success");
  t.step(at("02:30", DAY1 + DAY), "fail"); // the deadline at 01:30 on the second day, before its window
  t.step(at("05:00", DAY1 + DAY), "advance");
  assert.equal(t.notes, ["down@01:30"], "the second night's window does not notify the outage notified before it again");
  const t2 = setUp({}, [NIGHTLY]);
  t2.step(at("01:00", DAY1 + DAY), "success");
  t2.step(at("02:30", DAY1 + DAY), "fail");
  assert.ok(t2.shard.apply({ kind: "removeMaintenance", projectId: "p", windowId: "w1", at: at("03:00", DAY1 + DAY) }).ok);
  t2.notes.push(...heard(t2.shard.takeChanges()));
  assert.equal(t2.notes, ["down (window ended)@03:00"]);
  assert.equal(t2.shard.apply({ kind: "removeMaintenance", projectId: "p", windowId: "w1", at: at("03:01", DAY1 + DAY) }), {
    ok: false,
    failure: { code: "not_found", what: "maintenance window" },
  });
});

test("DST: a window at 02:00 Europe/Riga for 4 hours, on the night the clocks go forward and the night after", () => {
  // 2026-03-29: 02:00 EET = 00:00Z; 4 real hours end at 04:00Z. 2026-03-30: 02:00 EEST = 2026-03-29T23:00Z, ends 03:00Z.
  const riga: MaintenanceWindow = { ...NIGHTLY, schedule: "0 2 * * *", tz: "Europe/Riga", durationMs: 4 * HOUR };
  const start = Date.UTC(2026, 2, 28, 12);
  assert.is(maintenanceEndAt([riga], Date.UTC(2026, 2, 29, 0, 0)), Date.UTC(2026, 2, 29, 4, 0));
  assert.is(maintenanceEndAt([riga], Date.UTC(2026, 2, 28, 23, 59)), null);
  assert.is(maintenanceEndAt([riga], Date.UTC(2026, 2, 29, 4, 0)), null);
  assert.is(maintenanceEndAt([riga], Date.UTC(2026, 2, 29, 23, 0)), Date.UTC(2026, 2, 30, 3, 0));
  assert.is(maintenanceEndAt([riga], Date.UTC(2026, 2, 29, 22, 59)), null);
  const iso = (t: Millis) => new Date(t).toISOString().slice(0, 16);
  const t = setUp({}, [riga], start);
  t.step(Date.UTC(2026, 2, 29, 1, 0), "fail", iso);
  t.step(Date.UTC(2026, 2, 29, 3, 0), "success", iso);
  t.step(Date.UTC(2026, 2, 29, 23, 30), "fail", iso);
  t.step(Date.UTC(2026, 2, 30, 6, 0), "advance", iso);
  assert.equal(t.notes, ["down (window ended)@2026-03-30T03:00"], "the first night's down and up were inside its window");
});

test("a loaded project (a restart) keeps its windows: the next start is armed, a running one still mutes", () => {
  const t = setUp({}, [NIGHTLY]);
  t.step(at("00:30"), "success");
  const snapshot = t.shard.snapshot();
  const again = new Shard({ newId: sequentialIds(), now: at("02:30") });
  for (const project of snapshot.projects) again.load(project, snapshot.channels, snapshot.checks);
  again.ping(pingOf({ uuid: t.uuid }, at("02:40"), { signal: "fail" }));
  again.advance(at("05:00"));
  again.ping(pingOf({ uuid: t.uuid }, at("05:30")));
  again.advance(at("02:10", DAY1 + DAY)); // the next night's window: a down at its start is held
  again.ping(pingOf({ uuid: t.uuid }, at("02:20", DAY1 + DAY), { signal: "fail" }));
  again.advance(at("04:30", DAY1 + DAY));
  assert.equal(heard(again.takeChanges()), ["down (window ended)@04:00", "up@05:30", "down (window ended)@04:00"]);
});

test("several windows: the mute at an instant ends with the latest of those running; the next start is the earliest", () => {
  const early: MaintenanceWindow = { ...NIGHTLY, id: "w2", schedule: "30 1 * * *", durationMs: 3 * HOUR }; // 01:30-04:30
  const short: MaintenanceWindow = { ...NIGHTLY, id: "w3", schedule: "0 3 * * *", durationMs: 15 * MINUTE }; // 03:00-03:15
  for (const windows of [
    [NIGHTLY, early, short],
    [short, early, NIGHTLY],
    [early, NIGHTLY],
  ]) {
    const order = windows.map((w) => w.id).join(",");
    assert.is(hhmm(maintenanceEndAt(windows, at("03:05"))!), "04:30", order);
    assert.is(hhmm(maintenanceEndAt(windows, at("02:00"))!), "04:30", order);
    assert.is(maintenanceEndAt(windows, at("04:30")), null, `${order}: the instant the last ends`);
    assert.is(hhmm(nextMaintenanceAt(windows, at("00:00"))!), "01:30", order);
    assert.is(hhmm(nextMaintenanceAt(windows, at("01:30"))!), "02:00", `${order}: after a start, strictly`);
  }
  assert.is(hhmm(maintenanceEndAt([NIGHTLY, short], at("03:05"))!), "04:00", "the longer of two running");
  assert.is(hhmm(maintenanceEndAt([short, NIGHTLY], at("03:05"))!), "04:00", "in either order");
  assert.is(maintenanceEndAt(undefined, at("03:00")), null);
  assert.is(nextMaintenanceAt([], at("03:00")), null);
});

test("a window that starts every minute and lasts an hour: the mute at an instant ends an hour after the latest start", () => {
  const dense: MaintenanceWindow = { ...NIGHTLY, schedule: "* * * * *", durationMs: HOUR };
  assert.is(maintenanceEndAt([dense], at("10:00")), at("11:00"));
  assert.is(maintenanceEndAt([dense], at("10:00") + 30_000), at("11:00"), "between two starts: the last one");
  const sparse: MaintenanceWindow = { ...NIGHTLY, schedule: "0 */6 * * *", durationMs: 5 * HOUR }; // 00, 06, 12, 18 for 5 hours
  assert.is(maintenanceEndAt([sparse], at("10:59")), at("11:00"));
  assert.is(maintenanceEndAt([sparse], at("11:00")), null);
  assert.is(maintenanceEndAt([sparse], at("06:00")), at("11:00"), "the instant it starts");
});

test("a window whose schedule never fires again mutes nothing and hides no other window's start", () => {
  const never: MaintenanceWindow = { ...NIGHTLY, id: "w9", schedule: "0 0 30 2 *" }; // February 30th
  for (const windows of [
    [never, NIGHTLY],
    [NIGHTLY, never],
  ]) {
    assert.is(hhmm(nextMaintenanceAt(windows, at("00:00"))!), "02:00");
    assert.is(hhmm(maintenanceEndAt(windows, at("03:00"))!), "04:00");
  }
  assert.is(maintenanceEndAt([never], at("03:00")), null);
  assert.is(nextMaintenanceAt([never], at("03:00")), null);
});

test("an OnCalendar window starting every 10 seconds: the mute ends a duration after the latest start, the instant of a start included", () => {
  const tenSeconds: MaintenanceWindow = { ...NIGHTLY, schedule: "*:*:0/10", durationMs: MINUTE };
  assert.is(maintenanceEndAt([tenSeconds], at("10:00") + 35_000), at("10:01") + 30_000);
  assert.is(maintenanceEndAt([tenSeconds], at("10:00") + 30_000), at("10:01") + 30_000, "at a start");
});

test("a window's start plans a down check's next reminder for after the window, night after night: the shard does not wake inside it", () => {
  const t = setUp({ reminderIntervalMs: 45 * MINUTE }, [NIGHTLY]);
  const DAY2 = DAY1 + DAY;
  t.step(at("00:30"), "success");
  t.step(at("01:00"), "fail");
  t.step(at("01:59"), "advance");
  assert.is(t.shard.nextDueAt(), at("02:00"), "the window's start (the reminder after 01:45 would be at 02:30)");
  t.step(at("02:00"), "advance");
  assert.is(t.shard.nextDueAt(), at("04:45"), "one interval after the window's end");
  t.step(at("01:59", DAY2), "advance");
  assert.is(t.shard.nextDueAt(), at("02:00", DAY2), "the next night's start is armed");
  t.step(at("02:00", DAY2), "advance");
  assert.is(t.shard.nextDueAt(), at("04:45", DAY2));
  assert.equal(t.notes.slice(0, 3), ["down@01:00", "reminder 1@01:45", "reminder 2@04:45"]);
});

test.run();
