// Editing a channel in the Shard: its name and value are replaced in place (same id, kind, position),
// checks keep notifying it, the change is handed over for the store, and a value of another kind is refused.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import { HOUR, MINUTE } from "../../engine/model.ts";
import { scenarioProject, sequentialIds } from "../../bench/scenarios.ts";
import { channel } from "../helpers.ts";

const T0 = Date.UTC(2026, 5, 1);
const first = channel({ id: "ch-1", projectId: "p", name: "ops", value: { kind: "email", address: "old@example.com" } });
const second = channel({ id: "ch-2", projectId: "p", name: "other" });

function setUp(): { shard: Shard; uuid: string } {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.apply({ kind: "createProject", project: scenarioProject("p"), at: T0 });
  shard.apply({ kind: "addChannel", channel: first, at: T0 });
  shard.apply({ kind: "addChannel", channel: second, at: T0 });
  const made = shard.apply({
    kind: "createCheck",
    projectId: "p",
    spec: { name: "job", timeoutMs: HOUR, graceMs: MINUTE, channels: { refs: ["ops"] } },
    unique: [],
    at: T0,
  });
  if (!made.ok) throw new Error(JSON.stringify(made.failure));
  shard.takeChanges();
  return { shard, uuid: made.value.check.uuid };
}

test("an edited channel keeps its id and place, gets the new name and value, and the change carries it for the store", () => {
  const { shard } = setUp();
  const updated = shard.apply({
    kind: "updateChannel",
    projectId: "p",
    channelId: "ch-1",
    name: "oncall",
    value: { kind: "email", address: "new@example.com" },
    at: T0 + MINUTE,
  });
  assert.ok(updated.ok);
  assert.equal(
    shard.channels("p").map((c) => [c.id, c.name, c.value]),
    [
      ["ch-1", "oncall", { kind: "email", address: "new@example.com" }],
      ["ch-2", "other", { kind: "email", address: "ops@example.com" }],
    ],
  );
  const changes = shard.takeChanges();
  assert.equal(
    changes.channels.map((c) => [c.id, c.name, c.value]),
    [["ch-1", "oncall", { kind: "email", address: "new@example.com" }]],
  );
});

test("a check notifying the channel notifies it with the new value after the edit, and an entry queued before keeps the old", () => {
  const { shard, uuid } = setUp();
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
      at: T0,
    },
  });
  shard.apply({ kind: "advance", at: T0 + HOUR + MINUTE }); // down: queued with the old address
  shard.apply({
    kind: "updateChannel",
    projectId: "p",
    channelId: "ch-1",
    name: "ops",
    value: { kind: "email", address: "new@example.com" },
    at: T0 + HOUR + 2 * MINUTE,
  });
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
      at: T0 + HOUR + 3 * MINUTE,
    },
  });
  const addresses = shard
    .takeChanges()
    .outbox.map((entry) => (entry.channel.value.kind === "email" ? [entry.flip.to, entry.channel.value.address] : null));
  assert.equal(addresses, [
    ["down", "old@example.com"],
    ["up", "new@example.com"],
  ]);
});

test("an unknown channel or project is not_found, a value of another kind is refused, and nothing changes", () => {
  const { shard } = setUp();
  const value = { kind: "email", address: "x@example.com" } as const;
  const unknown = shard.apply({ kind: "updateChannel", projectId: "p", channelId: "nope", name: "", value, at: T0 });
  assert.equal(!unknown.ok && unknown.failure, { code: "not_found", what: "channel" });
  const foreign = shard.apply({ kind: "updateChannel", projectId: "q", channelId: "ch-1", name: "", value, at: T0 });
  assert.equal(!foreign.ok && foreign.failure, { code: "not_found", what: "project" });
  const otherKind = shard.apply({
    kind: "updateChannel",
    projectId: "p",
    channelId: "ch-1",
    name: "",
    value: { kind: "slack", url: "https://hooks.example.com/x" },
    at: T0,
  });
  assert.is(!otherKind.ok && otherKind.failure.code, "invalid");
  assert.equal(shard.channels("p")[0], first);
  assert.equal(shard.takeChanges().channels, []);
});

test.run();
