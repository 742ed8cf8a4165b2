// The small rules of a shard's changes: when there is nothing to write, what a notification keeps of its
// check, what a delivered notification is recorded as, and when delivery was given up.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { GAVE_UP_AT, hasGivenUp, isEmpty, noChanges, noticeCheckOf, sentNoticeOf } from "../../engine/changes.ts";
import type { OutboxEntry } from "../../engine/changes.ts";
import { Shard } from "../../engine/shard.ts";
import { HOUR, MINUTE } from "../../engine/model.ts";
import { pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";
import { check, flip } from "../helpers.ts";

const T0 = Date.UTC(2026, 5, 1);

test("isEmpty: no list holds anything; a flag alone is nothing to write", () => {
  assert.ok(isEmpty(noChanges()));
  assert.ok(isEmpty({ ...noChanges(), statusOnly: true }), "a flag is not a change");
  assert.not.ok(isEmpty({ ...noChanges(), flips: [flip()] }), "one flip");
  assert.not.ok(isEmpty({ ...noChanges(), checks: [check(), check()], deletedChannels: [] }), "two checks");
});

test("noticeCheckOf keeps exactly what a notification shows of the check", () => {
  const whole = check({
    name: "nightly",
    slug: "nightly",
    tags: "db",
    desc: "backup",
    kind: "cron",
    timeoutMs: HOUR,
    schedule: "0 2 * * *",
    tz: "Europe/Riga",
    nPings: 7,
    createdAt: 5,
    status: "down",
    lastPingAt: 9,
  });
  assert.equal(noticeCheckOf(whole), {
    uuid: whole.uuid,
    name: "nightly",
    slug: "nightly",
    tags: "db",
    desc: "backup",
    kind: "cron",
    timeoutMs: HOUR,
    schedule: "0 2 * * *",
    tz: "Europe/Riga",
    nPings: 7,
    createdAt: 5,
  });
});

/** The outbox entries of a check with a reminder interval: its down notification, then its first reminder. */
function downAndReminder(): [OutboxEntry, OutboxEntry] {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p"), T0);
  shard.addChannel({ id: "ch", projectId: "p", name: "ops", kind: "email", value: { kind: "email", address: "a@b.c" }, createdAt: T0 }, T0);
  const made = shard.createCheck("p", { timeoutMs: HOUR, graceMs: MINUTE, reminderIntervalMs: HOUR, channels: { all: true } }, [], T0);
  if (!made.ok) throw new Error("create failed");
  shard.ping(pingOf({ uuid: made.value.check.uuid }, T0 + MINUTE, { signal: "fail" }));
  const [down] = shard.takeChanges().outbox;
  shard.advance(T0 + MINUTE + HOUR);
  const [reminder] = shard.takeChanges().outbox;
  return [down, reminder];
}

test("sentNoticeOf: the entry's id, check, flip and channel without its value; the reminder's number only for a reminder", () => {
  const [down, reminder] = downAndReminder();
  const sentAt = T0 + 2 * HOUR;
  const channel = { id: "ch", name: "ops", kind: "email" };
  assert.equal(sentNoticeOf(down, sentAt), { id: down.id, checkUuid: down.check.uuid, sentAt, flipAt: T0 + MINUTE, to: "down", channel });
  assert.not.ok("reminder" in sentNoticeOf(down, sentAt), "no reminder key on a flip's notice");
  assert.equal(sentNoticeOf(reminder, sentAt), {
    id: reminder.id,
    checkUuid: reminder.check.uuid,
    sentAt,
    flipAt: reminder.flip.at,
    to: "down",
    reminder: 1,
    channel,
  });
});

test("hasGivenUp: only an entry set to GAVE_UP_AT", () => {
  const [down] = downAndReminder();
  assert.not.ok(hasGivenUp(down));
  assert.not.ok(hasGivenUp({ ...down, nextAttemptAt: GAVE_UP_AT - 1 }));
  assert.ok(hasGivenUp({ ...down, nextAttemptAt: GAVE_UP_AT }));
});

test.run();
