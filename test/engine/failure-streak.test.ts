// failure_threshold counts every failure signal since the last success, whatever the threshold was when
// it came (CONTRACT "Alerting fields of a check"): raising it in the middle of a streak counts those before.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import { pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";

const T0 = Date.UTC(2026, 5, 1);

test("a failure under threshold 1 still counts once the threshold is raised to 2", () => {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p"), T0);
  const made = shard.createCheck("p", {}, [], T0);
  if (!made.ok) throw new Error("no check");
  const uuid = made.value.check.uuid;
  shard.apply({ kind: "ping", ping: pingOf({ uuid }, T0 + 1, { exitStatus: 1 }) }); // the first failure: down at once
  shard.apply({ kind: "updateCheck", projectId: "p", uuid, spec: { failureThreshold: 2 }, at: T0 + 2 });
  shard.apply({ kind: "pauseCheck", projectId: "p", uuid, at: T0 + 3 });
  shard.apply({ kind: "ping", ping: pingOf({ uuid }, T0 + 4, { signal: "fail" }) }); // the second in a row: down again
  const flips = shard.takeChanges().flips.map((f) => [f.from, f.to, f.at]);
  assert.equal(flips, [
    ["new", "down", T0 + 1],
    ["down", "paused", T0 + 3],
    ["paused", "down", T0 + 4],
  ]);
});

test("a success between failures starts the count over", () => {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p"), T0);
  const made = shard.createCheck("p", { failureThreshold: 2 }, [], T0);
  if (!made.ok) throw new Error("no check");
  const uuid = made.value.check.uuid;
  for (const [signal, at] of [
    ["fail", 1],
    ["success", 2],
    ["fail", 3],
  ] as const)
    shard.apply({ kind: "ping", ping: pingOf({ uuid }, T0 + at, { signal }) });
  assert.equal(
    shard.takeChanges().flips.map((f) => [f.to, f.at]),
    [["up", T0 + 2]],
  );
});

test.run();
