import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { openStore } from "../../persistence/store.ts";
import { tempDir } from "../helpers.ts";

/** Returns the message of the Error that opening `path` throws (fails the test if it opens). */
function openError(path: string, readOnly = false): string {
  try {
    const store = openStore(path, { durability: "commit", readOnly });
    void store.close();
  } catch (error) {
    assert.instance(error, Error);
    assert.ok((error as Error).cause, "keeps the cause");
    return (error as Error).message;
  }
  assert.unreachable(`opened ${path}`);
  return "";
}

test("a path that is a regular file gives an Error naming it", () => {
  const dir = tempDir();
  const file = join(dir.path, "store");
  writeFileSync(file, "not a folder");
  assert.match(openError(file), `cannot open the store at ${file}`);
  assert.match(openError(join(file, "below")), "cannot open the store at");
  dir.remove();
});

test("a corrupt data file gives an Error, not a crash", () => {
  const dir = tempDir();
  mkdirSync(join(dir.path, "store"));
  writeFileSync(join(dir.path, "store", "data.mdb"), Buffer.alloc(64 * 1024, 7));
  assert.match(openError(join(dir.path, "store")), /not an LMDB data file/);
  dir.remove();
});

test("a folder that can't be written gives an Error", () => {
  const dir = tempDir();
  let path = join(dir.path, "locked", "store");
  if (process.getuid?.() === 0) path = "/proc/hcd-store"; // root ignores file modes; /proc refuses new folders to anyone
  else {
    mkdirSync(join(dir.path, "locked"), { mode: 0o500 });
  }
  assert.match(openError(path), `cannot open the store at ${path}`);
  dir.remove();
});

test("read-only on a folder without a store gives an Error", () => {
  const dir = tempDir();
  assert.match(openError(dir.path, true), /no store there/);
  dir.remove();
});

test.run();
