// Changes to a project record alone: each kind's result, what each refuses, and a deleted project that
// takes no change at all.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { applyProjectChange } from "../../engine/project-changes.ts";
import type { ProjectChange } from "../../engine/project-changes.ts";
import type { MaintenanceWindow, Project, StatusPage } from "../../engine/model.ts";
import type { Outcome } from "../../engine/outcome.ts";
import { project } from "../helpers.ts";

const OWN = "own-check",
  FOREIGN = "foreign-check";
const owns = (uuid: string) => uuid === OWN;
const page = (slug: string, checks: string[] = [OWN]): StatusPage => ({ slug, title: slug.toUpperCase(), checks, createdAt: 5 });
const WINDOW: MaintenanceWindow = { id: "w1", name: "nightly", schedule: "0 2 * * *", tz: "UTC", durationMs: 3_600_000, createdAt: 5 };

function applied(before: Project, change: ProjectChange): Project {
  const outcome = applyProjectChange(before, change, owns);
  if (!outcome.ok) throw new Error(`refused: ${JSON.stringify(outcome.failure)}`);
  return outcome.value;
}
const failureOf = (outcome: Outcome<Project>) => (outcome.ok ? "ok" : outcome.failure);

test("rename and setKey change that field only; a revoked key is empty", () => {
  const before = project({ id: "p", name: "old" });
  assert.equal(applied(before, { kind: "rename", name: "new" }), { ...before, name: "new" });
  assert.equal(applied(before, { kind: "setKey", key: "apiKeyReadonly", value: "ro-2" }), { ...before, apiKeyReadonly: "ro-2" });
  assert.equal(applied(before, { kind: "setKey", key: "apiKey", value: "" }), { ...before, apiKey: "" });
});

test("status pages: added after the others; a taken slug and another project's check are refused", () => {
  const before = project({ id: "p" });
  const one = applied(before, { kind: "addStatusPage", page: page("a") });
  const two = applied(one, { kind: "addStatusPage", page: page("b", []) });
  assert.equal(
    two.statusPages?.map((p) => p.slug),
    ["a", "b"],
  );
  assert.equal(failureOf(applyProjectChange(two, { kind: "addStatusPage", page: page("a", []) }, owns)), {
    code: "invalid",
    field: "slug",
    reason: "is already taken",
  });
  assert.equal(failureOf(applyProjectChange(two, { kind: "addStatusPage", page: page("c", [OWN, FOREIGN]) }, owns)), {
    code: "invalid",
    field: "checks",
    reason: `has a check that is not in this project: ${FOREIGN}`,
  });
});

test("removing a status page keeps the others; removing the last leaves none; an unknown slug is not_found", () => {
  const two = project({ id: "p", statusPages: [page("a"), page("b")] });
  assert.equal(applied(two, { kind: "removeStatusPage", slug: "a" }).statusPages, [page("b")]);
  const last = applied(project({ id: "p", statusPages: [page("a")] }), { kind: "removeStatusPage", slug: "a" });
  assert.ok(!("statusPages" in last) || last.statusPages === undefined, "no empty list left");
  assert.equal(failureOf(applyProjectChange(two, { kind: "removeStatusPage", slug: "z" }, owns)), {
    code: "not_found",
    what: "status page",
  });
  assert.equal(failureOf(applyProjectChange(project({ id: "p" }), { kind: "removeStatusPage", slug: "a" }, owns)), {
    code: "not_found",
    what: "status page",
  });
});

test("delete empties every key, drops pages and windows, keeps the rest, and a deleted project takes no change", () => {
  const before = project({ id: "p", name: "prod", statusPages: [page("a")], maintenance: [WINDOW] });
  const deleted = applied(before, { kind: "delete", at: 99 });
  const { statusPages: _pages, maintenance: _windows, ...kept } = before;
  assert.equal(deleted, { ...kept, apiKey: "", apiKeyReadonly: "", pingKey: "", deletedAt: 99 });
  assert.equal(
    Object.keys(deleted).filter((k) => k === "statusPages" || k === "maintenance"),
    [],
  );
  for (const change of [
    { kind: "rename", name: "x" },
    { kind: "delete", at: 100 },
  ] as const) {
    assert.equal(failureOf(applyProjectChange(deleted, change, owns)), { code: "not_found", what: "project" }, change.kind);
  }
});

test.run();
