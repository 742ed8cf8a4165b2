// An edited channel is stored in the place of the old one: a restart reads back the new name and value,
// once, with its id and kind.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { randomUUID } from "node:crypto";
import { ShardHost } from "../../host/shard-host.ts";
import { scenarioProject } from "../../bench/scenarios.ts";
import { tempDir } from "../helpers.ts";

const T0 = Date.UTC(2026, 5, 1);

test("a restart keeps the edited channel's name and value, and no second copy of it", async () => {
  const dir = tempDir();
  const open = () =>
    ShardHost.open({
      dataDir: dir.path,
      durability: "flush",
      index: 0,
      count: 1,
      startAt: T0,
      newId: randomUUID,
      applyMissedDeadlines: true,
    });
  try {
    const host = await open();
    const project = await host.apply({ kind: "createProject", project: scenarioProject("p"), at: T0 });
    await host.apply({
      kind: "addChannel",
      channel: {
        id: "chat",
        projectId: project.id,
        name: "ops",
        kind: "telegram",
        value: { kind: "telegram", fields: { chat_id: 111, thread_id: null } },
        createdAt: T0,
      },
      at: T0,
    });
    const updated = await host.apply({
      kind: "updateChannel",
      projectId: project.id,
      channelId: "chat",
      name: "oncall",
      value: { kind: "telegram", fields: { chat_id: 222, thread_id: null } },
      at: T0 + 1_000,
    });
    assert.ok(updated.ok);
    await host.close();

    const reopened = await open();
    try {
      const channels = await reopened.apply({ kind: "channels", projectId: project.id });
      assert.equal(
        channels.map((c) => [c.id, c.name, c.kind, c.value, c.createdAt]),
        [["chat", "oncall", "telegram", { kind: "telegram", fields: { chat_id: 222, thread_id: null } }, T0]],
      );
    } finally {
      await reopened.close();
    }
  } finally {
    dir.remove();
  }
});

test.run();
