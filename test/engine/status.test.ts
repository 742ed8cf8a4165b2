import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Check, Millis, Status } from "../../engine/model.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import { downAt, graceStartAt, nextPingAt, statusAt } from "../../engine/status.ts";
import { check } from "../helpers.ts";

// Defaults from check(): simple, timeout 1 day, grace 1 hour.
const T0 = Date.UTC(2024, 0, 15, 10, 20, 0); // a fixed instant, not a clock read
const at = (h: number, m: number, s = 0): Millis => Date.UTC(2024, 0, 15, h, m, s);
const up = (over: Partial<Check> = {}) => check({ status: "up", lastPingAt: 0, ...over });
const cron = (over: Partial<Check> = {}) => up({ kind: "cron", schedule: "0 * * * *", tz: "UTC", lastPingAt: T0, ...over });

// [name, check, without started, with started]
const graceStarts: [string, Check, Millis | null, Millis | null][] = [
  ["new check: never", check(), null, null],
  ["up simple check: last ping + timeout", up({ lastPingAt: 5 }), 5 + DAY, 5 + DAY],
  ["down check: never", check({ status: "down", lastPingAt: 0 }), null, null],
  ["down check with an open run: never, even with started", check({ status: "down", lastPingAt: 0, lastStartAt: 7 }), null, null],
  ["paused check: never", check({ status: "paused", lastPingAt: 0 }), null, null],
  ["paused check with an open run: the start, with started", check({ status: "paused", lastStartAt: 7 }), null, 7],
  ["new check with an open run: the start, with started", check({ lastStartAt: 7 }), null, 7],
  ["up check with a run opened before the deadline: the start, with started", up({ lastStartAt: HOUR }), DAY, HOUR],
  ["up check with a run opened after the deadline: the deadline", up({ lastStartAt: DAY + 5 }), DAY, DAY],
  // never stored (up always comes with a last ping), but the rule stays total: nothing to count from
  ["up check without a last ping: never", up({ lastPingAt: null }), null, null],
];
for (const [name, given, without, withStarted] of graceStarts) {
  test(`graceStartAt: ${name}`, () => {
    assert.is(graceStartAt(given, { withStarted: false }), without);
    assert.is(graceStartAt(given, { withStarted: true }), withStarted);
  });
}

const statuses: [string, Check, Millis, Status | "grace"][] = [
  ["new stays new", check(), 400 * DAY, "new"],
  ["paused stays paused", check({ status: "paused", lastPingAt: 0 }), 400 * DAY, "paused"],
  ["down stays down", check({ status: "down", lastPingAt: 0 }), 1, "down"],
  ["up before the timeout", up(), DAY - 1, "up"],
  ["grace from the timeout, inclusive", up(), DAY, "grace"],
  ["grace until just before grace ends", up(), DAY + HOUR - 1, "grace"],
  ["down when grace ends, inclusive", up(), DAY + HOUR, "down"],
  ["an open run does not make an up check late early", up({ lastStartAt: MINUTE }), 2 * MINUTE, "up"],
  ["an up check whose run outlived grace is down before its timeout", up({ lastStartAt: MINUTE }), MINUTE + HOUR, "down"],
  ["an up check's run just inside grace", up({ lastStartAt: MINUTE }), MINUTE + HOUR - 1, "up"],
  ["a new check's run inside grace keeps it new", check({ lastStartAt: 0 }), HOUR - 1, "new"],
  ["a new check's run past grace is down", check({ lastStartAt: 0 }), HOUR, "down"],
  ["a paused check's run past grace is down", check({ status: "paused", lastStartAt: 0 }), HOUR, "down"],
  ["a paused check's run inside grace keeps it paused", check({ status: "paused", lastStartAt: 0 }), HOUR - 1, "paused"],
  ["a down check with an open run stays down", check({ status: "down", lastPingAt: 0, lastStartAt: 0 }), 1, "down"],
  ["grace is the check's own", up({ graceMs: MINUTE }), DAY + MINUTE, "down"],
];
for (const [name, given, when, want] of statuses) {
  test(`statusAt: ${name}`, () => assert.is(statusAt(given, when), want));
}

