import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Check, Flip, Millis, PingKind, Status } from "../../engine/model.ts";
import { DAY, HOUR, MINUTE, PING_KINDS, STATUSES } from "../../engine/model.ts";
import { applySpec, onDeadline, onPause, onPing, onResume } from "../../engine/transition.ts";
import { downAt } from "../../engine/status.ts";
import { check } from "../helpers.ts";

const A = "aaaaaaaa-0000-4000-8000-000000000001";
const B = "bbbbbbbb-0000-4000-8000-000000000002";
const AT = 10 * DAY; // the ping's arrival
const running = (rid: string | null, over: Partial<Check> = {}) =>
  check({ status: "up", lastPingAt: 0, lastStartAt: AT - MINUTE, lastStartRid: rid, ...over });

const FIRST_FAILURE = { failures: 1, downSinceAt: null, dueAt: null, held: false, reminders: 0 };

// Check.ping table, success/fail side: [name, given, kind, rid, fields expected afterwards]; every given
// check is up with no flip yet, so a success keeps it up and a fail flips it down (its first flip)
const completions: [string, Check, PingKind, string | null, Partial<Check>][] = [
  [
    "success without a run sets last ping and no duration",
    check({ status: "up", lastDurationMs: 5 }),
    "success",
    null,
    { status: "up", nFlips: 0, lastPingAt: AT, lastDurationMs: null, lastStartAt: null, lastStartRid: null },
  ],
  [
    "success pairs with a start when both rids are missing",
    running(null),
    "success",
    null,
    { status: "up", nFlips: 0, lastPingAt: AT, lastDurationMs: MINUTE, lastStartAt: null, lastStartRid: null },
  ],
  [
    "success pairs with a start of the same rid",
    running(A),
    "success",
    A,
    { status: "up", nFlips: 0, lastPingAt: AT, lastDurationMs: MINUTE, lastStartAt: null, lastStartRid: null },
  ],
  [
    "success with a different rid leaves the run open",
    running(A),
    "success",
    B,
    { status: "up", nFlips: 0, lastPingAt: AT, lastDurationMs: null, lastStartAt: AT - MINUTE, lastStartRid: A },
  ],
  [
    "success with a rid leaves a rid-less run open",
    running(null),
    "success",
    A,
    { status: "up", nFlips: 0, lastPingAt: AT, lastDurationMs: null, lastStartAt: AT - MINUTE, lastStartRid: null },
  ],
  [
    "success without a rid closes a run that has one, without duration",
    running(A),
    "success",
    null,
    { status: "up", nFlips: 0, lastPingAt: AT, lastDurationMs: null, lastStartAt: null, lastStartRid: null },
  ],
  // a failure is counted under any threshold (engine/alerting.ts countFailure)
  [
    "fail pairs with a start of the same rid",
    running(A),
    "fail",
    A,
    { status: "down", nFlips: 1, lastPingAt: AT, lastDurationMs: MINUTE, lastStartAt: null, lastStartRid: null, alert: FIRST_FAILURE },
  ],
  [
    "fail with a different rid closes the run without duration",
    running(A),
    "fail",
    B,
    { status: "down", nFlips: 1, lastPingAt: AT, lastDurationMs: null, lastStartAt: null, lastStartRid: null, alert: FIRST_FAILURE },
  ],
  [
    "fail without a run sets last ping",
    check({ status: "up", lastPingAt: 0 }),
    "fail",
    null,
    { status: "down", nFlips: 1, lastPingAt: AT, lastDurationMs: null, lastStartAt: null, alert: FIRST_FAILURE },
  ],
];
for (const [name, given, kind, rid, want] of completions) {
  test(name, () => {
    const { check: after } = onPing(given, kind, rid, AT);
    assert.equal(after, { ...given, nPings: given.nPings + 1, ...want });
  });
}

const others: [string, Check, PingKind, string | null, Partial<Check>][] = [
  [
    "start opens a run without touching status or last ping",
    check({ status: "up", lastPingAt: 0 }),
    "start",
    A,
    { lastStartAt: AT, lastStartRid: A },
  ],
  ["start overwrites an open run (noted as an overlap)", running(A), "start", B, { lastStartAt: AT, lastStartRid: B }],
  [
    "start on a down check keeps it down but opens a run",
    check({ status: "down", lastPingAt: 0 }),
    "start",
    null,
    { lastStartAt: AT, lastStartRid: null },
  ],
  ["start on a paused check keeps it paused", check({ status: "paused" }), "start", null, { lastStartAt: AT }],
  ["start on a new check keeps it new", check(), "start", null, { lastStartAt: AT }],
  ["log only counts", running(A, { lastDurationMs: 3 }), "log", A, {}],
  ["ign only counts", running(A, { lastDurationMs: 3 }), "ign", null, {}],
];
for (const [name, given, kind, rid, want] of others) {
  const note = kind === "start" && given.lastStartAt !== null ? { note: "overlap" } : {};
  test(name, () =>
    assert.equal(onPing(given, kind, rid, AT), { check: { ...given, nPings: given.nPings + 1, ...want }, flips: [], ...note }),
  );
}

