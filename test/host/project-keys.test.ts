// ProjectKeys, the main thread's projects and keys: a learned project is found by each of its keys; a
// forgotten one by none of them, while another project's keys still name it; learning a project again
// after forgetting it (as the replicated directory does when a project's keys change) names it by the
// new keys only.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Project } from "../../engine/model.ts";
import { ProjectKeys } from "../../host/project-keys.ts";

const project = (id: string, tag: string): Project => ({
  id,
  name: id,
  apiKey: `rw-${tag}`,
  apiKeyReadonly: `ro-${tag}`,
  pingKey: `ping-${tag}`,
  badgeKey: `badge-${tag}`,
  checkLimit: 20,
  pingLogLimit: 100,
  pingBodyLimit: 10_000,
  createdAt: 1,
});

function names(keys: ProjectKeys, p: Project): (string | null)[] {
  return [
    keys.authenticate(p.apiKey)?.project.id ?? null,
    keys.authenticate(p.apiKeyReadonly)?.project.id ?? null,
    keys.byPingKey(p.pingKey)?.id ?? null,
    keys.byBadgeKey(p.badgeKey)?.id ?? null,
    keys.byId(p.id)?.id ?? null,
  ];
}

test("forget: a forgotten project's keys name nothing; the others' still do", () => {
  const keys = new ProjectKeys();
  const a = project("a", "1"),
    b = project("b", "2");
  keys.learn([a, b]);
  assert.equal(names(keys, a), ["a", "a", "a", "a", "a"]);
  assert.is(keys.forget("a"), true);
  assert.equal(names(keys, a), [null, null, null, null, null]);
  assert.equal(names(keys, b), ["b", "b", "b", "b", "b"]);
  assert.equal(
    keys.list().map((p) => p.id),
    ["b"],
  );
  assert.is(keys.forget("a"), false, "unknown now");
});

test("forget, then learn with new keys: only the new keys name the project", () => {
  const keys = new ProjectKeys();
  const old = project("a", "1"),
    renewed = project("a", "3");
  keys.learn([old]);
  keys.forget("a");
  keys.learn([renewed]);
  assert.equal(names(keys, old), [null, null, null, null, "a"]);
  assert.equal(names(keys, renewed), ["a", "a", "a", "a", "a"]);
});

test.run();
