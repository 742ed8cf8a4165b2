import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";

const fixture = fileURLToPath(new URL("./fixtures/same-thread.js", import.meta.url));

// Found in CI: the in-process pool hung about 1 run in 6 at close. A synchronous LMDB transaction of
// one store waited for the write lock that lmdb's write thread held while it waited for this same
// thread to run the other store's checkpoint. The fixture runs that interleaving 40 times.
test("two stores in one thread never deadlock: one checkpoints while the other opens and closes", async () => {
  const dir = tempDir();
  try {
    const out = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [fixture, dir.path], { timeout: 60_000, killSignal: "SIGKILL" }, (error, stdout, stderr) => {
        if (error)
          reject(new Error(`fixture failed (${error.signal === "SIGKILL" ? "hung, killed after 60 s" : error.message}): ${stderr}`));
        else resolve(stdout);
      });
    });
    assert.is(out.trim(), "done 800"); // 40 rounds of 20 commits, all kept
  } finally {
    dir.remove();
  }
});

test.run();
