import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { openStore } from "../../persistence/store.ts";
import { tempDir } from "../helpers.ts";

/** Returns the message of the Error that opening `path` rejects with (fails the test if it opens). */
async function openError(path: string, readOnly = false): Promise<string> {
  try {
    const store = await openStore(path, { durability: "commit", readOnly });
    await store.close();
  } catch (error) {
    assert.instance(error, Error);
    assert.ok((error as Error).cause, "keeps the cause");
    return (error as Error).message;
  }
  assert.unreachable(`opened ${path}`);
  return "";
}

test("a path that is a regular file gives an Error naming it", async () => {
  const dir = tempDir();
  const file = join(dir.path, "store");
  writeFileSync(file, "not a folder");
  assert.match(await openError(file), `cannot open the store at ${file}`);
  assert.match(await openError(join(file, "below")), "cannot open the store at");
  dir.remove();
});

test("a corrupt data file gives an Error, not a crash", async () => {
  const dir = tempDir();
  mkdirSync(join(dir.path, "store"));
  writeFileSync(join(dir.path, "store", "data.mdb"), Buffer.alloc(64 * 1024, 7));
  assert.match(await openError(join(dir.path, "store")), /not an LMDB data file/);
  dir.remove();
});

test("a folder that can't be written gives an Error", async () => {
  const dir = tempDir();
  let path = join(dir.path, "locked", "store");
  if (process.getuid?.() === 0)
    path = "/proc/hcd-store"; // root ignores file modes; /proc refuses new folders to anyone
  else {
    mkdirSync(join(dir.path, "locked"), { mode: 0o500 });
  }
  assert.match(await openError(path), `cannot open the store at ${path}`);
  dir.remove();
});

test("read-only on a folder without a store gives an Error", async () => {
  const dir = tempDir();
  assert.match(await openError(dir.path, true), /no store there/);
  dir.remove();
});

test.run();