test("every ping kind counts once", () => {
  for (const kind of PING_KINDS)
    for (const status of STATUSES) {
      assert.is(onPing(check({ status, nPings: 41 }), kind, null, AT).check.nPings, 42, `${kind} on ${status}`);
    }
});

// [stored status, ping kind, expected flip (to, reason, notify) or null]
const pingFlips: [Status, PingKind, [Status, Flip["reason"], boolean] | null][] = [
  ["new", "success", ["up", "", false]],
  ["paused", "success", ["up", "", false]],
  ["down", "success", ["up", "", true]],
  ["up", "success", null],
  ["new", "fail", ["down", "fail", true]],
  ["up", "fail", ["down", "fail", true]],
  ["paused", "fail", ["down", "fail", true]],
  ["down", "fail", null],
  ...STATUSES.flatMap((status) => (["start", "log", "ign"] as const).map((kind): [Status, PingKind, null] => [status, kind, null])),
];
for (const [from, kind, want] of pingFlips) {
  test(`${kind} on a ${from} check: ${want === null ? "no flip" : `flip to ${want[0]}, notify ${want[2]}`}`, () => {
    const given = check({ status: from, nFlips: 4, lastPingAt: 0 });
    const step = onPing(given, kind, null, AT);
    if (want === null) {
      assert.equal(step.flips, []);
      assert.is(step.check.nFlips, 4);
      return;
    }
    const [to, reason, notify] = want;
    assert.equal(step.flips, [{ checkUuid: given.uuid, n: 5, at: AT, from, to, reason, notify }]);
    assert.is(step.check.status, to);
    assert.is(step.check.nFlips, 5);
  });
}

test("pause of a paused check changes nothing", () => {
  const given = check({ status: "paused", lastStartAt: 5 });
  assert.equal(onPause(given, AT), { check: given, flips: [] });
});

for (const from of ["new", "up", "down"] as const) {
  test(`pause of a ${from} check flips to paused without notification and closes the run`, () => {
    const given = check({ status: from, lastPingAt: 7, lastStartAt: 9, lastStartRid: A, nFlips: 2, nPings: 3, lastDurationMs: 11 });
    assert.equal(onPause(given, AT), {
      check: { ...given, status: "paused", lastStartAt: null, lastStartRid: null, nFlips: 3 },
      flips: [{ checkUuid: given.uuid, n: 3, at: AT, from, to: "paused", reason: "", notify: false }],
    });
  });
}

for (const status of ["new", "up", "down"] as const) {
  test(`resume of a ${status} check fails with not_paused`, () => {
    assert.equal(onResume(check({ status }), AT), { ok: false, failure: { code: "not_paused" } });
  });
}

test("resume of a paused check makes it new and clears last ping and the run", () => {
  const given = check({ status: "paused", lastPingAt: 7, lastStartAt: 9, lastStartRid: A, nFlips: 2, nPings: 3, lastDurationMs: 11 });
  assert.equal(onResume(given, AT), {
    ok: true,
    value: {
      check: { ...given, status: "new", lastPingAt: null, lastStartAt: null, lastStartRid: null, nFlips: 3 },
      flips: [{ checkUuid: given.uuid, n: 3, at: AT, from: "paused", to: "new", reason: "", notify: false }],
    },
  });
});

const deadlineFlip = (given: Check, at: Millis): Flip => ({
  checkUuid: given.uuid,
  n: given.nFlips + 1,
  at,
  from: given.status,
  to: "down",
  reason: "timeout",
  notify: true,
});

// [name, given, noticed at, flip time or null]
const deadlines: [string, Check, Millis, Millis | null][] = [
  ["an up check at its deadline goes down", check({ status: "up", lastPingAt: 0 }), DAY + HOUR, DAY + HOUR],
  ["a deadline noticed late is stamped with the deadline", check({ status: "up", lastPingAt: 0 }), 30 * DAY, DAY + HOUR],
  ["an up check in grace stays up", check({ status: "up", lastPingAt: 0 }), DAY, null],
  ["an up check just before its deadline stays up", check({ status: "up", lastPingAt: 0 }), DAY + HOUR - 1, null],
  ["a down check stays without a new flip", check({ status: "down", lastPingAt: 0 }), 30 * DAY, null],
  ["a down check with an overdue run stays without a new flip", check({ status: "down", lastStartAt: 0 }), 30 * DAY, null],
  ["a new check's run past grace goes down", check({ lastStartAt: 5 }), 5 + HOUR, 5 + HOUR],
  ["a paused check's run past grace goes down", check({ status: "paused", lastStartAt: 5 }), 5 + HOUR, 5 + HOUR],
  ["an up check's run past grace goes down before the timeout", check({ status: "up", lastPingAt: 0, lastStartAt: 5 }), 2 * HOUR, 5 + HOUR],
  ["a new check without a run never goes down", check(), 400 * DAY, null],
  ["a paused check without a run never goes down", check({ status: "paused", lastPingAt: 0 }), 400 * DAY, null],
];
for (const [name, given, at, flipAt] of deadlines) {
  test(`deadline: ${name}`, () => {
    const step = onDeadline(given, at);
    if (flipAt === null) return assert.equal(step, { check: given, flips: [] });
    // the stored status becomes down; the open run and last ping stay as they are (reference handle_going_down)
    assert.equal(step, { check: { ...given, status: "down", nFlips: given.nFlips + 1 }, flips: [deadlineFlip(given, flipAt)] });
    assert.is(downAt(step.check), null);
  });
}