const nextPings: [string, Check, Millis | null][] = [
  ["new check: null", check(), null],
  ["up check: last ping + timeout", up({ lastPingAt: 10 }), 10 + DAY],
  ["new check with an open run: the start time", check({ lastStartAt: 30 }), 30],
  ["paused check with an open run: the start time", check({ status: "paused", lastStartAt: 30 }), 30],
  ["up check with an open run: the start time", up({ lastStartAt: 30 }), 30],
  ["down check with an open run: null", check({ status: "down", lastPingAt: 0, lastStartAt: 30 }), null],
];
for (const [name, given, want] of nextPings) {
  test(`nextPingAt: ${name}`, () => assert.is(nextPingAt(given), want));
}

const downs: [string, Check, Millis | null][] = [
  ["new check: never", check(), null],
  ["paused check: never", check({ status: "paused", lastPingAt: 0 }), null],
  ["down check: never", check({ status: "down", lastPingAt: 0 }), null],
  ["down check with an open run: never (already down)", check({ status: "down", lastPingAt: 0, lastStartAt: 0 }), null],
  ["up check: timeout + grace after the last ping", up({ lastPingAt: 10 }), 10 + DAY + HOUR],
  ["new check with an open run: start + grace", check({ lastStartAt: 30 }), 30 + HOUR],
  ["paused check with an open run: start + grace", check({ status: "paused", lastStartAt: 30 }), 30 + HOUR],
  ["up check with an open run: start + grace when that comes first", up({ lastStartAt: 30 }), 30 + HOUR],
  ["up check with a late run: timeout + grace", up({ lastStartAt: DAY + 30 }), DAY + HOUR],
];
for (const [name, given, want] of downs) {
  test(`downAt: ${name}`, () => assert.is(downAt(given), want));
}

test("downAt is exactly the first instant statusAt says down", () => {
  const checks = [
    up(),
    up({ lastStartAt: 30 }),
    up({ lastStartAt: DAY + 30 }),
    check({ lastStartAt: 5 }),
    check({ status: "paused", lastStartAt: 5 }),
    up({ graceMs: MINUTE, timeoutMs: 2 * MINUTE }),
  ];
  for (const given of checks) {
    const deadline = downAt(given);
    if (deadline === null) throw new Error("expected a deadline");
    assert.is.not(statusAt(given, deadline - 1), "down");
    assert.is(statusAt(given, deadline), "down");
  }
});

// These use engine/schedule.ts nextAfter (cron "0 * * * *" in UTC: next after 10:20 is 11:00).
test("cron check: grace starts at the next schedule time after the last ping", () => {
  assert.is(graceStartAt(cron(), { withStarted: false }), at(11, 0));
  assert.is(nextPingAt(cron()), at(11, 0));
  assert.is(downAt(cron()), at(12, 0));
});

test("cron check: the next time is strictly after a last ping on a schedule time", () => {
  assert.is(nextPingAt(cron({ lastPingAt: at(11, 0) })), at(12, 0));
});

const cronStatuses: [string, Millis, Status | "grace"][] = [
  ["up before the next schedule time", at(10, 59, 59), "up"],
  ["grace from the schedule time, inclusive", at(11, 0), "grace"],
  ["grace just before grace ends", at(11, 59, 59), "grace"],
  ["down when grace ends, inclusive", at(12, 0), "down"],
];
for (const [name, when, want] of cronStatuses) {
  test(`cron statusAt: ${name}`, () => assert.is(statusAt(cron(), when), want));
}

test("cron check with an open run: next ping is the start when it comes first", () => {
  assert.is(nextPingAt(cron({ lastStartAt: at(10, 30) })), at(10, 30));
  assert.is(downAt(cron({ lastStartAt: at(10, 30) })), at(11, 30));
});

test("oncalendar check: grace starts at the next occurrence", () => {
  const given = cron({ kind: "oncalendar", schedule: "*-*-* *:00:00" });
  assert.is(nextPingAt(given), at(11, 0));
  assert.is(statusAt(given, at(11, 0)), "grace");
});

test("a schedule with no future occurrence: up forever, no next ping, no deadline", () => {
  const given = cron({ kind: "oncalendar", schedule: "2019-01-01" });
  assert.is(nextPingAt(given), null);
  assert.is(downAt(given), null);
  assert.is(statusAt(given, at(10, 20) + 1000 * DAY), "up");
});

test.run();
