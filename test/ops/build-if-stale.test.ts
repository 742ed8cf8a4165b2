// `npm start` compiles only when dist/ is behind the sources (bin/build-if-stale.mjs): a tree whose every
// source has a newer compiled file is current; a newer source, a missing compiled file, a missing
// dist/app/main.js or a newer tsconfig.json is stale; node_modules, dist and hidden folders are not sources.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "../helpers.ts";

const SCRIPT = new URL("../../../bin/build-if-stale.mjs", import.meta.url).href;
const { staleSource } = (await import(SCRIPT)) as { staleSource(root: string): string | null };

/** Writes `path` under `root` with its modification time `at` seconds after an arbitrary epoch. */
function file(root: string, path: string, at: number): void {
  const full = join(root, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, "");
  const when = new Date(Date.UTC(2026, 0, 1) + at * 1000);
  utimesSync(full, when, when);
}

/** A tree built at t=100 from sources written at t=10. */
function builtTree(): { root: string; remove(): void } {
  const dir = tempDir();
  const root = dir.path;
  file(root, "tsconfig.json", 10);
  for (const source of ["app/main.ts", "lib/a.ts", "test/ops/x.test.ts", "host/types.d.ts"]) file(root, source, 10);
  for (const built of ["dist/app/main.js", "dist/lib/a.js", "dist/test/ops/x.test.js"]) file(root, built, 100);
  return { root, remove: dir.remove };
}

test("current: every source older than its compiled file (a .d.ts has none and needs none)", () => {
  const tree = builtTree();
  try {
    assert.is(staleSource(tree.root), null);
  } finally {
    tree.remove();
  }
});

test("stale: a source edited after the build, in any folder", () => {
  const tree = builtTree();
  try {
    file(tree.root, "test/ops/x.test.ts", 101);
    assert.is(staleSource(tree.root), join("test", "ops", "x.test.ts"));
  } finally {
    tree.remove();
  }
});

test("stale: a new source with no compiled file, a missing dist/app/main.js, a newer tsconfig.json", () => {
  let tree = builtTree();
  try {
    file(tree.root, "lib/b.ts", 50);
    assert.is(staleSource(tree.root), join("lib", "b.ts"));
  } finally {
    tree.remove();
  }
  tree = builtTree();
  try {
    file(tree.root, "tsconfig.json", 200);
    assert.is(staleSource(tree.root), "tsconfig.json");
  } finally {
    tree.remove();
  }
  const empty = tempDir();
  try {
    file(empty.path, "app/main.ts", 10);
    assert.match(String(staleSource(empty.path)), /main\.js \(missing\)/);
  } finally {
    empty.remove();
  }
});

test("not sources: node_modules, dist and data at the top, hidden folders anywhere", () => {
  const tree = builtTree();
  try {
    for (const path of ["node_modules/p/index.ts", "dist/extra.ts", "data/x.ts", ".git/hooks/h.ts"]) file(tree.root, path, 500);
    assert.is(staleSource(tree.root), null);
  } finally {
    tree.remove();
  }
});

test("this checkout: the script finds its own tree current after a build", () => {
  const root = fileURLToPath(new URL("../../../", import.meta.url));
  assert.is(staleSource(root), null, "the test runs after `npm run build`");
});

test.run();
