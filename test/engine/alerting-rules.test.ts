// The alerting rules on their own (engine/alerting.ts), for the cases a Shard never reaches but the rules
// still answer: a notice due on a check that is not down or is muted, a re-plan of a check that is not down,
// a mute already held, an interval that did not change, and an outage that ends.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { onNoticeDue, replanNotices, settleFlips } from "../../engine/alerting.ts";
import type { AlertState } from "../../engine/model.ts";
import { HOUR, MINUTE } from "../../engine/model.ts";
import { check, flip } from "../helpers.ts";

const T0 = Date.UTC(2026, 5, 1);
const outage = (over: Partial<AlertState> = {}): AlertState => ({
  failures: 0,
  downSinceAt: T0,
  dueAt: T0 + HOUR,
  held: false,
  reminders: 0,
  ...over,
});

test("onNoticeDue: nothing planned → nothing changes and nothing is sent", () => {
  const given = check({ status: "down" });
  assert.equal(onNoticeDue(given, T0, null), { check: given, notice: null });
  const noDue = check({ status: "down", alert: outage({ dueAt: null }) });
  assert.equal(onNoticeDue(noDue, T0, null), { check: noDue, notice: null });
});

test("onNoticeDue: a check no longer down forgets the notice and sends nothing", () => {
  const given = check({ status: "up", reminderIntervalMs: HOUR, alert: outage({ failures: 1, held: true }) });
  assert.equal(onNoticeDue(given, T0 + HOUR, null), {
    check: { ...given, alert: { failures: 1, downSinceAt: T0, dueAt: null, held: false, reminders: 0 } },
    notice: null,
  });
});

test("onNoticeDue: inside a mute a held down notification waits for the mute's end; a reminder is skipped to one interval after it", () => {
  const muteEndAt = T0 + 3 * HOUR;
  const held = check({ status: "down", reminderIntervalMs: HOUR, alert: outage({ held: true }) });
  assert.equal(onNoticeDue(held, T0 + HOUR, muteEndAt), {
    check: { ...held, alert: outage({ dueAt: muteEndAt, held: true }) },
    notice: null,
  });
  const notified = check({ status: "down", reminderIntervalMs: HOUR, alert: outage() });
  assert.equal(onNoticeDue(notified, T0 + HOUR, muteEndAt), {
    check: { ...notified, alert: outage({ dueAt: muteEndAt + HOUR }) },
    notice: null,
  });
});

test("replanNotices: a check that is not down has nothing to plan, muted or not", () => {
  const before = check({ status: "up", reminderIntervalMs: 0 });
  const after = check({ ...before, reminderIntervalMs: HOUR, mutedUntilAt: T0 + HOUR });
  assert.equal(replanNotices(before, after, T0, T0 + HOUR), { check: after, notice: null });
});

test("replanNotices: a mute already held to the same end is left as it is (the same record)", () => {
  const held = check({ status: "down", mutedUntilAt: T0 + HOUR, alert: outage({ dueAt: T0 + HOUR, held: true }) });
  const planned = replanNotices(held, held, T0, T0 + HOUR);
  assert.is(planned.check, held);
  assert.is(planned.notice, null);
});

test("replanNotices: an unchanged interval keeps the next reminder where it was; a changed one counts from now", () => {
  const before = check({ status: "down", reminderIntervalMs: HOUR, alert: outage({ dueAt: T0 + HOUR }) });
  const unmuted = check({ ...before, mutedUntilAt: null });
  assert.equal(replanNotices(before, unmuted, T0 + 30 * MINUTE, null), { check: unmuted, notice: null });
  const off = check({ ...before, reminderIntervalMs: 0 });
  // no reminder left, but the outage and its start are kept for a later interval
  assert.equal(replanNotices(before, off, T0 + 30 * MINUTE, null).check.alert, outage({ dueAt: null }));
});

test("settleFlips: an up flip ends the outage: nothing planned, nothing kept but the failure count", () => {
  const down = check({ status: "down", reminderIntervalMs: HOUR, alert: outage({ failures: 2, reminders: 3 }) });
  const up = flip({ checkUuid: down.uuid, from: "down", to: "up", at: T0 + 2 * HOUR, notify: true });
  const settled = settleFlips(check({ ...down, status: "up" }), [up], null);
  assert.equal(settled.check.alert, { failures: 2, downSinceAt: null, dueAt: null, held: false, reminders: 0 });
  assert.equal(settled.notify, [up]);
});

test("settleFlips: a down flip records when the outage started, also without reminders or a mute when failures are counted", () => {
  const counted = check({
    status: "up",
    failureThreshold: 3,
    alert: { failures: 1, downSinceAt: null, dueAt: null, held: false, reminders: 0 },
  });
  const down = flip({ checkUuid: counted.uuid, from: "up", to: "down", at: T0 + HOUR, notify: true });
  assert.equal(settleFlips(check({ ...counted, status: "down" }), [down], null).check.alert, {
    failures: 1,
    downSinceAt: T0 + HOUR,
    dueAt: null,
    held: false,
    reminders: 0,
  });
});

test.run();
