// The run rules on the Shard alone (CONTRACT "Alerting, third part"): min_duration (a run that ended too
// fast), overlaps (noted always, a failure under alert_on_overlap) and max_runs_per_period (a simple
// check's period from its timeout and grace, a cron check's between two scheduled times). Instants are
// written out by hand, in seconds or minutes after T0.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import type { OutboxEntry } from "../../engine/changes.ts";
import type { CheckSpec, PingRecord, PingSignal } from "../../engine/model.ts";
import { DAY, HOUR, MINUTE, SECOND } from "../../engine/model.ts";
import { countRun, periodEndAt } from "../../engine/runs.ts";
import { pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";

const T0 = Date.UTC(2026, 5, 1); // a Monday, 00:00 UTC
const RID_A = "0a0a0a0a-0000-4000-8000-000000000001";
const RID_B = "0b0b0b0b-0000-4000-8000-000000000002";

type Event = [second: number, signal: PingSignal, rid?: string];

function setUp(spec: CheckSpec) {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p"), T0);
  shard.addChannel({ id: "c", projectId: "p", name: "", kind: "email", value: { kind: "email", address: "a@b.c" }, createdAt: T0 }, T0);
  const made = shard.createCheck("p", { timeoutMs: DAY, graceMs: HOUR, channels: { all: true }, ...spec }, [], T0);
  if (!made.ok) throw new Error("create failed");
  shard.takeChanges();
  return { shard, uuid: made.value.check.uuid };
}

/** Runs pings at the given seconds; returns the flips ("down@12 too_fast"), each ping's note and the outbox entries. */
function run(
  spec: CheckSpec,
  events: readonly Event[],
): { flips: string[]; notes: (string | null)[]; outbox: OutboxEntry[]; pings: PingRecord[] } {
  const { shard, uuid } = setUp(spec);
  const flips: string[] = [],
    notes: (string | null)[] = [],
    outbox: OutboxEntry[] = [],
    pings: PingRecord[] = [];
  for (const [second, signal, rid] of events) {
    assert.ok(shard.ping(pingOf({ uuid }, T0 + second * SECOND, { signal, rid: rid ?? null })).ok);
    const changes = shard.takeChanges();
    flips.push(...changes.flips.map((f) => `${f.to}@${(f.at - T0) / SECOND}${f.reason === "" ? "" : ` ${f.reason}`}`));
    for (const p of changes.pings) {
      notes.push(p.record.note ?? null);
      pings.push(p.record);
    }
    outbox.push(...changes.outbox);
  }
  return { flips, notes, outbox, pings };
}

// ---- min_duration ----

const MIN_60 = { minDurationMs: 60 * SECOND };

test("min_duration: a run that ends in success 3 s after its start goes down, and its notification says so", () => {
  const { flips, notes, outbox } = run(MIN_60, [
    [0, "start"],
    [3, "success"],
  ]);
  assert.equal(flips, ["down@3 too_fast"]);
  assert.equal(notes, [null, "too_fast"]);
  assert.is(outbox.length, 1);
  assert.equal(outbox[0].run, { rule: "too_fast", durationMs: 3 * SECOND, minDurationMs: 60 * SECOND });
});

test("min_duration: a run of exactly min_duration is fine; one millisecond less is too fast", () => {
  const { shard, uuid } = setUp(MIN_60);
  shard.ping(pingOf({ uuid }, T0, { signal: "start" }));
  shard.ping(pingOf({ uuid }, T0 + 60 * SECOND, { signal: "success" }));
  assert.equal(
    shard.takeChanges().flips.map((f) => f.to),
    ["up"],
  );
  shard.ping(pingOf({ uuid }, T0 + 100 * SECOND, { signal: "start" }));
  shard.ping(pingOf({ uuid }, T0 + 160 * SECOND - 1, { signal: "success" }));
  assert.equal(
    shard.takeChanges().flips.map((f) => `${f.to} ${f.reason}`),
    ["down too_fast"],
  );
});

test("min_duration 0 (off) and a success without a start are never too fast", () => {
  assert.equal(
    run({ minDurationMs: 0 }, [
      [0, "start"],
      [1, "success"],
    ]).flips,
    ["up@1"],
  );
  assert.equal(run(MIN_60, [[5, "success"]]).flips, ["up@5"], "no run: nothing to time");
});

test("min_duration: runs are matched by rid; another run's success is not timed against this one's start", () => {
  // A starts at 0, B's success at 10 (an overlap, not A's end), A's success at 70: A took 70 s
  const { flips, notes } = run(MIN_60, [
    [0, "start", RID_A],
    [10, "success", RID_B],
    [70, "success", RID_A],
  ]);
  assert.equal(flips, ["up@10"]);
  assert.equal(notes, [null, "overlap", null]);
});

test("min_duration counts toward failure_threshold like a failure signal; a proper success resets the count", () => {
  const spec = { ...MIN_60, failureThreshold: 2 };
  assert.equal(
    run(spec, [
      [0, "start"],
      [1, "success"],
      [100, "start"],
      [101, "success"],
    ]).flips,
    ["down@101 too_fast"],
  );
  assert.equal(
    run(spec, [
      [0, "start"],
      [1, "success"],
      [100, "start"],
      [200, "success"],
      [300, "start"],
      [301, "success"],
    ]).flips,
    ["up@200"],
    "a success in between starts the count over",
  );
});

test("min_duration: a too fast run records its duration and closes the run", () => {
  const { pings } = run(MIN_60, [
    [0, "start"],
    [3, "success"],
  ]);
  assert.is(pings[1].kind, "success", "logged as the success it was");
});

// ---- overlaps ----

test("a start while a run is open is an overlap: noted, the check stays as it was without alert_on_overlap", () => {
  const { flips, notes } = run({}, [
    [0, "success"],
    [10, "start"],
    [20, "start"],
    [30, "success"],
  ]);
  assert.equal(flips, ["up@0"]);
  assert.equal(notes, [null, null, "overlap", null]);
});

test("alert_on_overlap: the overlapping start makes the check go down (reason overlap) and names the open run's start", () => {
  const { flips, outbox } = run({ alertOnOverlap: true }, [
    [0, "success"],
    [10, "start"],
    [20, "start"],
    [30, "success"],
  ]);
  assert.equal(flips, ["up@0", "down@20 overlap", "up@30"]);
  assert.equal(outbox[0].run, { rule: "overlap", openSinceAt: T0 + 10 * SECOND });
});

test("alert_on_overlap: another run's success while one is open goes down; the same run's success does not", () => {
  assert.equal(
    run({ alertOnOverlap: true }, [
      [0, "start", RID_A],
      [10, "success", RID_B],
    ]).flips,
    ["down@10 overlap"],
  );
  assert.equal(
    run({ alertOnOverlap: true }, [
      [0, "start", RID_A],
      [10, "success", RID_A],
    ]).flips,
    ["up@10"],
  );
  assert.equal(
    run({ alertOnOverlap: true }, [
      [0, "start", RID_A],
      [10, "success"],
    ]).flips,
    ["up@10"],
    "a success without a rid ends the open run",
  );
});

// ---- max_runs_per_period ----

test("max_runs_per_period 1 on a simple check: a second success within timeout less grace is too often", () => {
  // timeout 1 day, grace 1 hour: the period of a success at 0 ends 23 h later
  const spec = { maxRunsPerPeriod: 1 };
  assert.equal(
    run(spec, [
      [0, "success"],
      [60, "success"],
    ]).flips,
    ["up@0", "down@60 too_often"],
  );
  const day = run(spec, [
    [0, "success"],
    [23 * 3600 - 1, "success"],
  ]);
  assert.equal(day.flips, ["up@0", "down@82799 too_often"], "one second before the period's end");
  assert.equal(day.outbox[0].run, { rule: "too_often", runs: 2, maxRuns: 1 });
  assert.equal(
    run(spec, [
      [0, "success"],
      [23 * 3600, "success"],
    ]).flips,
    ["up@0"],
    "a success up to the grace early starts a new period",
  );
});

test("max_runs_per_period: a run with a start that is the period's second is too often too", () => {
  assert.equal(
    run({ maxRunsPerPeriod: 1 }, [
      [0, "success"],
      [10, "start"],
      [20, "success"],
    ]).flips,
    ["up@0", "down@20 too_often"],
  );
});

test("max_runs_per_period 2: the third success in one period is too often; the next period counts from one", () => {
  const spec = { maxRunsPerPeriod: 2 };
  const { flips, notes } = run(spec, [
    [0, "success"],
    [10, "success"],
    [20, "success"],
    [23 * 3600 + 20, "success"],
  ]);
  assert.equal(flips, ["up@0", "down@20 too_often", "up@82820"]);
  assert.equal(notes, [null, null, "too_often", null]);
});

test("max_runs_per_period on a cron check: the period lasts from one scheduled time to the next", () => {
  // "0 * * * *": periods end at each full hour; 00:10 and 00:50 share one, 01:05 starts the next
  const spec: CheckSpec = { schedule: "0 * * * *", tz: "UTC", maxRunsPerPeriod: 1 };
  assert.equal(
    run(spec, [
      [10 * 60, "success"],
      [50 * 60, "success"],
    ]).flips,
    ["up@600", "down@3000 too_often"],
  );
  assert.equal(
    run(spec, [
      [10 * 60, "success"],
      [65 * 60, "success"],
    ]).flips,
    ["up@600"],
  );
});

test("periodEndAt: a simple check's is at least half its timeout away; a cron check's is its next scheduled time", () => {
  const base = setUp({ timeoutMs: HOUR, graceMs: 2 * HOUR }).shard.listChecks("p", { tags: [] })[0];
  assert.is(periodEndAt(base, T0), T0 + 30 * MINUTE, "grace longer than the timeout: half the timeout");
  const cron = setUp({ schedule: "*/15 * * * *" }).shard.listChecks("p", { tags: [] })[0];
  assert.is(periodEndAt(cron, T0 + MINUTE), T0 + 15 * MINUTE);
  assert.equal(countRun(cron, T0 + MINUTE), { endAt: T0 + 15 * MINUTE, runs: 1 });
});

test("a schedule that never fires again has no period: nothing is counted, no run is too often", () => {
  const spec: CheckSpec = { schedule: "2020-01-01 00:00:00", tz: "UTC", maxRunsPerPeriod: 1 };
  const { shard, uuid } = setUp(spec);
  const check = shard.listChecks("p", { tags: [] })[0];
  assert.is(countRun(check, T0), undefined);
  for (const second of [1, 2, 3]) assert.ok(shard.ping(pingOf({ uuid }, T0 + second * SECOND, {})).ok);
  assert.equal(
    shard.takeChanges().flips.map((f) => f.to),
    ["up"],
  );
  assert.is(shard.listChecks("p", { tags: [] })[0].alert, undefined, "no period kept");
});

test("min_duration with runs matched by rid: an overlapping success is not timed, its own run's end is", () => {
  const { flips, notes, outbox } = run({ minDurationMs: 60 * SECOND, alertOnOverlap: true }, [
    [0, "start", RID_A],
    [5, "success", RID_B],
  ]);
  assert.equal([flips, notes], [["down@5 overlap"], [null, "overlap"]]);
  assert.equal(outbox[0].run, { rule: "overlap", openSinceAt: T0 });
});

test("a too fast run that is also the period's second counts as too fast (the note and the reason name one rule)", () => {
  const { flips, notes } = run({ minDurationMs: 60 * SECOND, maxRunsPerPeriod: 1 }, [
    [0, "success"],
    [10, "start"],
    [12, "success"],
  ]);
  assert.equal(
    [flips, notes],
    [
      ["up@0", "down@12 too_fast"],
      [null, null, "too_fast"],
    ],
  );
});

test("a failure signal neither counts as a run nor ends the period", () => {
  const spec = { maxRunsPerPeriod: 1 };
  assert.equal(
    run(spec, [
      [0, "success"],
      [10, "fail"],
      [20, "success"],
    ]).flips,
    ["up@0", "down@10 fail"],
    "the success at 20 is the period's second: too often, the check stays down",
  );
});

test("max_runs_per_period 0 (off) counts nothing, and turning it on starts counting then", () => {
  const { shard, uuid } = setUp({});
  shard.ping(pingOf({ uuid }, T0, {}));
  shard.ping(pingOf({ uuid }, T0 + SECOND, {}));
  assert.is(shard.getCheck("p", uuid).ok && shard.listChecks("p", { tags: [] })[0].alert, undefined, "nothing counted while off");
  shard.updateCheck("p", uuid, { maxRunsPerPeriod: 1 }, T0 + 2 * SECOND);
  shard.ping(pingOf({ uuid }, T0 + 3 * SECOND, {}));
  shard.takeChanges();
  shard.ping(pingOf({ uuid }, T0 + 4 * SECOND, {}));
  assert.equal(
    shard.takeChanges().flips.map((f) => f.reason),
    ["too_often"],
  );
});

test.run();
