// No file of the project keeps a merge's conflict markers: the docs are read by people and the sources
// by the compiler, and a marker in a Markdown file compiles and tests fine.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");
const SKIP = new Set(["node_modules", "dist", ".git", "reports", "screenshots", "docs"]);
const TEXT = /\.(ts|mjs|js|md|json|css|html|conf|service|yml|yaml)$/;
const MARKER = /^(<{7}|>{7}) |^={7}$/m;

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return files(path);
    return TEXT.test(name) ? [path] : [];
  });
}

test("no conflict markers in the project's text files", () => {
  const found = files(".").filter((file) => MARKER.test(readFileSync(join(ROOT, file), "utf8")));
  assert.equal(found, []);
});

test("the check itself finds a marker", () => {
  assert.ok(MARKER.test("a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> branch\n"));
});

test.run();
