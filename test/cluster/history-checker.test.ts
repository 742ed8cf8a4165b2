// The cluster checker's assertions can fail: a history that holds gives no violation, and each kind of
// broken history (a lost acknowledged ping, a duplicated rid, n_pings off, nodes disagreeing, flips out of
// order or not alternating, a false down, a starved check that never went down or went down off time) is
// reported, naming the check or project.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { CheckHistory, History } from "./history-checker.ts";
import { violationsOf } from "./history-checker.ts";

const T = Date.parse("2026-01-01T00:00:00Z");
const S = 1_000;

/** A history that holds: two checks pinged on time, one starved that went down at its due time, two nodes agreeing. */
function good(): History {
  return {
    checks: [
      { uuid: "c1", sent: ["r1", "r2", "r3"], acked: ["r1", "r2"], log: ["r1", "r2", "r3"], nPings: 3, flips: [{ at: T, up: true }] },
      { uuid: "c2", sent: ["r4", "r5"], acked: ["r4"], log: ["r4"], nPings: 1, flips: [{ at: T + S, up: true }] },
      {
        uuid: "starved",
        sent: ["r6"],
        acked: ["r6"],
        log: ["r6"],
        nPings: 1,
        flips: [{ at: T + 60 * S, up: false }],
        starved: { dueFrom: T + 60 * S - 20, dueTo: T + 60 * S + 30 },
      },
    ],
    dumps: [{ project: "p1", byNode: { a: '{\n "x": 1\n}', b: '{\n "x": 1\n}' } }],
    dueToleranceMs: 1_000,
  };
}

/** The good history with check `uuid` changed by `change`. */
function withCheck(uuid: string, change: (check: CheckHistory) => Partial<CheckHistory>): History {
  const history = good();
  return { ...history, checks: history.checks.map((c) => (c.uuid === uuid ? { ...c, ...change(c) } : c)) };
}

const kinds = (history: History) => violationsOf(history).map((v) => `${v.kind} ${v.subject}`);

test("a history that holds has no violation", () => {
  assert.equal(violationsOf(good()), []);
});

test("an acknowledged ping missing from its log is lost; an unacknowledged one may be missing", () => {
  assert.equal(kinds(withCheck("c1", () => ({ log: ["r1", "r3"], nPings: 2 }))), ["lost check c1"]);
  assert.equal(kinds(withCheck("c2", () => ({ log: [], nPings: 0 }))), ["lost check c2"]);
  assert.match(violationsOf(withCheck("c1", () => ({ log: ["r1", "r3"], nPings: 2 })))[0].detail, /r2/);
});

test("a rid in the log twice is a duplicate, acknowledged or not", () => {
  assert.equal(kinds(withCheck("c1", () => ({ log: ["r1", "r2", "r1"], nPings: 3 }))), ["duplicate check c1"]);
  assert.equal(kinds(withCheck("c2", () => ({ log: ["r4", "r5", "r5"], nPings: 3 }))), ["duplicate check c2"]);
});

test("a rid in the log that was never sent to the check is reported", () => {
  assert.equal(kinds(withCheck("c2", () => ({ log: ["r4", "r1"], nPings: 2 }))), ["unknown-rid check c2"]);
});

test("n_pings other than the log's count is reported", () => {
  assert.equal(kinds(withCheck("c1", () => ({ nPings: 4 }))), ["count check c1"]);
  assert.equal(kinds(withCheck("c1", () => ({ nPings: 2 }))), ["count check c1"]);
});

test("nodes answering different dumps of a project disagree", () => {
  const history = good();
  const differing = { ...history, dumps: [{ project: "p1", byNode: { a: '{\n "x": 1\n}', b: '{\n "x": 1\n}', c: '{\n "x": 2\n}' } }] };
  const violations = violationsOf(differing);
  assert.equal(
    violations.map((v) => `${v.kind} ${v.subject}`),
    ["disagree project p1"],
  );
  assert.match(violations[0].detail, /node c differs from node a: line 2/);
});

test("flips out of time order are reported", () => {
  const flips = [
    { at: T + 5 * S, up: true },
    { at: T + 2 * S, up: false },
    { at: T + 9 * S, up: true },
  ];
  assert.ok(kinds(withCheck("c1", () => ({ flips }))).includes("flip-order check c1"));
});

test("two flips in a row to the same state are reported", () => {
  const flips = [
    { at: T, up: true },
    { at: T + S, up: true },
  ];
  assert.equal(kinds(withCheck("c2", () => ({ flips }))), ["flip-not-alternating check c2"]);
});

test("a check pinged on time that went down is a false down", () => {
  const flips = [
    { at: T, up: true },
    { at: T + 30 * S, up: false },
    { at: T + 31 * S, up: true },
  ];
  assert.equal(kinds(withCheck("c1", () => ({ flips }))), ["false-down check c1"]);
});

test("a starved check must go down once, at its due time within the tolerance", () => {
  assert.equal(kinds(withCheck("starved", () => ({ flips: [] }))), ["missed-down check starved"]);
  assert.equal(kinds(withCheck("starved", () => ({ flips: [{ at: T + 62 * S, up: false }] }))), ["down-off-time check starved"]);
  assert.equal(kinds(withCheck("starved", () => ({ flips: [{ at: T + 58 * S, up: false }] }))), ["down-off-time check starved"]);
  // the API's whole seconds: a second either side of the window is on time
  assert.equal(kinds(withCheck("starved", () => ({ flips: [{ at: T + 59 * S, up: false }] }))), []);
  assert.equal(kinds(withCheck("starved", () => ({ flips: [{ at: T + 61 * S, up: false }] }))), []);
  const twice = [
    { at: T + 60 * S, up: false },
    { at: T + 70 * S, up: true },
    { at: T + 80 * S, up: false },
  ];
  assert.equal(kinds(withCheck("starved", () => ({ flips: twice }))), ["false-down check starved"]);
});

test("every violation of a history is reported, not only the first", () => {
  const history = withCheck("c1", () => ({ log: ["r1", "r1"], nPings: 5, flips: [{ at: T, up: false }] }));
  assert.equal(kinds(history).sort(), ["count check c1", "duplicate check c1", "false-down check c1", "lost check c1"]);
});

test.run();
