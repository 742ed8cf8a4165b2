// A partition replica's standing as its writer (cluster/replica-state.ts), as tables: every event from every
// state, the generation a takeover raises, and a takeover given up while under way.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { FIRST_STANDING, nextStanding, sameGeneration } from "../../cluster/replica-state.ts";
import type { ReplicaEvent, ReplicaState, Standing } from "../../cluster/replica-state.ts";

const at = (state: ReplicaState, generation = 3, abandoned = false): Standing => ({ state, generation, abandoned });
const STATES: readonly ReplicaState[] = ["idle", "owner", "deposed", "stale"];

/** One row: from a standing, an event, the standing after. */
type Row = readonly [from: Standing, event: ReplicaEvent, to: Standing];

function check(rows: readonly Row[]): void {
  for (const [from, event, to] of rows) assert.equal(nextStanding(from, event), to, `${JSON.stringify(from)} + ${JSON.stringify(event)}`);
}

test("a replica starts idle, in generation 0, not given up", () => {
  assert.equal(FIRST_STANDING, { state: "idle", generation: 0, abandoned: false });
});

test("a takeover starts from any state: idle, the next generation, given up no more", () => {
  check(
    STATES.flatMap((state): Row[] => [
      [at(state), { kind: "takeoverStarted" }, at("idle", 4)],
      [at(state, 3, true), { kind: "takeoverStarted" }, at("idle", 4)],
    ]),
  );
});

test("its replay done, the replica writes, unless it was given up meanwhile", () => {
  check([
    [at("idle"), { kind: "replayed" }, at("owner")],
    [at("deposed", 3, true), { kind: "replayed" }, at("deposed", 3, true)],
    // given up, then its flush failed: still given up
    [at("stale", 3, true), { kind: "replayed" }, at("stale", 3, true)],
  ]);
});

test("given up from any state: deposed, and a takeover under way does not make it the owner", () => {
  check(STATES.map((state): Row => [at(state), { kind: "abandoned" }, at("deposed", 3, true)]));
  const underWay = nextStanding(nextStanding(at("owner"), { kind: "takeoverStarted" }), { kind: "abandoned" });
  assert.equal(nextStanding(underWay, { kind: "replayed" }).state, "deposed");
});

test("a failed append of this generation: deposed when refused on the fence, stale otherwise; of an earlier generation, nothing", () => {
  check([
    [at("owner"), { kind: "appendFailed", generation: 3, fenced: true }, at("deposed")],
    [at("owner"), { kind: "appendFailed", generation: 3, fenced: false }, at("stale")],
    [at("idle"), { kind: "appendFailed", generation: 2, fenced: true }, at("idle")],
    [at("owner"), { kind: "appendFailed", generation: 2, fenced: false }, at("owner")],
  ]);
});

test("a failed store (a record's effects, a catch-up) stops the owner only", () => {
  check([
    [at("owner"), { kind: "storeFailed" }, at("stale")],
    [at("idle"), { kind: "storeFailed" }, at("idle")],
    [at("deposed"), { kind: "storeFailed" }, at("deposed")],
    [at("stale"), { kind: "storeFailed" }, at("stale")],
  ]);
});

test("a failed flush stops the replica whatever its state", () => {
  check(STATES.map((state): Row => [at(state), { kind: "flushFailed" }, at("stale")]));
});

test("a batch is applied only in the generation it was appended in", () => {
  assert.ok(sameGeneration(at("owner", 5), 5));
  assert.not.ok(sameGeneration(at("owner", 6), 5));
  assert.not.ok(sameGeneration(at("owner", 4), 5));
});

test.run();
