// hcd's own downtime and time order, on the Shard: a check whose deadline fell while hcd was not running
// is judged only once its grace has passed since hcd came back, and a command stamped before the last one
// applied never records anything before it (CONTRACT "hcd's own downtime and clock").
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import { MINUTE, SECOND } from "../../engine/model.ts";
import { statusAt } from "../../engine/status.ts";
import { pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";
import { render } from "../../notify/render.ts";
import type { EmailMessage } from "../../notify/delivery.ts";

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);
// the check: timeout 60 s, grace 60 s, its job pings every 30 s; hcd stopped 1 s after a ping, back 150 s later
const LAST_PING_AT = T0;
const DOWNTIME = { fromAt: T0 + SECOND, toAt: T0 + 151 * SECOND };

/** A shard with one project, an email channel and `names` checks of timeout and grace 60 s, each pinged at LAST_PING_AT. */
function shardWithChecks(names: readonly string[]): { shard: Shard; uuids: string[] } {
  const shard = new Shard({ newId: sequentialIds(), now: T0 - MINUTE });
  shard.createProject(scenarioProject("p"), T0 - MINUTE);
  shard.addChannel(
    { id: "ch", projectId: "p", name: "ops", kind: "email", value: { kind: "email", address: "ops@example.com" }, createdAt: T0 - MINUTE },
    T0 - MINUTE,
  );
  const uuids = names.map((name) => {
    const made = shard.createCheck("p", { name, timeoutMs: MINUTE, graceMs: MINUTE, channels: { all: true } }, [], T0 - MINUTE);
    if (!made.ok) throw new Error("no check");
    return made.value.check.uuid;
  });
  for (const uuid of uuids) shard.apply({ kind: "ping", ping: pingOf({ uuid }, LAST_PING_AT) });
  shard.takeChanges();
  return { shard, uuids };
}

function checkOf(shard: Shard, uuid: string) {
  const found = shard.getCheck("p", uuid);
  if (!found.ok) throw new Error("no check");
  return found.value;
}

test("a deadline that fell in hcd's downtime waits for the grace since hcd came back; a ping then keeps the check up", () => {
  const {
    shard,
    uuids: [pinged, silent],
  } = shardWithChecks(["pinged", "silent"]);
  const held = shard.apply({ kind: "holdForDowntime", downtime: DOWNTIME, at: DOWNTIME.toAt });
  assert.is(held, 2);
  shard.apply({ kind: "advance", at: DOWNTIME.toAt });
  assert.equal(shard.takeChanges().flips, [], "nothing goes down on the restart");
  assert.is(statusAt(checkOf(shard, pinged), DOWNTIME.toAt + 30 * SECOND), "grace");
  shard.apply({ kind: "ping", ping: pingOf({ uuid: pinged }, DOWNTIME.toAt + 25 * SECOND) });
  shard.apply({ kind: "advance", at: DOWNTIME.toAt + MINUTE - 1 });
  assert.equal(
    shard.takeChanges().flips.filter((f) => f.to === "down"),
    [],
    "not before the grace since the restart",
  );
  shard.apply({ kind: "advance", at: DOWNTIME.toAt + MINUTE });
  const changes = shard.takeChanges();
  assert.equal(
    changes.flips.map((f) => [f.checkUuid, f.to, f.at]),
    [[silent, "down", DOWNTIME.toAt + MINUTE]],
  );
  assert.is(checkOf(shard, pinged).status, "up");
  // the pinged check's deadlines count from its ping again: 60 s + 60 s after it, not held any more
  assert.is(checkOf(shard, pinged).alert, undefined, "the ping ended the hold");
  shard.apply({ kind: "advance", at: DOWNTIME.toAt + 25 * SECOND + 2 * MINUTE });
  const later = shard.takeChanges();
  assert.equal(
    later.flips.map((f) => [f.checkUuid, f.at]),
    [[pinged, DOWNTIME.toAt + 25 * SECOND + 2 * MINUTE]],
  );
  assert.is(later.outbox[0].downtime, undefined, "a later outage of the pinged check is its own");
  // the silent check's down notification names the downtime; the pinged one's later one does not
  const [entry] = changes.outbox;
  assert.equal(entry.downtime, DOWNTIME);
  assert.is("runStartedAt" in entry, false, "no run start, not even null");
  const mail = render(entry, { siteRoot: "http://hcd.example", siteName: "hcd" }) as EmailMessage;
  assert.match(mail.text, "hcd was not running from 2026-06-01T12:00:01+00:00 to 2026-06-01T12:02:31+00:00 (2 minutes, 30 seconds)");
});

