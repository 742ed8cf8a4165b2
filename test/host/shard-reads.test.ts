// The reads both shard hosts answer the same way (host/shard-reads.ts): changed checks since a version,
// a check by unique_key among the project's own only, and which pings still have bodies.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { randomUUID } from "node:crypto";
import { Shard } from "../../engine/shard.ts";
import { checkByRef, checksSince, pingKept } from "../../host/shard-reads.ts";
import { ProjectVersions } from "../../host/project-versions.ts";
import { uniqueKeyOf } from "../../host/unique-key.ts";
import { check } from "../helpers.ts";
import { scenarioProject } from "../../bench/scenarios.ts";

const T0 = Date.UTC(2026, 5, 1);

function shardWithTwoProjects(): { shard: Shard; mine: string; theirs: string } {
  const shard = new Shard({ newId: randomUUID, now: T0 }); // unique_key hashes the first 16 hex digits: sequential ids would share it
  for (const id of ["p", "q"]) shard.createProject(scenarioProject(id), T0);
  const made = (projectId: string) => {
    const created = shard.createCheck(projectId, { name: projectId }, [], T0);
    if (!created.ok) throw new Error("no check");
    return created.value.check.uuid;
  };
  return { shard, mine: made("p"), theirs: made("q") };
}

test("a ping's body exists while the ping is among the newest ping_log_limit", () => {
  const seven = check({ nPings: 7 });
  assert.equal(
    [0, 1, 2, 3, 4, 5, 7, 8].map((n) => pingKept(seven, n, 5)),
    [false, false, false, true, true, true, true, true],
  );
});

test("unique_key finds a check of the caller's project only", () => {
  const { shard, mine, theirs } = shardWithTwoProjects();
  const found = checkByRef(shard, "p", { uniqueKey: uniqueKeyOf(mine) });
  assert.is(found.ok && found.value.uuid, mine);
  assert.equal(checkByRef(shard, "p", { uniqueKey: uniqueKeyOf(theirs) }), { ok: false, failure: { code: "not_found", what: "check" } });
});

test("checks since a version: the changed ones and the removed ones; the whole list for a version not known", () => {
  const { shard, mine } = shardWithTwoProjects();
  const versions = new ProjectVersions();
  const first = checksSince(shard, versions, "p", null);
  assert.equal([first.whole, first.checks.map((c) => c.uuid)], [true, [mine]]);
  const created = shard.createCheck("p", { name: "second" }, [], T0);
  if (!created.ok) throw new Error("no check");
  versions.noteCheck("p", created.value.check.uuid);
  shard.deleteCheck("p", mine, T0);
  versions.noteCheck("p", mine);
  const next = checksSince(shard, versions, "p", first.version);
  assert.equal([next.whole, next.checks.map((c) => c.uuid), next.removed], [false, [created.value.check.uuid], [mine]]);
});

test.run();
