// Alerting rules on the Shard alone (CONTRACT "Alerting fields of a check"): failure thresholds,
// reminders while down, a check's mute and its project's. Every scenario is a table of timed events;
// the expected flips and notifications are written out by hand, in minutes after T0.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import type { Changes } from "../../engine/changes.ts";
import type { CheckSpec, Millis, PingSignal } from "../../engine/model.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import { pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";

const T0 = Date.UTC(2026, 5, 1);
const min = (at: Millis) => (at - T0) / MINUTE;

type Event =
  | [minute: number, signal: PingSignal]
  | [minute: number, "advance" | "pause" | "resume" | "delete"]
  | [minute: number, "update", CheckSpec]
  | [minute: number, "mute project", number | null]; // minutes after T0, or null

/** What integrations heard: "down@60", "up@90", "reminder 2@180", "down (mute ended)@300". */
function heard(changes: Changes): string[] {
  return changes.outbox.map((entry) => {
    const what =
      entry.reminder !== undefined ? `reminder ${entry.reminder}` : entry.id.endsWith("-m") ? "down (mute ended)" : entry.flip.to;
    return `${what}@${min(entry.flip.at)}`;
  });
}

/**
 * Runs the events on a fresh shard with one check (timeout 1 day, grace 1 hour, one channel) created at
 * T0 with `spec`; returns its flips ("down@61") and what its channel heard, in order.
 */
function run(spec: CheckSpec, events: readonly Event[]): { flips: string[]; heard: string[] } {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p"), T0);
  shard.addChannel({ id: "c", projectId: "p", name: "", kind: "email", value: { kind: "email", address: "a@b.c" }, createdAt: T0 }, T0);
  const made = shard.createCheck("p", { timeoutMs: DAY, graceMs: HOUR, channels: { all: true }, ...spec }, [], T0);
  if (!made.ok) throw new Error("create failed");
  const uuid = made.value.check.uuid;
  shard.takeChanges();
  const flips: string[] = [],
    notes: string[] = [];
  for (const event of events) {
    const at = T0 + event[0] * MINUTE;
    switch (event[1]) {
      case "advance":
        shard.advance(at);
        break;
      case "pause":
        shard.pauseCheck("p", uuid, at);
        break;
      case "resume":
        shard.resumeCheck("p", uuid, at);
        break;
      case "delete":
        shard.deleteCheck("p", uuid, at);
        break;
      case "update":
        assert.ok(shard.updateCheck("p", uuid, event[2], at).ok);
        break;
      case "mute project":
        assert.ok(shard.muteProject("p", event[2] === null ? null : T0 + event[2] * MINUTE, at).ok);
        break;
      default:
        assert.ok(shard.ping(pingOf({ uuid }, at, { signal: event[1] })).ok);
    }
    const changes = shard.takeChanges();
    flips.push(...changes.flips.map((f) => `${f.to}@${min(f.at)}`));
    notes.push(...heard(changes));
  }
  return { flips, heard: notes };
}

// ---- failure_threshold ----

const signals = (from: number, list: PingSignal[]): Event[] => list.map((signal, i) => [from + i, signal]);
const many = (n: number, signal: PingSignal): PingSignal[] => Array.from({ length: n }, () => signal);

// [name, threshold, events, flips expected]
const thresholds: [string, number, Event[], string[]][] = [
  [
    "threshold 1: every failure signal goes down (the reference)",
    1,
    signals(1, ["success", "fail", "success", "fail", "start", "fail", "log", "fail"]),
    ["up@1", "down@2", "up@3", "down@4"],
  ],
  [
    "threshold 3: down on the third consecutive failure; start and log pings don't count or reset",
    3,
    signals(1, ["success", "fail", "fail", "success", "fail", "start", "fail", "log", "fail", "fail"]),
    ["up@1", "down@9"],
  ],
  [
    "threshold 3: a success between failures starts the count over",
    3,
    signals(1, ["success", "fail", "fail", "success", "fail", "fail", "success", "fail", "fail", "fail"]),
    ["up@1", "down@10"],
  ],
  ["threshold 3: a failure signal on a new check leaves it new until the third", 3, signals(1, ["fail", "fail", "fail"]), ["down@3"]],
  [
    "threshold 100: 99 failures, a success, 99 failures with logs and starts between, then the 100th",
    100,
    signals(1, ["success", ...many(99, "fail"), "success", ...many(50, "fail"), "log", "start", ...many(49, "fail"), "fail"]),
    ["up@1", "down@203"],
  ],
];
for (const [name, threshold, events, expected] of thresholds) {
  test(name, () => {
    assert.equal(run({ failureThreshold: threshold }, events).flips, expected);
  });
}

