// The Shard's commands on projects and checks: what each refuses (and that a refusal changes nothing),
// a status page that may show only the project's own checks, unique creation, the check limit.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import type { Outcome } from "../../engine/outcome.ts";
import type { MaintenanceWindow } from "../../engine/model.ts";
import { HOUR, MINUTE } from "../../engine/model.ts";
import { nthId, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";
import { channel } from "../helpers.ts";

const T0 = Date.UTC(2026, 5, 1);
const WINDOW: MaintenanceWindow = { id: "w1", name: "nightly", schedule: "0 2 * * *", tz: "UTC", durationMs: HOUR, createdAt: T0 };

/** Projects "p" (check limit 2, one email channel "ch", check nthId(1) "db") and "q" (check nthId(3)). */
function setUp(): Shard {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p", { checkLimit: 2 }), T0);
  shard.createProject(scenarioProject("q"), T0);
  shard.addChannel(channel({ id: "ch", projectId: "p", name: "ops" }), T0);
  for (const [project, name] of [
    ["p", "db"],
    ["q", "other"],
  ]) {
    const made = shard.createCheck(project, { name, timeoutMs: HOUR, graceMs: MINUTE }, [], T0);
    if (!made.ok) throw new Error(JSON.stringify(made.failure));
  }
  shard.takeChanges();
  return shard;
}
const failure = (outcome: Outcome<unknown>) => (outcome.ok ? "ok" : outcome.failure);
/** Asserts that nothing was changed since the last take. */
function nothingChanged(shard: Shard, what: string): void {
  const changes = shard.takeChanges();
  assert.equal(
    [changes.projects, changes.channels, changes.checks, changes.deletedChecks, changes.deletedChannels],
    [[], [], [], [], []],
    what,
  );
}

test("every command on a project this shard does not have: not_found project, nothing changed", () => {
  const shard = setUp();
  const notFound = { code: "not_found", what: "project" };
  const at = T0 + MINUTE;
  const answers = {
    addChannel: shard.addChannel(channel({ id: "x", projectId: "nope" }), at),
    removeChannel: shard.removeChannel("nope", "ch", at),
    updateChannel: shard.updateChannel("nope", "ch", { name: "n", value: { kind: "email", address: "a@b.c" } }, at),
    createCheck: shard.createCheck("nope", { name: "n" }, [], at),
    muteProject: shard.muteProject("nope", at + HOUR, at),
    changeProject: shard.changeProject("nope", { kind: "rename", name: "n" }, at),
    addMaintenance: shard.addMaintenance("nope", WINDOW, at),
    removeMaintenance: shard.removeMaintenance("nope", "w1", at),
  };
  for (const [command, answer] of Object.entries(answers)) assert.equal(failure(answer), notFound, command);
  nothingChanged(shard, "after the refusals");
});

test("a check of another project is forbidden to read and to change; an unknown one is not_found", () => {
  const shard = setUp();
  const other = nthId(3);
  assert.equal(failure(shard.getCheck("p", other)), { code: "forbidden" });
  assert.equal(failure(shard.getCheck("p", nthId(99))), { code: "not_found", what: "check" });
  assert.equal(failure(shard.updateCheck("p", other, { name: "taken" }, T0 + MINUTE)), { code: "forbidden" });
  assert.equal(failure(shard.apply({ kind: "deleteCheck", projectId: "p", uuid: other, at: T0 + MINUTE })), { code: "forbidden" });
  nothingChanged(shard, "after the refusals");
  const mine = shard.getCheck("q", other);
  assert.is(mine.ok && mine.value.name, "other");
});

test("pause, resume, acknowledge and delete: an unknown check is not_found, another project's is forbidden; nothing changed", () => {
  const shard = setUp();
  const at = T0 + MINUTE;
  for (const [uuid, expected] of [
    [nthId(99), { code: "not_found", what: "check" }],
    [nthId(3), { code: "forbidden" }],
  ] as const) {
    const answers = {
      pause: shard.pauseCheck("p", uuid, at),
      resume: shard.resumeCheck("p", uuid, at),
      acknowledge: shard.acknowledgeCheck("p", uuid, "ops", at),
      delete: shard.deleteCheck("p", uuid, at),
    };
    for (const [command, answer] of Object.entries(answers)) assert.equal(failure(answer), expected, `${command} ${uuid}`);
  }
  nothingChanged(shard, "after the refusals");
});

test("an update or creation naming an unknown channel, or a dependency on another project's check, is refused whole", () => {
  const shard = setUp();
  const db = nthId(1);
  assert.is(failure(shard.updateCheck("p", db, { name: "renamed", channels: { refs: ["nope"] } }, T0 + MINUTE)) === "ok", false);
  assert.is(failure(shard.updateCheck("p", db, { name: "renamed", dependsOn: [nthId(3)] }, T0 + MINUTE)) === "ok", false);
  assert.is(failure(shard.createCheck("p", { name: "new", channels: { refs: ["nope"] } }, [], T0 + MINUTE)) === "ok", false);
  nothingChanged(shard, "after the refusals");
  const check = shard.getCheck("p", db);
  assert.is(check.ok && check.value.name, "db");
  const updated = shard.updateCheck("p", db, { channels: { refs: ["ops"] } }, T0 + MINUTE);
  assert.equal(updated.ok && updated.value.channels, ["ch"]);
});

test("the channel's kind cannot change; its name and value can", () => {
  const shard = setUp();
  const slack = shard.updateChannel("p", "ch", { name: "ops", value: { kind: "slack", url: "https://hooks.example/x" } }, T0 + MINUTE);
  assert.equal(failure(slack), { code: "invalid", field: "kind", reason: "cannot change (the integration is email)" });
  assert.equal(failure(shard.updateChannel("p", "nope", { name: "n", value: { kind: "email", address: "a@b.c" } }, T0 + MINUTE)), {
    code: "not_found",
    what: "channel",
  });
  nothingChanged(shard, "after the refusals");
});

test("unique creation updates the first match instead; the API stops at the check limit exactly", () => {
  const shard = setUp();
  const again = shard.createCheck("p", { name: "db", desc: "the database", channels: { refs: ["ops"] } }, ["name"], T0 + MINUTE);
  assert.equal(again.ok && [again.value.created, again.value.check.uuid, again.value.check.desc, again.value.check.channels], [
    false,
    nthId(1),
    "the database",
    ["ch"],
  ]);
  const second = shard.createCheck("p", { name: "web" }, ["name"], T0 + MINUTE);
  assert.equal(second.ok && [second.value.created, second.value.check.name], [true, "web"]);
  assert.equal(failure(shard.createCheck("p", { name: "third" }, [], T0 + MINUTE)), { code: "check_limit" });
  assert.is(shard.checkUuids("p").length, 2);
});

test("unique creation that would make the matched check depend on itself is refused; nothing changes", () => {
  const shard = setUp();
  const db = nthId(1);
  const refused = shard.createCheck("p", { name: "db", dependsOn: [db] }, ["name"], T0 + MINUTE);
  assert.is(refused.ok ? "ok" : refused.failure.code, "invalid");
  nothingChanged(shard, "after the refusal");
  const check = shard.getCheck("p", db);
  assert.is(check.ok && check.value.dependsOn, undefined);
});

test("routes() names every check with its project and badge key", () => {
  const shard = setUp();
  const checks = [nthId(1), nthId(3)].map((uuid) => {
    const found = shard.getCheck(uuid === nthId(1) ? "p" : "q", uuid);
    if (!found.ok) throw new Error("no check");
    return found.value;
  });
  assert.equal([...shard.routes()].sort(), checks.map((c) => [c.uuid, c.projectId, c.badgeKey]).sort());
  assert.is(new Set(checks.map((c) => c.badgeKey)).size, 2, "two distinct badge keys");
});

test("a status page may show only the project's own checks; a rename through apply is stored", () => {
  const shard = setUp();
  const page = (checks: string[]) => ({ kind: "addStatusPage" as const, page: { slug: "status", title: "Status", checks, createdAt: T0 } });
  assert.is(failure(shard.changeProject("p", page([nthId(3)]), T0 + MINUTE)) === "ok", false, "another project's check");
  assert.is(failure(shard.changeProject("p", page([nthId(99)]), T0 + MINUTE)) === "ok", false, "an unknown check");
  nothingChanged(shard, "after the refusals");
  assert.equal(failure(shard.changeProject("p", page([nthId(1)]), T0 + MINUTE)), "ok");
  const renamed = shard.apply({ kind: "changeProject", projectId: "p", change: { kind: "rename", name: "Production" }, at: T0 + MINUTE });
  assert.is(renamed.ok && renamed.value.name, "Production");
  assert.equal(
    shard.takeChanges().projects.map((p) => p.name),
    ["p", "Production"],
  );
  assert.is(shard.projects().find((p) => p.id === "p")?.name, "Production");
});

test("maintenance windows: an unknown one is not_found; removing the last leaves none; a mute through apply is stored", () => {
  const shard = setUp();
  assert.ok(shard.addMaintenance("p", WINDOW, T0).ok);
  assert.equal(failure(shard.removeMaintenance("p", "w3", T0 + MINUTE)), { code: "not_found", what: "maintenance window" });
  assert.ok(shard.addMaintenance("p", { ...WINDOW, id: "w2" }, T0).ok);
  const one = shard.removeMaintenance("p", "w2", T0 + MINUTE);
  assert.equal(one.ok && one.value.maintenance?.map((w) => w.id), ["w1"]);
  const removed = shard.removeMaintenance("p", "w1", T0 + MINUTE);
  assert.is(removed.ok ? removed.value.maintenance : "refused", undefined);
  const muted = shard.apply({ kind: "muteProject", projectId: "p", untilAt: T0 + HOUR, at: T0 + MINUTE });
  assert.is(muted.ok && muted.value.mutedUntilAt, T0 + HOUR);
});

test.run();
