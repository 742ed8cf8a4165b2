// A removed channel in the store: its row and its waiting notifications go, at a checkpoint and by the
// journal's replay after a crash alike; a delivery's retry state never brings a dropped entry back.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { openStore } from "../../persistence/store.ts";
import type { Store } from "../../persistence/store.ts";
import { tempDir } from "../helpers.ts";
import { before, removal, waiting } from "./fixtures/remove-channel-state.ts";

const writerFile = fileURLToPath(new URL("./fixtures/remove-channel-writer.js", import.meta.url));

/** What a restart would load of the project, and the outbox. */
function stored(store: Store) {
  return {
    channels: store.loadChannels("p").map((c) => c.id),
    checkChannels: store.loadChecks("p").map((c) => c.channels),
    outbox: store.outboxAll().map((e) => e.channel.id),
  };
}

const GONE = { channels: ["ch-kept"], checkChannels: [["ch-kept"]], outbox: ["ch-kept"] };

test("a checkpoint applies the removal: the channel's row and its outbox entries go, the other's stay", async () => {
  const dir = tempDir();
  try {
    const store = await openStore(dir.path, { durability: "commit" });
    await store.commit(before());
    await store.checkpoint();
    assert.equal(stored(store).outbox.sort(), ["ch-gone", "ch-kept"]);
    await store.commit(removal());
    await store.checkpoint();
    assert.equal(stored(store), GONE);
    // a delivery that read the entry before the removal records its failure afterwards: it stays gone
    const dropped = waiting.find((e) => e.channel.id === "ch-gone");
    if (dropped === undefined) throw new Error("fixture");
    await store.outboxUpdate({ ...dropped, attempts: 1, nextAttemptAt: 10_000, lastError: "refused" });
    assert.not.ok(store.outboxHas(dropped.id));
    assert.equal(stored(store).outbox, ["ch-kept"]);
    await store.close();
    const reopened = await openStore(dir.path, { durability: "commit" });
    assert.equal(stored(reopened), GONE);
    await reopened.close();
  } finally {
    dir.remove();
  }
});

test("killed after the removal was acknowledged (journal only), the restart replays it to the same state", async () => {
  const dir = tempDir();
  try {
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, [writerFile, dir.path], { stdio: ["ignore", "pipe", "inherit"] });
      child.stdout.setEncoding("utf8");
      child.stdout.on("data", (chunk: string) => {
        if (chunk.includes("acknowledged")) child.kill("SIGKILL");
      });
      child.once("error", reject);
      child.once("exit", (code, signal) => (signal === "SIGKILL" ? resolve() : reject(new Error(`writer exited: ${code}`))));
    });
    const store = await openStore(dir.path, { durability: "commit" });
    assert.equal(stored(store), GONE);
    await store.close();
  } finally {
    dir.remove();
  }
});

test.run();
