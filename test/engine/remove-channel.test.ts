// Removing a channel in the Shard: checks stop listing it, later flips notify only the others, the
// change is handed over for the store, and the same commands replayed give the same state.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import type { ShardCommand } from "../../engine/commands.ts";
import { HOUR, MINUTE } from "../../engine/model.ts";
import { scenarioProject, sequentialIds } from "../../bench/scenarios.ts";
import { channel } from "../helpers.ts";

const T0 = Date.UTC(2026, 5, 1);
const kept = channel({ id: "ch-kept", projectId: "p", name: "kept" });
const gone = channel({ id: "ch-gone", projectId: "p", name: "gone" });

/** A project with two channels and two checks: "both" notifies both, "only" just the one removed later. */
function setUp(): { shard: Shard; both: string; only: string } {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.apply({ kind: "createProject", project: scenarioProject("p"), at: T0 });
  shard.apply({ kind: "addChannel", channel: kept, at: T0 });
  shard.apply({ kind: "addChannel", channel: gone, at: T0 });
  const made = (name: string, refs: string[]) => {
    const result = shard.apply({
      kind: "createCheck",
      projectId: "p",
      spec: { name, timeoutMs: HOUR, graceMs: MINUTE, channels: { refs } },
      unique: [],
      at: T0,
    });
    if (!result.ok) throw new Error(JSON.stringify(result.failure));
    return result.value.check.uuid;
  };
  const both = made("both", ["kept", "gone"]);
  const only = made("only", ["gone"]);
  shard.takeChanges();
  return { shard, both, only };
}

test("a removed channel leaves the project and every check's list, and the change names it for the store", () => {
  const { shard, both, only } = setUp();
  const removed = shard.apply({ kind: "removeChannel", projectId: "p", channelId: "ch-gone", at: T0 + MINUTE });
  assert.ok(removed.ok);
  assert.is(removed.ok && removed.value.name, "gone");
  assert.equal(
    shard.channels("p").map((c) => c.id),
    ["ch-kept"],
  );
  const channelsOf = (uuid: string) => {
    const got = shard.getCheck("p", uuid);
    return got.ok ? got.value.channels : null;
  };
  assert.equal(channelsOf(both), ["ch-kept"]);
  assert.equal(channelsOf(only), []);
  const changes = shard.takeChanges();
  assert.equal(changes.deletedChannels, [{ projectId: "p", id: "ch-gone" }]);
  assert.equal(changes.checks.map((c) => [c.name, c.channels]).sort(), [
    ["both", ["ch-kept"]],
    ["only", []],
  ]);
  assert.is(changes.statusOnly, undefined, "not a deadline-only change");
});

test("flips after the removal notify only the channels left", () => {
  const { shard } = setUp();
  shard.apply({ kind: "removeChannel", projectId: "p", channelId: "ch-gone", at: T0 + MINUTE });
  shard.takeChanges();
  shard.apply({ kind: "advance", at: T0 + 2 * HOUR }); // both checks miss their deadline (new → down needs a ping first)
  const pinged = shard.takeChanges();
  assert.is(pinged.outbox.length, 0, "new checks never went up: nothing to notify yet");
  for (const uuid of shard.checkUuids("p"))
    shard.apply({
      kind: "ping",
      ping: {
        target: { uuid },
        signal: "success",
        exitStatus: null,
        method: "GET",
        scheme: "http",
        remoteAddr: "",
        ua: "",
        rid: null,
        body: null,
        at: T0 + 2 * HOUR,
      },
    });
  shard.takeChanges();
  shard.apply({ kind: "advance", at: T0 + 4 * HOUR });
  const flipped = shard.takeChanges();
  assert.is(flipped.flips.filter((f) => f.to === "down").length, 2);
  assert.equal(
    flipped.outbox.map((e) => e.channel.id),
    ["ch-kept"],
    "only the check that still has a channel notifies, and only it",
  );
});

test("an unknown channel or project is not_found and changes nothing", () => {
  const { shard } = setUp();
  const unknown = shard.apply({ kind: "removeChannel", projectId: "p", channelId: "nope", at: T0 });
  assert.equal(unknown, { ok: false, failure: { code: "not_found", what: "channel" } });
  const foreign = shard.apply({ kind: "removeChannel", projectId: "q", channelId: "ch-gone", at: T0 });
  assert.equal(foreign, { ok: false, failure: { code: "not_found", what: "project" } });
  assert.is(shard.channels("p").length, 2);
  const changes = shard.takeChanges();
  assert.equal([changes.deletedChannels, changes.checks], [[], []]);
  shard.apply({ kind: "removeChannel", projectId: "p", channelId: "ch-gone", at: T0 });
  const again = shard.apply({ kind: "removeChannel", projectId: "p", channelId: "ch-gone", at: T0 });
  assert.is(again.ok, false, "removed once, then unknown");
});

test("the same commands on a fresh shard give the same state (replays and scenarios agree)", () => {
  const commands: ShardCommand[] = [
    { kind: "createProject", project: scenarioProject("p"), at: T0 },
    { kind: "addChannel", channel: kept, at: T0 },
    { kind: "addChannel", channel: gone, at: T0 },
    { kind: "createCheck", projectId: "p", spec: { name: "a", channels: { all: true } }, unique: [], at: T0 },
    { kind: "removeChannel", projectId: "p", channelId: "ch-gone", at: T0 + MINUTE },
  ];
  const run = () => {
    const shard = new Shard({ newId: sequentialIds(), now: T0 });
    for (const command of commands) shard.apply(command);
    return shard.snapshot();
  };
  const first = run();
  assert.equal(
    first.channels.map((c) => c.id),
    ["ch-kept"],
  );
  assert.equal(
    first.checks.map((c) => c.channels),
    [["ch-kept"]],
  );
  assert.equal(run(), first);
});

test.run();
