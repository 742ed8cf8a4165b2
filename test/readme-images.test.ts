// Every picture the README shows is in the repository (a path the .gitignore hides would be missing from
// a fresh clone, so the check runs against git's own list of files when git is there).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");
const readme = readFileSync(join(ROOT, "README.md"), "utf8");
const images = [...readme.matchAll(/(?:src="|\]\()((?:docs|contrib)\/[^")]+\.(?:png|jpg|svg))/g)].map((m) => m[1]);

function tracked(): Set<string> | null {
  try {
    return new Set(execFileSync("git", ["ls-files"], { cwd: ROOT, encoding: "utf8" }).split("\n"));
  } catch {
    return null; // not a git checkout: the files on disk are all there is
  }
}

test("the README's pictures exist and are tracked", () => {
  assert.ok(images.length >= 10, `found ${images.length} pictures`);
  const files = tracked();
  const missing = images.filter((path) => !existsSync(join(ROOT, path)) || (files !== null && !files.has(path)));
  assert.equal(missing, []);
});

test.run();