test("spec: a schedule makes a cron check and keeps the timeout hidden, even when a timeout is sent", () => {
  const given = check({ timeoutMs: 2 * DAY });
  const after = applySpec(given, { schedule: "*/5 * * * *", timeoutMs: 3 * DAY, tz: "Europe/Riga" });
  assert.equal(after, { ...given, kind: "cron", schedule: "*/5 * * * *", tz: "Europe/Riga" });
});

test("spec: a schedule that is not 5 fields makes an OnCalendar check", () => {
  assert.is(applySpec(check(), { schedule: "Mon *-*-* 12:00" }).kind, "oncalendar");
});

test("spec: the kind validateSchedule returned wins over the guess", () => {
  assert.is(applySpec(check(), { schedule: "0 * * * *" }, { scheduleKind: "oncalendar" }).kind, "oncalendar");
});

test("spec: a timeout alone makes a simple check and keeps the schedule and tz hidden", () => {
  const given = check({ kind: "cron", schedule: "0 * * * *", tz: "Europe/Riga" });
  assert.equal(applySpec(given, { timeoutMs: HOUR }), { ...given, kind: "simple", timeoutMs: HOUR });
});

test("spec: tz sent with a simple check is stored for later", () => {
  const after = applySpec(check(), { tz: "Asia/Tokyo" });
  assert.equal([after.kind, after.tz], ["simple", "Asia/Tokyo"]);
});

test("spec: an empty schedule is no schedule: a timeout with it makes the check simple, and the old schedule stays", () => {
  const given = check({ kind: "cron", schedule: "0 * * * *" });
  assert.equal(applySpec(given, { schedule: "", timeoutMs: HOUR }), { ...given, kind: "simple", timeoutMs: HOUR });
});

test("spec: the alerting fields left out of an update keep their values", () => {
  const given = check({ failureThreshold: 3, reminderIntervalMs: HOUR, mutedUntilAt: 5 * DAY });
  assert.equal(applySpec(given, { name: "renamed" }), { ...given, name: "renamed" });
});

test("spec: neither schedule nor timeout keeps the kind", () => {
  const given = check({ kind: "oncalendar", schedule: "daily" });
  assert.is(applySpec(given, { graceMs: MINUTE }).kind, "oncalendar");
});

test("spec: sent fields replace, absent fields stay, state never changes", () => {
  const given = check({ name: "a", slug: "a", tags: "x", status: "up", nPings: 9, lastPingAt: 4, lastStartAt: 5, nFlips: 2 });
  const spec = {
    name: "b",
    tags: "y z",
    desc: "d",
    graceMs: MINUTE,
    manualResume: true,
    methods: "POST",
    startKw: "go",
    successKw: "ok",
    failureKw: "err",
    filterSubject: true,
    filterBody: true,
    filterHttpBody: true,
    filterDefaultFail: true,
  } as const;
  assert.equal(applySpec(given, spec), { ...given, ...spec });
  assert.equal(applySpec(given, {}), given);
});

test("spec: slug is set only when sent, and an empty slug clears it", () => {
  assert.is(applySpec(check({ slug: "keep" }), { name: "other" }).slug, "keep");
  assert.is(applySpec(check({ slug: "keep" }), { slug: "" }).slug, "");
});

test("spec: resolved channel ids replace the set, sorted and unique; channel refs alone change nothing", () => {
  const given = check({ channels: ["c1"] });
  assert.equal(applySpec(given, { channels: { refs: ["x"] } }).channels, ["c1"]);
  assert.equal(applySpec(given, {}, { channelIds: ["c3", "c2", "c3"] }).channels, ["c2", "c3"]);
  assert.equal(applySpec(given, {}, { channelIds: [] }).channels, []);
});

test("a success that leaves an older run open is due at once: its down flip is not stamped before that success", () => {
  const down = check({ status: "down", graceMs: HOUR, lastStartAt: 0, lastStartRid: "00000000-0000-4000-8000-00000000000a" });
  const up = onPing(down, "success", "00000000-0000-4000-8000-00000000000b", 5 * HOUR).check; // another run's success
  assert.is(up.status, "up");
  assert.is(downAt(up), HOUR); // the old run outlived its grace long ago
  const step = onDeadline(up, HOUR);
  assert.equal(
    step.flips.map((f) => [f.at, f.from, f.to]),
    [[5 * HOUR, "up", "down"]],
  );
});

test.run();
