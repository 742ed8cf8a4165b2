// The Shard on its own: deadlines through the wheel, catch-up before commands, changes it hands over.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import type { PingCommand } from "../../engine/commands.ts";
import { HOUR, MINUTE } from "../../engine/model.ts";
import { pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";

const T0 = Date.UTC(2026, 5, 1);

function shardWith(checks: number, timeoutMs: number): { shard: Shard; uuids: string[] } {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p"), T0);
  const uuids: string[] = [];
  for (let i = 0; i < checks; i++) {
    const made = shard.createCheck("p", { timeoutMs, graceMs: MINUTE }, [], T0);
    if (made.ok) uuids.push(made.value.check.uuid);
  }
  shard.takeChanges();
  return { shard, uuids };
}

const ping = (uuid: string, at: number, extra: Partial<PingCommand> = {}) => pingOf({ uuid }, at, extra);

test("one advance applies every due deadline at its own time, and a second advance finds nothing", () => {
  const { shard, uuids } = shardWith(10_000, HOUR);
  uuids.forEach((uuid, i) => shard.ping(ping(uuid, T0 + i))); // deadlines spread over 10 s
  shard.takeChanges();
  shard.advance(T0 + 2 * HOUR);
  const flips = shard.takeChanges().flips;
  assert.is(flips.length, 10_000);
  assert.ok(flips.every((f, i) => f.to === "down" && f.reason === "timeout" && f.at === T0 + i + HOUR + MINUTE));
  shard.advance(T0 + 3 * HOUR);
  assert.is(shard.takeChanges().flips.length, 0);
});

test("changes of deadlines alone say so (the journal then stores each check's status only); any other change clears it", () => {
  const { shard, uuids } = shardWith(3, HOUR);
  uuids.forEach((uuid) => shard.ping(ping(uuid, T0)));
  assert.is(shard.takeChanges().statusOnly, undefined, "pings");
  shard.advance(T0 + 2 * HOUR);
  const flipped = shard.takeChanges();
  assert.is(flipped.statusOnly, true);
  assert.equal(
    flipped.checks.map((c) => [c.status, c.nFlips]),
    [
      ["down", 2],
      ["down", 2],
      ["down", 2],
    ],
  );
  shard.ping(ping(uuids[0], T0 + 3 * HOUR));
  shard.advance(T0 + 6 * HOUR); // uuids[0] goes down again, in the same changes as its ping
  const mixed = shard.takeChanges();
  assert.is(mixed.flips.length, 2);
  assert.is(mixed.statusOnly, undefined);
});

test("an advance short of the deadline changes nothing; the deadline itself is inclusive", () => {
  const { shard, uuids } = shardWith(1, HOUR);
  shard.ping(ping(uuids[0], T0));
  shard.takeChanges();
  shard.advance(T0 + HOUR + MINUTE - 1);
  assert.equal(shard.takeChanges().flips, []);
  shard.advance(T0 + HOUR + MINUTE);
  assert.equal(
    shard.takeChanges().flips.map((f) => f.at),
    [T0 + HOUR + MINUTE],
  );
});

test("a ping after an unnoticed deadline first records the down flip at the deadline, then the up flip", () => {
  const { shard, uuids } = shardWith(1, HOUR);
  shard.ping(ping(uuids[0], T0));
  shard.takeChanges();
  shard.ping(ping(uuids[0], T0 + 5 * HOUR)); // no advance in between
  assert.equal(
    shard.takeChanges().flips.map((f) => [f.at, f.from, f.to]),
    [
      [T0 + HOUR + MINUTE, "up", "down"],
      [T0 + 5 * HOUR, "down", "up"],
    ],
  );
});

test("a batch of pings to one check hands over that check's last state once", () => {
  const { shard, uuids } = shardWith(1, HOUR);
  for (let i = 0; i < 50; i++) shard.ping(ping(uuids[0], T0 + i));
  const changes = shard.takeChanges();
  assert.is(changes.pings.length, 50);
  assert.equal(
    changes.checks.map((c) => c.nPings),
    [50],
  );
});

test("a run that outlived its grace goes down at start + grace even when the check was new", () => {
  const { shard, uuids } = shardWith(1, HOUR);
  shard.ping(ping(uuids[0], T0, { signal: "start" }));
  shard.takeChanges();
  shard.advance(T0 + HOUR);
  assert.equal(
    shard.takeChanges().flips.map((f) => [f.at, f.from, f.to]),
    [[T0 + MINUTE, "new", "down"]],
  );
});

test("loading checks keeps every field as stored (shared strings are an in-memory detail)", () => {
  const { shard, uuids } = shardWith(3, HOUR);
  shard.ping(ping(uuids[0], T0));
  shard.updateCheck("p", uuids[1], { schedule: "0 * * * *", tz: "Europe/Riga", tags: "db prod", channels: undefined }, T0);
  const before = shard.snapshot();
  const reloaded = new Shard({ newId: sequentialIds(), now: T0 });
  reloaded.load(
    before.projects[0],
    before.channels,
    before.checks.map((c) => structuredClone(c)),
  );
  assert.equal(reloaded.snapshot(), before);
  const [a, b] = reloaded.snapshot().checks;
  assert.ok(a.channels === b.channels, "empty channel lists are one shared array");
});

test.run();