test("threshold 3: a missed deadline still goes down at once, at its due time, with two failures counted", () => {
  // last signal (a failure) at minute 3: due at 3 + 1 day + 1 hour
  const { flips, heard: notes } = run({ failureThreshold: 3 }, [
    [1, "success"],
    [2, "fail"],
    [3, "fail"],
    [3 * 24 * 60, "advance"],
  ]);
  assert.equal(flips, ["up@1", `down@${3 + 25 * 60}`]);
  assert.equal(notes, [`down@${3 + 25 * 60}`]);
});

test("threshold 3: a check down by its deadline stays down on further failures, and a success brings it up", () => {
  const { flips } = run({ failureThreshold: 3 }, [
    [1, "success"],
    [2 * 24 * 60, "advance"],
    [2 * 24 * 60 + 1, "fail"],
    [2 * 24 * 60 + 2, "success"],
  ]);
  assert.equal(flips, ["up@1", `down@${1 + 25 * 60}`, `up@${2 * 24 * 60 + 2}`]);
});

// ---- reminder_interval ----

const H = 60; // minutes
const FAIL_AT = 10;

test("reminders over a long outage: exactly one per interval, each at its own time, none after up", () => {
  const events: Event[] = [
    [1, "success"],
    [FAIL_AT, "fail"],
  ];
  for (let m = FAIL_AT + 7; m < FAIL_AT + 10 * H + 30; m += 7) events.push([m, "advance"]); // many small steps
  events.push([FAIL_AT + 10 * H + 30, "success"], [FAIL_AT + 30 * H, "advance"]);
  const { heard: notes } = run({ reminderIntervalMs: HOUR }, events);
  const reminders = Array.from({ length: 10 }, (_, i) => `reminder ${i + 1}@${FAIL_AT + (i + 1) * H}`);
  assert.equal(notes, [`down@${FAIL_AT}`, ...reminders, `up@${FAIL_AT + 10 * H + 30}`]);
});

test("reminders: one jump of the clock over ten intervals gives the same reminders as small steps", () => {
  const { heard: notes } = run({ reminderIntervalMs: HOUR }, [
    [1, "success"],
    [FAIL_AT, "fail"],
    [FAIL_AT + 10 * H + 30, "advance"],
  ]);
  assert.equal(notes, [`down@${FAIL_AT}`, ...Array.from({ length: 10 }, (_, i) => `reminder ${i + 1}@${FAIL_AT + (i + 1) * H}`)]);
});

test("reminders: a ping after a missed reminder applies it first, at its own time", () => {
  // no advance between: the log ping at 2h30 catches up the reminders at 1h and 2h
  const { heard: notes } = run({ reminderIntervalMs: HOUR }, [
    [1, "success"],
    [FAIL_AT, "fail"],
    [FAIL_AT + 2 * H + 30, "log"],
  ]);
  assert.equal(notes, [`down@${FAIL_AT}`, `reminder 1@${FAIL_AT + H}`, `reminder 2@${FAIL_AT + 2 * H}`]);
});

test("reminders: a refused command that caught up a missed reminder leaves the next ones to come", () => {
  // the resume of a check that is not paused is refused (not_paused) after applying the reminders due by
  // then; nothing else arms the check, so the catch-up itself must
  const { heard: notes } = run({ reminderIntervalMs: HOUR }, [
    [1, "success"],
    [FAIL_AT, "fail"],
    [FAIL_AT + H + 30, "resume"],
    [FAIL_AT + 3 * H + 30, "advance"],
  ]);
  assert.equal(notes, [`down@${FAIL_AT}`, `reminder 1@${FAIL_AT + H}`, `reminder 2@${FAIL_AT + 2 * H}`, `reminder 3@${FAIL_AT + 3 * H}`]);
});

for (const [stop, event] of [
  ["pause", "pause"],
  ["delete", "delete"],
] as const) {
  test(`reminders: none after ${stop}`, () => {
    const { heard: notes } = run({ reminderIntervalMs: HOUR }, [
      [1, "success"],
      [FAIL_AT, "fail"],
      [FAIL_AT + 2 * H + 30, "advance"],
      [FAIL_AT + 2 * H + 31, event],
      [FAIL_AT + 20 * H, "advance"],
    ]);
    assert.equal(notes, [`down@${FAIL_AT}`, `reminder 1@${FAIL_AT + H}`, `reminder 2@${FAIL_AT + 2 * H}`]);
  });
}

