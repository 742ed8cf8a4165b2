// A partition without an owner is hcd's own downtime for its checks (CONTRACT "hcd's own downtime and
// clock"), against one real nats-server: a check whose deadline fell between the previous owner's last
// sign of life and the takeover is not judged at the takeover, but once its grace has passed since, and
// its down notification names that time.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { PartitionReplica } from "../../cluster/partition-replica.ts";
import { project } from "../helpers.ts";
import { pingOf, SECOND, T0, withNatsServer } from "./held-appends.ts";

const PARTITION = 5;
let ids = 0;
const newId = () => `00000000-0000-4000-8000-${(++ids).toString(16).padStart(12, "0")}`;

test("the next owner holds a check due while the partition had no owner, until its grace has passed since the takeover", async () => {
  await withNatsServer("a partition's time without an owner", async (connect) => {
    const a = await PartitionReplica.open({ connection: await connect(), partition: PARTITION, replicas: 1, newId });
    await a.takeOver(T0);
    const owner = project({ id: newId(), createdAt: T0 });
    await a.submit({ kind: "createProject", project: owner, at: T0 });
    const channel = {
      id: newId(),
      projectId: owner.id,
      name: "ops",
      kind: "email" as const,
      value: { kind: "email" as const, address: "ops@example.com" },
      createdAt: T0,
    };
    await a.submit({ kind: "addChannel", channel, at: T0 });
    const { result } = await a.submit({
      kind: "createCheck",
      projectId: owner.id,
      spec: { name: "job", timeoutMs: 60 * SECOND, graceMs: 60 * SECOND, channels: { all: true } },
      unique: [],
      at: T0,
    });
    assert.ok(result.ok);
    const uuid = result.value.check.uuid;
    await a.submit(pingOf(uuid, T0 + SECOND)); // due at T0 + 121 s
    a.abandon(); // A's node is gone: it last renewed its lease at T0 + 5 s

    const b = await PartitionReplica.open({ connection: await connect(), partition: PARTITION, replicas: 1, newId });
    const takeoverAt = T0 + 300 * SECOND;
    const report = await b.takeOver(takeoverAt, T0 + 5 * SECOND);
    assert.equal([report.held, report.flips], [1, []], "nothing judged at the takeover");
    assert.equal((await b.advance(takeoverAt + 60 * SECOND - 1)).changes.flips, []);
    const down = await b.advance(takeoverAt + 60 * SECOND);
    assert.equal(
      down.changes.flips.map((f) => [f.checkUuid, f.to, f.at]),
      [[uuid, "down", takeoverAt + 60 * SECOND]],
    );
    assert.equal(
      down.changes.outbox.map((entry) => entry.downtime),
      [{ fromAt: T0 + 5 * SECOND, toAt: takeoverAt }],
    );
  });
});

test("a partition whose owner handed it over while serving holds nothing that its records show judged", async () => {
  await withNatsServer("a handover", async (connect) => {
    const a = await PartitionReplica.open({ connection: await connect(), partition: PARTITION + 1, replicas: 1, newId });
    await a.takeOver(T0);
    const owner = project({ id: newId(), createdAt: T0 });
    await a.submit({ kind: "createProject", project: owner, at: T0 });
    const { result } = await a.submit({
      kind: "createCheck",
      projectId: owner.id,
      spec: { name: "job", timeoutMs: 60 * SECOND, graceMs: 60 * SECOND },
      unique: [],
      at: T0,
    });
    assert.ok(result.ok);
    await a.submit(pingOf(result.value.check.uuid, T0 + SECOND));
    await a.advance(T0 + 200 * SECOND); // A judged its deadline (T0 + 121 s): down
    a.abandon();
    const b = await PartitionReplica.open({ connection: await connect(), partition: PARTITION + 1, replicas: 1, newId });
    const report = await b.takeOver(T0 + 201 * SECOND, null);
    assert.equal([report.held, report.flips], [0, []]);
  });
});

test.run();
