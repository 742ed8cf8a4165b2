// Stored checks and projects with and without the alerting fields: records written before the fields
// existed load as they are (and mean the defaults); the fields and the alerting state survive the
// journal (a replay after a crash, as status patches too) and the tables.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Changes } from "../../engine/changes.ts";
import type { Check } from "../../engine/model.ts";
import { HOUR } from "../../engine/model.ts";
import { Shard } from "../../engine/shard.ts";
import { decodeJournal, encodeJournal } from "../../persistence/journal-codec.ts";
import { openStore } from "../../persistence/store.ts";
import { presentCheck } from "../../host/check-json.ts";
import { pingOf } from "../../bench/scenarios.ts";
import { check, project, tempDir } from "../helpers.ts";

const none: Changes = { projects: [], channels: [], checks: [], deletedChecks: [], pings: [], flips: [], outbox: [] };
const T0 = Date.UTC(2026, 5, 1);

test("a check and project stored without the alerting fields load as they were and present the defaults", async () => {
  const dir = tempDir();
  try {
    const owner = project({ id: "p-old" });
    const old = check({ projectId: owner.id, status: "up", lastPingAt: T0 }); // the record shape written before alerting
    const store = await openStore(dir.path, { durability: "commit" });
    await store.commit({ ...none, projects: [owner], checks: [old] });
    await store.close();
    const reopened = await openStore(dir.path, { durability: "commit" });
    try {
      const [loaded] = reopened.loadChecks(owner.id);
      assert.equal(loaded, old);
      assert.equal(Object.keys(loaded).sort(), Object.keys(old).sort(), "no field added on the way");
      assert.equal(reopened.loadProjects(), [owner]);
      const shown = presentCheck(loaded, { at: T0, siteRoot: "http://x", readonly: false });
      assert.equal([shown.failure_threshold, shown.reminder_interval, shown.muted_until], [1, 0, null]);
      // and it behaves as it did: one failure signal goes down
      const shard = new Shard({ newId: () => "id", now: T0 });
      shard.load(reopened.loadProjects()[0], [], [loaded]);
      shard.ping(pingOf({ uuid: loaded.uuid }, T0 + 1, { signal: "fail" }));
      assert.equal(
        shard.takeChanges().flips.map((f) => f.to),
        ["down"],
      );
    } finally {
      await reopened.close();
    }
  } finally {
    dir.remove();
  }
});

test("the fields and the alerting state survive the tables, and a project's mute too", async () => {
  const dir = tempDir();
  try {
    const owner = project({ id: "p-new", mutedUntilAt: T0 + HOUR });
    const alerting: Check = check({
      projectId: owner.id,
      status: "down",
      failureThreshold: 3,
      reminderIntervalMs: HOUR,
      mutedUntilAt: null,
      alert: { failures: 4, downSinceAt: T0, dueAt: T0 + HOUR, held: true, reminders: 2 },
    });
    const store = await openStore(dir.path, { durability: "commit" });
    await store.commit({ ...none, projects: [owner], checks: [alerting] });
    await store.close();
    const reopened = await openStore(dir.path, { durability: "commit" });
    try {
      assert.equal(reopened.loadChecks(owner.id), [alerting]);
      assert.equal(reopened.loadProjects(), [owner]);
    } finally {
      await reopened.close();
    }
  } finally {
    dir.remove();
  }
});

test("a journal record keeps the alerting state, and a status patch applies to it unchanged", () => {
  const alerting: Check = check({
    status: "up",
    reminderIntervalMs: HOUR,
    alert: { failures: 2, downSinceAt: null, dueAt: null, held: false, reminders: 0 },
  });
  const whole = decodeJournal(encodeJournal({ ...none, checks: [alerting] }), () => undefined);
  assert.equal(whole.checks, [alerting]);
  const patched = decodeJournal(
    encodeJournal({ ...none, checks: [{ ...alerting, status: "down", nFlips: 1 }], statusOnly: true }),
    () => alerting,
  );
  assert.equal(patched.checks, [{ ...alerting, status: "down", nFlips: 1 }]);
});

test.run();