test("reminders: a deadline's down flip starts them too, and an interval set while down counts from then (also with depends_on)", () => {
  const down = 1 + 25 * H;
  for (const withDependencies of [{}, { dependsOn: [] }]) {
    const { heard: notes } = run({}, [
      [1, "success"],
      [down + 30, "advance"],
      [down + 40, "update", { reminderIntervalMs: 5 * MINUTE, ...withDependencies }],
      [down + 52, "advance"],
      [down + 53, "update", { reminderIntervalMs: 0, ...withDependencies }],
      [down + 5 * H, "advance"],
    ]);
    assert.equal(notes, [`down@${down}`, `reminder 1@${down + 45}`, `reminder 2@${down + 50}`], JSON.stringify(withDependencies));
  }
});

// ---- muted_until and the project mute ----

test("a mute that ends while down: the down flip is silent, one down notification at the mute's end, reminders from then", () => {
  const { flips, heard: notes } = run({ reminderIntervalMs: HOUR, mutedUntilAt: T0 + 5 * HOUR }, [
    [1, "success"],
    [FAIL_AT, "fail"],
    [4 * H, "advance"],
    [7 * H + 30, "advance"],
  ]);
  assert.equal(flips, ["up@1", `down@${FAIL_AT}`]);
  assert.equal(notes, [`down (mute ended)@${5 * H}`, `reminder 1@${6 * H}`, `reminder 2@${7 * H}`]);
});

test("a mute that ends while up: nothing is sent, though the check went down and up inside it", () => {
  const { flips, heard: notes } = run({ reminderIntervalMs: HOUR, mutedUntilAt: T0 + 5 * HOUR }, [
    [1, "success"],
    [FAIL_AT, "fail"],
    [2 * H, "advance"],
    [3 * H, "success"],
    [10 * H, "advance"],
    [10 * H + 1, "fail"],
  ]);
  assert.equal(flips, ["up@1", `down@${FAIL_AT}`, `up@${3 * H}`, `down@${10 * H + 1}`]);
  assert.equal(notes, [`down@${10 * H + 1}`], "only the down after the mute");
});

test("a mute set while down holds reminders (also in the update that sets depends_on); clearing it does not notify the outage again: reminders count from the clearing", () => {
  for (const withDependencies of [{}, { dependsOn: [] }]) {
    const { heard: notes } = run({ reminderIntervalMs: HOUR }, [
      [1, "success"],
      [FAIL_AT, "fail"],
      [FAIL_AT + 30, "update", { mutedUntilAt: T0 + 10 * HOUR, ...withDependencies }],
      [5 * H, "advance"],
      [5 * H + 15, "update", { mutedUntilAt: null }],
      [6 * H + 20, "advance"],
    ]);
    assert.equal(notes, [`down@${FAIL_AT}`, `reminder 1@${6 * H + 15}`], JSON.stringify(withDependencies));
  }
});

test("an outage notified before a mute is not notified again when the mute is cleared or runs out (check and project mutes, no reminders)", () => {
  const events = (mute: Event, clear: Event): Event[] => [[1, "success"], [FAIL_AT, "fail"], mute, clear, [12 * H, "advance"]];
  const cases: [string, Event[]][] = [
    ["check mute cleared", events([FAIL_AT + 30, "update", { mutedUntilAt: T0 + 10 * HOUR }], [5 * H, "update", { mutedUntilAt: null }])],
    ["check mute runs out", events([FAIL_AT + 30, "update", { mutedUntilAt: T0 + 5 * HOUR }], [6 * H, "advance"])],
    ["project mute cleared", events([FAIL_AT + 30, "mute project", 10 * H], [5 * H, "mute project", null])],
    ["project mute runs out", events([FAIL_AT + 30, "mute project", 5 * H], [6 * H, "advance"])],
  ];
  for (const [name, list] of cases) assert.equal(run({}, list).heard, [`down@${FAIL_AT}`], name);
  // muted again and cleared again: still nothing; an up after the mute is heard
  const { heard: again } = run({}, [
    [1, "success"],
    [FAIL_AT, "fail"],
    [FAIL_AT + 30, "mute project", 5 * H],
    [5 * H, "mute project", null],
    [6 * H, "mute project", 8 * H],
    [7 * H, "mute project", null],
    [9 * H, "success"],
  ]);
  assert.equal(again, [`down@${FAIL_AT}`, `up@${9 * H}`]);
});

test("an outage that began inside a mute is notified once when the mute ends, and not again by a later mute's end", () => {
  const { heard: notes } = run({}, [
    [0, "mute project", 5 * H],
    [1, "success"],
    [FAIL_AT, "fail"],
    [6 * H, "mute project", 8 * H],
    [7 * H, "mute project", null],
    [12 * H, "advance"],
  ]);
  assert.equal(notes, [`down (mute ended)@${5 * H}`]);
});

