// Project versions and what changed since one (host/project-versions.ts): a version moves with every
// change of a project's checks; for a watched project the checks changed or deleted after a version are
// known, and where they are not (no version, another epoch, before the watch began) the answer says so.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Changes } from "../../engine/changes.ts";
import { noChanges } from "../../engine/changes.ts";
import type { Check } from "../../engine/model.ts";
import { ProjectVersions } from "../../host/project-versions.ts";

const touched = (...checks: [projectId: string, uuid: string][]): Changes => ({
  ...noChanges(),
  checks: checks.map(([projectId, uuid]) => ({ projectId, uuid }) as Check),
});
const deleted = (projectId: string, uuid: string): Changes => ({ ...noChanges(), deletedChecks: [{ projectId, uuid }] });

test("a watched project: the checks changed and deleted after a version, and none after the current one", () => {
  const versions = new ProjectVersions();
  versions.note(touched(["p", "a"]));
  const first = versions.changedSince("p", null);
  assert.is(first.uuids, null, "no version held: read them all");
  versions.note(touched(["p", "b"], ["p", "c"], ["q", "x"]));
  versions.note(deleted("p", "a"));
  const second = versions.changedSince("p", first.version);
  assert.equal([...(second.uuids ?? [])].sort(), ["a", "b", "c"]);
  assert.is.not(second.version, first.version);
  assert.equal(versions.changedSince("p", second.version).uuids, [], "nothing since the current version");
  versions.note(touched(["p", "c"]));
  assert.equal(versions.changedSince("p", second.version).uuids, ["c"]);
});

test("unknown: a version from before the watch began, of another epoch, from the future, or malformed", () => {
  const versions = new ProjectVersions();
  const old = versions.versionOf("p");
  versions.note(touched(["p", "a"]));
  assert.is(versions.changedSince("p", old).uuids, null, "changes before the first question are not known");
  const watched = versions.changedSince("p", null).version;
  assert.equal(versions.changedSince("p", watched).uuids, []);
  const [epoch] = watched.split(".");
  assert.is(versions.changedSince("p", `${epoch}.999`).uuids, null);
  assert.is(versions.changedSince("p", "other.1").uuids, null);
  assert.is(versions.changedSince("p", `${epoch}.x`).uuids, null);
  versions.reset();
  assert.is(versions.changedSince("p", watched).uuids, null, "after a reset every version is of another epoch");
});

test("at most 64 projects are watched: the one asked about longest ago is forgotten first", () => {
  const versions = new ProjectVersions();
  const held = new Map<string, string>();
  for (let i = 0; i < 65; i++) held.set(`p${i}`, versions.changedSince(`p${i}`, null).version);
  for (let i = 0; i < 65; i++) versions.note(touched([`p${i}`, "a"]));
  assert.equal(versions.changedSince("p1", held.get("p1") ?? "").uuids, ["a"]);
  assert.equal(versions.changedSince("p64", held.get("p64") ?? "").uuids, ["a"]);
  // asked about again, p0 is watched anew (and p2, now asked about longest ago, is forgotten)
  assert.is(versions.changedSince("p0", held.get("p0") ?? "").uuids, null, "p0 was forgotten when p64 was watched");
  assert.is(versions.changedSince("p2", held.get("p2") ?? "").uuids, null);
});

test.run();
