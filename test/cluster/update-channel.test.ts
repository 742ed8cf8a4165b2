// An edited channel in cluster mode: the edit is a command of the partition's replicated log, so the next
// owner of the partition (a takeover replaying that log from JetStream) holds the new name and value.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { PartitionReplica } from "../../cluster/partition-replica.ts";
import { project } from "../helpers.ts";
import { T0, withNatsServer } from "./held-appends.ts";

const PARTITION = 2;
let ids = 0;
const newId = () => `00000000-0000-4000-8000-${(++ids).toString(16).padStart(12, "0")}`;

test("the next owner of a partition holds a channel as its last edit left it", async () => {
  await withNatsServer("an edited channel across a takeover", async (connect) => {
    const a = await PartitionReplica.open({ connection: await connect(), partition: PARTITION, replicas: 1, newId });
    await a.takeOver(T0);
    const owner = project({ id: newId(), createdAt: T0 });
    await a.submit({ kind: "createProject", project: owner, at: T0 });
    const channel = {
      id: newId(),
      projectId: owner.id,
      name: "ops",
      kind: "email" as const,
      value: { kind: "email" as const, address: "old@example.com" },
      createdAt: T0,
    };
    await a.submit({ kind: "addChannel", channel, at: T0 });
    const { result } = await a.submit({
      kind: "updateChannel",
      projectId: owner.id,
      channelId: channel.id,
      name: "oncall",
      value: { kind: "email", address: "new@example.com" },
      at: T0 + 1_000,
    });
    assert.ok(result.ok);
    a.abandon();

    const b = await PartitionReplica.open({ connection: await connect(), partition: PARTITION, replicas: 1, newId });
    await b.takeOver(T0 + 60_000, T0 + 5_000);
    const held = b.read((shard) => shard.channels(owner.id).map((c) => [c.id, c.name, c.value]));
    assert.equal(held, [[channel.id, "oncall", { kind: "email", address: "new@example.com" }]]);
  });
});

test.run();
