import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { openStore } from "../../persistence/store.ts";
import { tempDir } from "../helpers.ts";

// compiled next to this file in dist/: workers load plain JavaScript
const workerFile = fileURLToPath(new URL("./fixtures/writer.worker.js", import.meta.url));

function runWriter(data: { dir: string; projectId: string; commits: number; kind: "webhook" | "ntfy" }): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerFile, { workerData: data });
    worker.once("message", () => resolve());
    worker.once("error", reject);
    worker.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`writer exited with ${code}`))));
  });
}

test("two worker threads commit to one env at once, and a third opener reads both", async () => {
  const dir = tempDir();
  const reader = await openStore(dir.path, { durability: "commit" }); // open in this thread too, while the workers write
  try {
    const commits = 300;
    await Promise.all([
      runWriter({ dir: dir.path, projectId: "pa", commits, kind: "webhook" }),
      runWriter({ dir: dir.path, projectId: "pb", commits, kind: "ntfy" }),
    ]);
    assert.equal(
      reader.loadProjects().map((p) => p.id),
      ["pa", "pb"],
    );
    for (const [projectId, kind] of [
      ["pa", "webhook"],
      ["pb", "ntfy"],
    ]) {
      const checks = reader.loadChecks(projectId);
      assert.is(checks.length, commits);
      const channels = reader.loadChannels(projectId);
      assert.is(channels.length, commits);
      assert.ok(channels.every((c) => c.kind === kind && c.value.kind === kind));
      for (const c of checks)
        assert.equal(
          reader.pingPage(c.uuid, 5).map((r) => r.n),
          [1],
        );
    }
    assert.equal(reader.pingBody("pb-check-7", 1), new Uint8Array([7]));
  } finally {
    await reader.close();
    dir.remove();
  }
});

test.run();
