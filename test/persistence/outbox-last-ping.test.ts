// A deadline's flip and an outage's reminder are queued without their last ping; the outbox's readers
// (the deliverer, the admin listing) get the check's ping numbered nPings at the flip, with its body,
// read from the tables: never a ping that came after the notification was queued.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { randomUUID } from "node:crypto";
import { ShardHost } from "../../host/shard-host.ts";
import { HOUR, MINUTE } from "../../engine/model.ts";
import { pingOf, scenarioProject } from "../../bench/scenarios.ts";
import { tempDir } from "../helpers.ts";

const T0 = Date.UTC(2026, 5, 1);

test("a deadline's down notification and a reminder carry the check's last ping and body, not a later ping's", async () => {
  const dir = tempDir();
  const host = await ShardHost.open({
    dataDir: dir.path,
    durability: "flush",
    index: 0,
    count: 1,
    startAt: T0,
    newId: randomUUID,
    applyMissedDeadlines: true,
  });
  try {
    const project = await host.apply({ kind: "createProject", project: scenarioProject("p"), at: T0 });
    const added = await host.apply({
      kind: "addChannel",
      channel: {
        id: "mail",
        projectId: project.id,
        name: "ops",
        kind: "email",
        value: { kind: "email", address: "ops@example.com" },
        createdAt: T0,
      },
      at: T0,
    });
    assert.ok(added.ok);
    const made = await host.apply({
      kind: "createCheck",
      projectId: project.id,
      spec: { timeoutMs: HOUR, graceMs: MINUTE, reminderIntervalMs: HOUR, channels: { all: true } },
      unique: [],
      at: T0,
    });
    if (!made.ok) throw new Error("create failed");
    const uuid = made.value.check.uuid;
    const body = new TextEncoder().encode("backup done: 42 files");
    const [pinged] = await host.apply({ kind: "pingBatch", pings: [pingOf({ uuid }, T0 + 1_000, { method: "POST", body, ua: "first" })] });
    assert.ok(pinged.ok);
    await host.advance(T0 + 1_000 + HOUR + MINUTE); // the deadline: down, its notification queued
    await host.advance(T0 + 1_000 + 2 * HOUR + MINUTE); // the first reminder
    // a ping after both were queued: a log ping keeps the check down and counts as ping 2
    const [logged] = await host.apply({ kind: "pingBatch", pings: [pingOf({ uuid }, T0 + 3 * HOUR, { signal: "log", ua: "later" })] });
    assert.ok(logged.ok);

    const entries = (await host.apply({ kind: "outbox" })).filter((e) => e.check.uuid === uuid);
    const shown = entries.map((e) => ({
      reminder: e.reminder ?? 0,
      flipAt: e.flip.at,
      n: e.lastPing?.n,
      ua: e.lastPing?.ua,
      body: e.lastPingBody === null ? null : new TextDecoder().decode(e.lastPingBody),
    }));
    assert.equal(shown, [
      { reminder: 0, flipAt: T0 + 1_000 + HOUR + MINUTE, n: 1, ua: "first", body: "backup done: 42 files" },
      { reminder: 1, flipAt: T0 + 1_000 + 2 * HOUR + MINUTE, n: 1, ua: "first", body: "backup done: 42 files" },
    ]);
  } finally {
    await host.close();
    dir.remove();
  }
});

test.run();