// [name, check mute end, project mute (set at minute 0), project mute changes, expected notifications]
const overlaps: [string, number | null, number | null, Event[], string[]][] = [
  ["project mute longer than the check's: the later end wins", 3 * H, 6 * H, [], [`down (mute ended)@${6 * H}`]],
  ["check mute longer than the project's: the later end wins", 6 * H, 3 * H, [], [`down (mute ended)@${6 * H}`]],
  ["project mute alone", null, 4 * H, [], [`down (mute ended)@${4 * H}`]],
  [
    "project mute ended early while the check's still runs: the check's end",
    5 * H,
    8 * H,
    [[2 * H, "mute project", null]],
    [`down (mute ended)@${5 * H}`],
  ],
  [
    "project mute cleared after the check's ended: sent at the clearing",
    3 * H,
    8 * H,
    [[4 * H, "mute project", null]],
    [`down (mute ended)@${4 * H}`],
  ],
  ["project mute extended before it ended: the new end", null, 3 * H, [[2 * H, "mute project", 9 * H]], [`down (mute ended)@${9 * H}`]],
];
for (const [name, checkMute, projectMute, changes, expected] of overlaps) {
  test(`project and check mutes: ${name}`, () => {
    const events: Event[] = [[0, "mute project", projectMute], [1, "success"], [FAIL_AT, "fail"], ...changes, [12 * H, "advance"]];
    const { heard: notes } = run({ mutedUntilAt: checkMute === null ? null : T0 + checkMute * MINUTE }, events);
    assert.equal(notes, expected);
  });
}

test("a deadline's flip that plans a reminder is handed over whole, not as a status patch; a plain one still is", () => {
  for (const [spec, statusOnly] of [
    [{ reminderIntervalMs: HOUR }, undefined],
    [{}, true],
  ] as const) {
    const shard = new Shard({ newId: sequentialIds(), now: T0 });
    shard.createProject(scenarioProject("p"), T0);
    const made = shard.createCheck("p", { timeoutMs: DAY, graceMs: HOUR, ...spec }, [], T0);
    if (!made.ok) throw new Error("create failed");
    shard.ping(pingOf({ uuid: made.value.check.uuid }, T0 + MINUTE));
    shard.takeChanges();
    shard.advance(T0 + MINUTE + DAY + HOUR); // the down deadline only: its first reminder is an hour later
    const changes = shard.takeChanges();
    assert.equal(
      changes.flips.map((f) => [f.to, f.at]),
      [["down", T0 + MINUTE + DAY + HOUR]],
    );
    assert.is(changes.statusOnly, statusOnly, JSON.stringify(spec));
  }
});

test("replay: a seeded mix of signals, mutes and clock steps gives identical flips and notifications however the clock moves", () => {
  let seed = 11;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const kinds: PingSignal[] = ["success", "fail", "fail", "fail", "start", "log"];
  const events: Event[] = [];
  for (let m = 1; m < 6 * 24 * 60; m += 1 + Math.floor(random() * 240)) {
    const roll = random();
    if (roll < 0.08) events.push([m, "update", { mutedUntilAt: T0 + (m + Math.floor(random() * 600)) * MINUTE }]);
    else if (roll < 0.12) events.push([m, "mute project", random() < 0.3 ? null : m + Math.floor(random() * 900)]);
    else events.push([m, kinds[Math.floor(random() * kinds.length)]]);
  }
  const spec = { failureThreshold: 2, reminderIntervalMs: 45 * MINUTE };
  const end: Event = [7 * 24 * 60, "advance"];
  const fine = run(spec, [...events.flatMap((e): Event[] => [e, [e[0], "advance"]]), end]);
  const coarse = run(spec, [...events, end]);
  const again = run(spec, [...events.flatMap((e): Event[] => [e, [e[0], "advance"]]), end]);
  assert.ok(
    fine.heard.some((h) => h.startsWith("reminder")) && fine.heard.some((h) => h.includes("mute ended")),
    JSON.stringify(fine.heard),
  );
  assert.equal(again, fine, "the same events twice");
  assert.equal(coarse, fine, "catch-ups before each event give what an advance after each gives");
});

test("a check without alerting fields carries none through pings and flips (each undefined, no alerting state)", () => {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p"), T0);
  const made = shard.createCheck("p", { timeoutMs: DAY }, [], T0);
  if (!made.ok) throw new Error("create failed");
  const uuid = made.value.check.uuid;
  shard.ping(pingOf({ uuid }, T0 + MINUTE, { signal: "fail" }));
  shard.ping(pingOf({ uuid }, T0 + 2 * MINUTE));
  shard.advance(T0 + 3 * DAY);
  const changes = shard.takeChanges();
  assert.is(changes.flips.length, 3);
  for (const key of ["failureThreshold", "reminderIntervalMs", "mutedUntilAt", "alert"] as const) {
    assert.ok(
      changes.checks.every((c) => c[key] === undefined),
      key,
    );
  }
});

test.run();
