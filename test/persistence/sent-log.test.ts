// The store's record of delivered notifications (persistence/sent-log.ts): a delivery leaves the outbox
// and is kept for its check, newest first, at most KEPT_PER_CHECK a check; a deleted check's go with it;
// the records survive a reopen.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Changes, OutboxEntry } from "../../engine/changes.ts";
import { sentNoticeOf } from "../../engine/changes.ts";
import { openStore } from "../../persistence/store.ts";
import { KEPT_PER_CHECK } from "../../persistence/sent-log.ts";
import { channel, check, flip, tempDir } from "../helpers.ts";

const none: Changes = { projects: [], channels: [], checks: [], deletedChecks: [], pings: [], flips: [], outbox: [] };

function entryOf(owner: ReturnType<typeof check>, n: number): OutboxEntry {
  return {
    id: `${String(n).padStart(13, "0")}-${owner.uuid}-${n}-c`,
    projectId: owner.projectId,
    check: owner,
    flip: flip({ checkUuid: owner.uuid, at: n * 1000, n, to: n % 2 === 0 ? "up" : "down" }),
    channel: channel({ name: "hook" }),
    lastPing: null,
    lastPingBody: null,
    projectName: "p",
    downSinceAt: null,
    attempts: 0,
    nextAttemptAt: n * 1000,
    lastError: null,
  };
}

test("a delivery leaves the outbox and is kept for its check, newest first, the newest KEPT_PER_CHECK only; a reopen keeps them", async () => {
  const dir = tempDir();
  const [busy, quiet] = [check(), check()];
  const total = KEPT_PER_CHECK + 5;
  const entries = Array.from({ length: total }, (_, i) => entryOf(busy, i + 1));
  let store = await openStore(dir.path, { durability: "commit" });
  try {
    await store.commit({ ...none, checks: [busy, quiet], outbox: [...entries, entryOf(quiet, 1)] });
    await store.checkpoint();
    for (const entry of entries) await store.outboxDelivered(sentNoticeOf(entry, entry.flip.at + 500));
    assert.equal(
      store.outboxAll().map((e) => e.check.uuid),
      [quiet.uuid],
      "the delivered entries left the outbox",
    );
    const kept = store.sentNotices(busy.uuid);
    assert.is(kept.length, KEPT_PER_CHECK);
    assert.equal(
      kept.map((s) => s.sentAt),
      Array.from({ length: KEPT_PER_CHECK }, (_, i) => (total - i) * 1000 + 500),
      "the newest, newest first",
    );
    assert.equal(kept[0], {
      id: entries[total - 1].id,
      checkUuid: busy.uuid,
      sentAt: total * 1000 + 500,
      flipAt: total * 1000,
      to: "down",
      channel: { id: entries[total - 1].channel.id, name: "hook", kind: entries[total - 1].channel.kind },
    });
    assert.equal(store.sentNotices(quiet.uuid), [], "another check's: none");
    await store.close();
    store = await openStore(dir.path, { durability: "commit" });
    assert.is(store.sentNotices(busy.uuid).length, KEPT_PER_CHECK, "kept across a reopen");
    await store.commit({ ...none, deletedChecks: [{ projectId: busy.projectId, uuid: busy.uuid }] });
    await store.checkpoint();
    assert.equal(store.sentNotices(busy.uuid), [], "a deleted check's go with it");
  } finally {
    await store.close();
    dir.remove();
  }
});

test.run();
