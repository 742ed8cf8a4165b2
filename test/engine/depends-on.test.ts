// depends_on on the Shard alone (CONTRACT "Alerting, second part"): while a dependency is down, a check's
// down notification and reminders wait (its status is still down, held_by names the dependency); when
// the last dependency is up again and the check is still down, one down notification goes out. Cycles
// and other projects' checks are refused. Instants in minutes after T0, notifications written out by hand.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import type { Changes } from "../../engine/changes.ts";
import type { Check, CheckSpec, Millis, PingSignal } from "../../engine/model.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import { pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";

const T0 = Date.UTC(2026, 5, 1);
const H = 60;
const min = (at: Millis) => (at - T0) / MINUTE;

/** A shard with project p (checks db, web, api: timeout 1 day, grace 1 hour, one channel) and project q (check other). */
function setUp(specs: Record<string, CheckSpec> = {}) {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  const uuids: Record<string, string> = {};
  for (const [project, names] of [
    ["p", ["db", "web", "api"]],
    ["q", ["other"]],
  ] as const) {
    shard.createProject(scenarioProject(project), T0);
    shard.addChannel(
      { id: `c-${project}`, projectId: project, name: "", kind: "email", value: { kind: "email", address: "a@b.c" }, createdAt: T0 },
      T0,
    );
    for (const name of names) {
      const made = shard.createCheck(project, { name, timeoutMs: DAY, graceMs: HOUR, channels: { all: true }, ...specs[name] }, [], T0);
      if (!made.ok) throw new Error(`create ${name}: ${JSON.stringify(made.failure)}`);
      uuids[name] = made.value.check.uuid;
    }
  }
  shard.takeChanges();
  const names = new Map(Object.entries(uuids).map(([name, uuid]) => [uuid, name]));
  /** What integrations heard since the last call: "web down@10", "web reminder 1@70", "web down (released)@90", "db up@80". */
  const heard = (changes: Changes = shard.takeChanges()) =>
    changes.outbox.map((entry) => {
      const what =
        entry.reminder !== undefined ? `reminder ${entry.reminder}` : entry.id.endsWith("-m") ? "down (released)" : entry.flip.to;
      return `${names.get(entry.flip.checkUuid)} ${what}@${min(entry.flip.at)}`;
    });
  const ping = (name: string, minute: number, signal: PingSignal) =>
    assert.ok(shard.ping(pingOf({ uuid: uuids[name] }, T0 + minute * MINUTE, { signal })).ok);
  const get = (name: string): Check => {
    const found = shard.getCheck(name === "other" ? "q" : "p", uuids[name]);
    if (!found.ok) throw new Error("no check");
    return found.value;
  };
  const update = (name: string, spec: CheckSpec, minute = 0) =>
    shard.updateCheck(name === "other" ? "q" : "p", uuids[name], spec, T0 + minute * MINUTE);
  return { shard, uuids, heard, ping, get, update };
}

test("a check down while its dependency is down: silent, held_by set; one down notification when the dependency is up again", () => {
  const t = setUp();
  assert.ok(t.update("web", { dependsOn: [t.uuids.db] }).ok);
  t.ping("db", 1, "success");
  t.ping("web", 1, "success");
  t.ping("db", 10, "fail");
  t.ping("web", 20, "fail");
  assert.equal(t.heard(), ["db down@10"], "web's down waits");
  assert.equal([t.get("web").status, t.get("web").alert?.heldBy], ["down", t.uuids.db]);
  t.ping("db", 90, "success");
  assert.equal(t.heard(), ["db up@90", "web down (released)@90"]);
  assert.is(t.get("web").alert?.heldBy, undefined);
  t.ping("web", 100, "success");
  assert.equal(t.heard(), ["web up@100"]);
});

test("reminders wait while held and count from the release", () => {
  const t = setUp({ web: { reminderIntervalMs: HOUR } });
  assert.ok(t.update("web", { dependsOn: [t.uuids.db] }).ok);
  t.ping("db", 10, "fail");
  t.ping("web", 20, "fail");
  t.shard.advance(T0 + 5 * H * MINUTE);
  assert.equal(t.heard(), ["db down@10"], "no reminder while db is down");
  t.ping("db", 5 * H, "success");
  t.shard.advance(T0 + (7 * H + 30) * MINUTE);
  assert.equal(t.heard(), [`db up@${5 * H}`, `web down (released)@${5 * H}`, `web reminder 1@${6 * H}`, `web reminder 2@${7 * H}`]);
});

test("a dependency going down after the check: the check's reminders wait, and it is notified once when the dependency recovers", () => {
  const t = setUp({ web: { reminderIntervalMs: HOUR } });
  assert.ok(t.update("web", { dependsOn: [t.uuids.db] }).ok);
  t.ping("web", 10, "fail");
  t.ping("db", 30, "fail");
  t.shard.advance(T0 + 4 * H * MINUTE);
  assert.equal(t.heard(), ["web down@10", "db down@30"]);
  t.ping("db", 4 * H, "success");
  assert.equal(t.heard(), [`db up@${4 * H}`, `web down (released)@${4 * H}`]);
});

test("the check up again while held: its up is not sent either (its down never was); nothing at the release", () => {
  const t = setUp();
  assert.ok(t.update("web", { dependsOn: [t.uuids.db] }).ok);
  t.ping("web", 1, "success");
  t.ping("db", 10, "fail");
  t.ping("web", 20, "fail");
  t.ping("web", 30, "success");
  t.ping("db", 40, "success");
  t.ping("db", 50, "fail"); // the marker: db's own notifications still go out
  assert.equal(t.heard(), ["db down@10", "db up@40", "db down@50"]);
  assert.equal(t.get("web").alert?.heldBy, t.uuids.db, "held again: db is down");
});

