// What Shard.takeChanges hands the store: each check's last state once, and a flag only when every
// change since the last take was of one kind (pings and deadlines, deadlines alone, notices alone).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import type { Changes } from "../../engine/changes.ts";
import { HOUR, MINUTE } from "../../engine/model.ts";
import { pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";
import { channel } from "../helpers.ts";

const T0 = Date.UTC(2026, 5, 1);

/** Two checks "a" and "b" (timeout 1 h, grace 1 min), notifying one channel; nothing left to take. */
function setUp(reminderIntervalMs?: number): { shard: Shard; a: string; b: string } {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p"), T0);
  shard.addChannel(channel({ id: "ch", projectId: "p", name: "ops" }), T0);
  const made = (name: string) => {
    const result = shard.createCheck(
      "p",
      { name, timeoutMs: HOUR, graceMs: MINUTE, channels: { refs: ["ops"] }, reminderIntervalMs },
      [],
      T0,
    );
    if (!result.ok) throw new Error(JSON.stringify(result.failure));
    return result.value.check.uuid;
  };
  const a = made("a"),
    b = made("b");
  shard.takeChanges();
  return { shard, a, b };
}
const flags = (changes: Changes) => [changes.statusOnly, changes.stateOnly, changes.alertOnly];

test("nothing since the last take: nothing to store and no flag", () => {
  const { shard } = setUp();
  const changes = shard.takeChanges();
  assert.equal([changes.checks, changes.pings, changes.flips, changes.outbox], [[], [], [], []]);
  assert.equal(flags(changes), [undefined, undefined, undefined]);
});

test("many pings of a check: its last state once, in the order the checks were first changed", () => {
  const { shard, a, b } = setUp();
  for (const [uuid, minute] of [
    [a, 1],
    [b, 2],
    [a, 3],
    [a, 4],
  ] as const)
    shard.ping(pingOf({ uuid }, T0 + minute * MINUTE));
  const changes = shard.takeChanges();
  assert.equal(
    changes.checks.map((c) => [c.name, c.nPings, c.lastPingAt]),
    [
      ["a", 3, T0 + 4 * MINUTE],
      ["b", 1, T0 + 2 * MINUTE],
    ],
  );
  assert.is(changes.pings.length, 4);
  assert.equal(flags(changes), [undefined, true, undefined]);
  shard.ping(pingOf({ uuid: a }, T0 + 5 * MINUTE));
  shard.ping(pingOf({ uuid: a }, T0 + 6 * MINUTE));
  assert.equal(
    shard.takeChanges().checks.map((c) => c.nPings),
    [5],
    "two pings of one check: one state",
  );
});

test("a settings change among pings: no flag (the whole record is stored)", () => {
  const { shard, a, b } = setUp();
  shard.ping(pingOf({ uuid: a }, T0 + MINUTE));
  shard.updateCheck("p", b, { name: "b renamed" }, T0 + 2 * MINUTE);
  shard.ping(pingOf({ uuid: a }, T0 + 3 * MINUTE));
  const changes = shard.takeChanges();
  assert.equal(
    changes.checks.map((c) => c.name),
    ["a", "b renamed"],
  );
  assert.equal(flags(changes), [undefined, undefined, undefined]);
});

test("a deadline's flip and a reminder in one take: state fields only, neither of the narrower flags", () => {
  const { shard, a, b } = setUp(HOUR);
  shard.ping(pingOf({ uuid: a }, T0, { signal: "fail" })); // a down at T0: its first reminder at T0 + 1 h
  shard.ping(pingOf({ uuid: b }, T0 + 30 * MINUTE)); // b goes down at T0 + 1 h 31 min
  shard.takeChanges();
  shard.advance(T0 + 2 * HOUR - MINUTE); // before a's second reminder
  const changes = shard.takeChanges();
  assert.equal(
    changes.flips.map((f) => [f.to, f.at]),
    [["down", T0 + HOUR + 31 * MINUTE]],
  );
  assert.equal(
    changes.outbox.map((e) => [e.reminder ?? e.flip.to, e.flip.at]),
    [
      [1, T0 + HOUR],
      ["down", T0 + HOUR + 31 * MINUTE],
    ],
  );
  assert.equal(flags(changes), [undefined, true, undefined]);
});

test("a deadline's flip that starts an outage's reminders, alone in a take: not a status-only change", () => {
  const { shard, a, b } = setUp(HOUR);
  shard.ping(pingOf({ uuid: a }, T0));
  shard.pauseCheck("p", b, T0);
  shard.takeChanges();
  shard.advance(T0 + HOUR + 2 * MINUTE); // a down at T0 + 1 h 1 min; its first reminder an hour later
  const changes = shard.takeChanges();
  assert.equal(
    changes.flips.map((f) => [f.to, f.at]),
    [["down", T0 + HOUR + MINUTE]],
  );
  assert.equal(
    changes.checks.map((c) => [c.name, c.alert?.dueAt]),
    [["a", T0 + 2 * HOUR + MINUTE]],
  );
  assert.equal(flags(changes), [undefined, true, undefined]);
});

test("pendingNotifications counts the notifications not yet taken", () => {
  const { shard, a, b } = setUp();
  assert.is(shard.pendingNotifications(), 0);
  shard.ping(pingOf({ uuid: a }, T0, { signal: "fail" }));
  shard.ping(pingOf({ uuid: b }, T0, { signal: "fail" }));
  assert.is(shard.pendingNotifications(), 2);
  shard.takeChanges();
  assert.is(shard.pendingNotifications(), 0);
});

test.run();
