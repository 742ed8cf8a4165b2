// Random histories of pings (every signal, exit statuses, run ids, keyword bodies), settings changes,
// pauses, resumes and clock moves, run through a Shard and through the reference model (reference-model.ts):
// status, n_pings, last_ping and the flips agree after every step. A failure shrinks to a minimal history.
// A fixed seed keeps `npm test` repeatable; test/stress/status-model.stress.ts runs many more.
import { test } from "uvu";
import * as assert from "uvu/assert";
import fc from "fast-check";
import { historyArb, runOnShard } from "./shard-against-model.ts";
import { nextCronAt, T0 } from "./reference-model.ts";
import type { Step } from "./reference-model.ts";
import { nextAfter } from "../../engine/schedule.ts";
import { MINUTE, SECOND } from "../../engine/model.ts";
import type { CheckSpec } from "../../engine/model.ts";

const SEED = 20_261_127;

test("the model's own schedule rule agrees with hand-worked instants", () => {
  // 00:00:00.500 UTC: cronsim drops the milliseconds and starts a second later
  assert.is(nextCronAt("*/5 * * * *", "UTC", T0 + 500), T0 + 5 * MINUTE);
  assert.is(nextCronAt("*/5 * * * *", "UTC", T0 - SECOND), T0, "an instant a second before a match finds it");
  assert.is(nextCronAt("0 * * * *", "Asia/Kolkata", T0), T0 + 30 * MINUTE, "minute 0 in +05:30 is minute 30 in UTC");
  assert.is(nextCronAt("30 * * * *", "Asia/Kathmandu", T0), T0 + 45 * MINUTE, "minute 30 in +05:45 is minute 45 in UTC");
  assert.is(nextCronAt("*/15 * * * *", "Asia/Kathmandu", T0), T0 + 15 * MINUTE);
  assert.is(nextAfter("30 * * * *", "Asia/Kathmandu", T0), T0 + 45 * MINUTE, "the engine reads it the same way");
});

test("a Shard agrees with the reference model on every step of 300 random histories", () => {
  fc.assert(
    fc.property(historyArb, ({ specs, steps }) => runOnShard(specs, steps)),
    { seed: SEED, numRuns: 300 },
  );
});

// Histories the model found, shrunk by fast-check, where hcd broke the contract (both fixed since): they
// stay as fixed cases.
const foundBugs: [name: string, history: { specs: CheckSpec[]; steps: Step[] }][] = [
  [
    "a failure counted under failure_threshold 1 still counts when the threshold is raised mid-streak",
    {
      specs: [{}, {}],
      steps: [
        { kind: "ping", check: 1, signal: "success", exitStatus: 1, rid: null, method: "GET", body: "" },
        { kind: "update", check: 1, spec: { failureThreshold: 2 } },
        { kind: "pause", check: 1 },
        { kind: "ping", check: 1, signal: "fail", exitStatus: null, rid: null, method: "GET", body: "" },
      ],
    },
  ],
  [
    "a deadline a settings change made already past is stamped at the change, not before an ignored ping recorded since",
    {
      specs: [{}, {}],
      steps: [
        { kind: "update", check: 0, spec: { methods: "POST" } },
        { kind: "ping", check: 0, signal: "start", exitStatus: null, rid: null, method: "POST", body: "" },
        { kind: "advance", ms: 60_001 },
        { kind: "ping", check: 0, signal: "success", exitStatus: null, rid: null, method: "GET", body: "" }, // ignored: GET
        { kind: "update", check: 0, spec: { graceMs: 60_000 } },
        { kind: "advance", ms: 3_600_000 },
      ],
    },
  ],
];
for (const [name, { specs, steps }] of foundBugs) {
  test(`found and fixed: ${name}`, () => runOnShard(specs, steps));
}

test.run();