test("a downtime holds only the checks whose deadline fell inside it", () => {
  const {
    shard,
    uuids: [early, inside, late, down],
  } = shardWithChecks(["early", "inside", "late", "down"]);
  shard.apply({ kind: "ping", ping: pingOf({ uuid: late }, T0 + 100 * SECOND) }); // due at T0 + 220 s: after the downtime
  shard.apply({ kind: "ping", ping: pingOf({ uuid: down }, T0 + 100 * SECOND, { signal: "fail" }) });
  shard.takeChanges();
  // early: due at T0 + 120 s, before a downtime from T0 + 120 s; inside and late: judged as their own
  const downtime = { fromAt: T0 + 120 * SECOND, toAt: T0 + 200 * SECOND };
  void early;
  assert.is(shard.apply({ kind: "holdForDowntime", downtime, at: downtime.toAt }), 0, "none due in (120 s, 200 s]");
  const later = { fromAt: T0 + 119 * SECOND, toAt: T0 + 200 * SECOND };
  assert.is(shard.apply({ kind: "holdForDowntime", downtime: later, at: later.toAt }), 2, "early and inside, not late nor down");
  assert.is(checkOf(shard, inside).alert?.downtime?.fromAt, later.fromAt);
  assert.is(checkOf(shard, late).alert, undefined);
  assert.is(checkOf(shard, down).alert?.downtime, undefined);
});

test("a command stamped before the last one applied is applied at that instant: no ping or flip runs backwards", () => {
  const {
    shard,
    uuids: [uuid],
  } = shardWithChecks(["late ping"]);
  const dueAt = LAST_PING_AT + 2 * MINUTE;
  shard.apply({ kind: "advance", at: dueAt + 10 });
  shard.apply({ kind: "ping", ping: pingOf({ uuid }, dueAt - 5) }); // acknowledged before the deadline, applied after it
  const { flips, pings } = shard.takeChanges();
  assert.equal(
    flips.map((f) => [f.to, f.at]),
    [
      ["down", dueAt],
      ["up", dueAt + 10],
    ],
  );
  assert.is(pings[0].record.at, dueAt + 10);
  assert.is(checkOf(shard, uuid).lastPingAt, dueAt + 10);
});

test("a settings change that moves a deadline into the past makes the check due at the change, not before pings logged since", () => {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p"), T0);
  const made = shard.createCheck("p", { methods: "POST" }, [], T0); // default grace: an hour
  if (!made.ok) throw new Error("no check");
  const uuid = made.value.check.uuid;
  shard.apply({ kind: "ping", ping: pingOf({ uuid }, T0, { signal: "start", method: "POST" }) });
  shard.apply({ kind: "ping", ping: pingOf({ uuid }, T0 + MINUTE + 1, { method: "GET" }) }); // ignored (GET), but logged
  shard.apply({ kind: "updateCheck", projectId: "p", uuid, spec: { graceMs: MINUTE }, at: T0 + MINUTE + 2 }); // the run's grace ended at T0 + 60 s
  shard.apply({ kind: "advance", at: T0 + 2 * MINUTE });
  const { flips, pings } = shard.takeChanges();
  assert.equal(
    pings.map((p) => [p.record.kind, p.record.at]),
    [
      ["start", T0],
      ["ign", T0 + MINUTE + 1],
    ],
  );
  assert.equal(
    flips.map((f) => [f.from, f.to, f.at]),
    [["new", "down", T0 + MINUTE + 2]],
  );
});

test("a shard that loads checks does not apply a command before their last events (a clock behind after a restart)", () => {
  const {
    shard,
    uuids: [uuid],
  } = shardWithChecks(["restored"]);
  const restored = new Shard({ newId: sequentialIds(), now: T0 });
  restored.load(scenarioProject("p"), [], [checkOf(shard, uuid)]);
  restored.apply({ kind: "ping", ping: pingOf({ uuid }, LAST_PING_AT - MINUTE) });
  assert.equal(
    restored.takeChanges().pings.map((p) => p.record.at),
    [LAST_PING_AT],
  );
});

test("a loaded check whose last event is a start (which leaves last_ping alone) bounds a later command as well", () => {
  const {
    shard,
    uuids: [uuid],
  } = shardWithChecks(["started"]);
  shard.apply({ kind: "ping", ping: pingOf({ uuid }, LAST_PING_AT + 10 * SECOND, { signal: "start" }) });
  const stored = checkOf(shard, uuid);
  assert.is(stored.lastPingAt, LAST_PING_AT, "a start leaves last_ping as it was");
  const restored = new Shard({ newId: sequentialIds(), now: T0 });
  restored.load(scenarioProject("p"), [], [stored]);
  restored.apply({ kind: "ping", ping: pingOf({ uuid }, LAST_PING_AT + 5 * SECOND) });
  assert.equal(
    restored.takeChanges().pings.map((p) => p.record.at),
    [LAST_PING_AT + 10 * SECOND],
  );
});

test("a loaded check with no open run and no outage bounds a later command by its last ping only", () => {
  const {
    shard,
    uuids: [uuid],
  } = shardWithChecks(["idle"]);
  const stored = checkOf(shard, uuid);
  assert.is(stored.lastStartAt, null);
  const restored = new Shard({ newId: sequentialIds(), now: T0 });
  restored.load(scenarioProject("p"), [], [stored]);
  restored.apply({ kind: "ping", ping: pingOf({ uuid }, LAST_PING_AT + 5 * SECOND) });
  assert.equal(
    restored.takeChanges().pings.map((p) => p.record.at),
    [LAST_PING_AT + 5 * SECOND],
  );
  assert.is(checkOf(restored, uuid).lastPingAt, LAST_PING_AT + 5 * SECOND);
});

test.run();
