// Outbox entries of both shapes in one store: one written before entries carried just what their
// notification shows of the check (the whole check), and one with its NoticeCheck. Both come back as
// they were written, after a checkpoint and after the store is opened again.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Changes, OutboxEntry } from "../../engine/changes.ts";
import { isWholeCheck, noticeCheckOf } from "../../engine/changes.ts";
import { openStore } from "../../persistence/store.ts";
import { channel, check, flip, ping, tempDir } from "../helpers.ts";

const none: Changes = { projects: [], channels: [], checks: [], deletedChecks: [], pings: [], flips: [], outbox: [] };

function entry(id: string, shape: "whole" | "notice"): OutboxEntry {
  const owner = check({
    name: "nightly",
    tags: "db",
    status: "down",
    nPings: 4,
    lastPingAt: 900,
    alert: { failures: 1, downSinceAt: 900, dueAt: 3_600_900, held: false, reminders: 0 },
  });
  return {
    id,
    projectId: owner.projectId,
    check: shape === "whole" ? owner : noticeCheckOf(owner),
    flip: flip({ checkUuid: owner.uuid, at: 1000, to: "down" }),
    channel: channel(),
    lastPing: ping(),
    lastPingBody: null,
    projectName: "p",
    downSinceAt: null,
    attempts: 0,
    nextAttemptAt: 1000,
    lastError: null,
  };
}

test("an entry with the whole check (older stores) and one with its NoticeCheck both read back as written", async () => {
  const dir = tempDir();
  const old = entry("000000000001000-a", "whole"),
    lean = entry("000000000001000-b", "notice");
  try {
    const store = await openStore(dir.path, { durability: "commit" });
    await store.commit({ ...none, outbox: [old, lean] });
    await store.checkpoint();
    assert.equal(store.outboxAll(), [old, lean]);
    await store.close();
    const reopened = await openStore(dir.path, { durability: "commit" });
    const read = reopened.outboxAll();
    await reopened.close();
    assert.equal(read, [old, lean]);
    assert.equal(
      read.map((e) => isWholeCheck(e.check)),
      [true, false],
    );
  } finally {
    dir.remove();
  }
});

test.run();