test("two dependencies: held until the last of them is up; held_by names one that is down", () => {
  const t = setUp();
  assert.ok(t.update("web", { dependsOn: [t.uuids.db, t.uuids.api] }).ok);
  t.ping("db", 10, "fail");
  t.ping("api", 11, "fail");
  t.ping("web", 20, "fail");
  t.ping("db", 30, "success");
  assert.equal(t.get("web").alert?.heldBy, t.uuids.api);
  t.ping("api", 40, "success");
  assert.equal(t.heard(), ["db down@10", "api down@11", "db up@30", "api up@40", "web down (released)@40"]);
});

test("a dependency's missed deadline holds the check too; a deadline-made down of the check is held", () => {
  const t = setUp();
  assert.ok(t.update("web", { dependsOn: [t.uuids.db] }).ok);
  t.ping("db", 0, "success");
  t.ping("web", 30, "success");
  t.shard.advance(T0 + 2 * DAY);
  assert.equal(t.heard(), [`db down@${25 * H}`]);
  assert.is(t.get("web").status, "down");
});

test("depends_on set while the dependency is down holds at once; removing it releases a held check", () => {
  const t = setUp();
  t.ping("db", 10, "fail");
  assert.ok(t.update("web", { dependsOn: [t.uuids.db] }, 11).ok);
  assert.is(t.get("web").alert?.heldBy, t.uuids.db);
  t.ping("web", 20, "fail");
  assert.ok(t.update("web", { dependsOn: [] }, 30).ok);
  assert.equal(t.heard(), ["db down@10", "web down (released)@30"]);
  assert.is(t.get("web").dependsOn, undefined);
});

test("pausing the dependency releases the check", () => {
  const t = setUp();
  assert.ok(t.update("web", { dependsOn: [t.uuids.db] }).ok);
  t.ping("db", 10, "fail");
  t.ping("web", 20, "fail");
  assert.ok(t.shard.pauseCheck("p", t.uuids.db, T0 + 30 * MINUTE).ok);
  assert.equal(t.heard(), ["db down@10", "web down (released)@30"]);
});

test("deleting the dependency releases the check", () => {
  const t = setUp();
  assert.ok(t.update("web", { dependsOn: [t.uuids.db] }).ok);
  t.ping("db", 10, "fail");
  t.ping("web", 20, "fail");
  assert.ok(t.shard.deleteCheck("p", t.uuids.db, T0 + 30 * MINUTE).ok);
  assert.equal(t.heard(), ["db down@10", "web down (released)@30"]);
  assert.equal([t.get("web").dependsOn, t.get("web").alert?.heldBy], [undefined, undefined]);
});

test("deleting one of two dependencies keeps the other; the deletion is handed over and answered with no channels", () => {
  const t = setUp();
  assert.ok(t.update("web", { dependsOn: [t.uuids.db, t.uuids.api] }).ok);
  const db = t.get("db");
  t.shard.takeChanges();
  const deleted = t.shard.deleteCheck("p", t.uuids.db, T0 + 30 * MINUTE);
  assert.equal(deleted.ok && deleted.value, { ...db, channels: [] });
  assert.equal(db.channels, ["c-p"], "the check had its channel");
  assert.equal(t.shard.takeChanges().deletedChecks, [{ projectId: "p", uuid: t.uuids.db }]);
  assert.equal(t.get("web").dependsOn, [t.uuids.api]);
});

test("refused: the check itself, a cycle (direct or longer), another project's check, an unknown uuid; nothing changes", () => {
  const t = setUp();
  assert.ok(t.update("web", { dependsOn: [t.uuids.db] }).ok);
  assert.ok(t.update("db", { dependsOn: [t.uuids.api] }).ok);
  const cases: [string, string[], string][] = [
    ["web", [t.uuids.web], "names the check itself"],
    ["db", [t.uuids.web], "would make a cycle"],
    ["api", [t.uuids.web], "would make a cycle"], // api → web → db → api
    ["web", [t.uuids.other], "is not a check of this project"],
    ["web", ["00000000-0000-4000-8000-0000000000ff"], "is not a check of this project"],
  ];
  for (const [name, dependsOn, reason] of cases) {
    const refused = t.update(name, { dependsOn, name: "renamed" });
    assert.ok(!refused.ok && refused.failure.code === "invalid" && refused.failure.field === "depends_on", `${name} → ${dependsOn}`);
    if (!refused.ok && refused.failure.code === "invalid") assert.match(refused.failure.reason, reason);
  }
  assert.equal(
    [t.get("web").dependsOn, t.get("db").dependsOn, t.get("api").dependsOn, t.get("web").name],
    [[t.uuids.db], [t.uuids.api], undefined, "web"],
  );
  const created = t.shard.createCheck("p", { name: "new", dependsOn: [t.uuids.other] }, [], T0);
  assert.ok(!created.ok && created.failure.code === "invalid");
});

test("a check loaded with depends_on (a restart) is held and released by its dependency's flips", () => {
  const t = setUp();
  assert.ok(t.update("web", { dependsOn: [t.uuids.db] }).ok);
  t.ping("db", 10, "fail");
  t.ping("web", 20, "fail");
  t.heard();
  const snapshot = t.shard.snapshot();
  const again = new Shard({ newId: sequentialIds(), now: T0 + 30 * MINUTE });
  for (const project of snapshot.projects) {
    again.load(
      project,
      snapshot.channels.filter((c) => c.projectId === project.id),
      snapshot.checks.filter((c) => c.projectId === project.id),
    );
  }
  again.ping(pingOf({ uuid: t.uuids.db }, T0 + 40 * MINUTE));
  assert.equal(t.heard(again.takeChanges()), ["db up@40", "web down (released)@40"]);
});

test.run();
