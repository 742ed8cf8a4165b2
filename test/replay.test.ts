// A scenario replayed twice from an empty shard gives identical state and flips.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { ShardCommand } from "../engine/commands.ts";
import type { Flip, Millis } from "../engine/model.ts";
import { Shard } from "../engine/shard.ts";
import type { ShardSnapshot } from "../engine/shard.ts";
import type { Scenario } from "../bench/scenarios.ts";
import { mixedWeek, sequentialIds } from "../bench/scenarios.ts";

/** The instant a command carries (a ping carries its own). */
const atOf = (step: ShardCommand): Millis => (step.kind === "ping" ? step.ping.at : step.at);

function replay(scenario: Scenario): { snapshot: ShardSnapshot; flips: Flip[]; failures: number } {
  const shard = new Shard({ newId: sequentialIds(), now: atOf(scenario.steps[0]) });
  const flips: Flip[] = [];
  let failures = 0;
  for (const step of scenario.steps) {
    const result = shard.apply(step);
    if (typeof result === "object" && result !== null && "ok" in result && !result.ok) failures++;
    flips.push(...shard.takeChanges().flips);
  }
  return { snapshot: shard.snapshot(), flips, failures };
}

test("a mixed week replayed twice from empty gives identical snapshots and flips", () => {
  const first = replay(mixedWeek());
  const second = replay(mixedWeek());
  assert.is(first.failures, 0);
  assert.ok(first.flips.length > 50, `a meaningful scenario flips often (got ${first.flips.length})`);
  assert.ok(first.flips.some((f) => f.reason === "timeout") && first.flips.some((f) => f.reason === "fail"));
  assert.ok(first.flips.some((f) => f.to === "paused") && first.flips.some((f) => f.from === "paused"));
  assert.equal(second.snapshot, first.snapshot);
  assert.equal(second.flips, first.flips);
});

test("flips of each check are in time order and alternate their statuses", () => {
  const { flips } = replay(mixedWeek(11));
  const byCheck = new Map<string, Flip[]>();
  for (const flip of flips) byCheck.set(flip.checkUuid, [...(byCheck.get(flip.checkUuid) ?? []), flip]);
  for (const list of byCheck.values()) {
    list.forEach((flip, i) => {
      assert.is(flip.n, i + 1);
      if (i > 0) {
        assert.ok(flip.at >= list[i - 1].at, "flips in time order");
        assert.is(flip.from, list[i - 1].to);
      }
    });
  }
});

test("a different seed gives a different history", () => {
  assert.not.equal(replay(mixedWeek(1)).flips, replay(mixedWeek(2)).flips);
});

test.run();
