// An owner's reading of the intake stream (cluster/intake-follower.ts) whose consumer is lost while its
// connection stays up (as when the consumer's server dies) goes silent: the client would notice only after
// missed heartbeats, and meanwhile the owner's reads and takeovers wait in vain (a takeover's catch-up
// failed for 44 s so). The follower notices the stream ahead of what it was handed, and reads it again from
// there. One real nats-server; the consumer deleted by hand.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { IntakeFollower } from "../../cluster/intake-follower.ts";
import { INTAKE_STREAM, IntakePublisher, openIntakeStream } from "../../cluster/intake-stream.ts";
import { managerOf } from "../../cluster/jetstream-setup.ts";
import { PartitionReplica } from "../../cluster/partition-replica.ts";
import { partitionOf } from "../../cluster/partitions.ts";
import { project } from "../helpers.ts";
import { pingCommand, SECOND, T0, withNatsServer } from "./held-appends.ts";

const PARTITIONS = 4;
const PARTITION = 2;

test("a reader whose consumer was deleted by hand reads on from where it was, each ping once", async () => {
  await withNatsServer("an intake reader whose consumer is lost", async (connect) => {
    const [ncOwner, ncFront] = [await connect(), await connect()];
    await openIntakeStream(ncFront, 1);
    const front = new IntakePublisher({ connection: ncFront, connected: () => true });
    const replica = await PartitionReplica.open({ connection: ncOwner, partition: PARTITION, replicas: 1 });
    await replica.takeOver(T0);
    let owner = project({ createdAt: T0 });
    for (let i = 0; partitionOf(owner.id, PARTITIONS) !== PARTITION; i++)
      owner = project({ id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`, createdAt: T0 });
    await replica.submit({ kind: "createProject", project: owner, at: T0 });
    const created = await replica.submit({
      kind: "createCheck",
      projectId: owner.id,
      spec: { name: "nightly", timeoutMs: 86_400 * SECOND },
      unique: [],
      at: T0,
    });
    assert.ok(created.result.ok);
    const uuid = created.result.value.check.uuid;
    const nPings = () =>
      replica.read((shard) => {
        const found = shard.getCheck(owner.id, uuid);
        return found.ok ? found.value.nPings : -1;
      });
    const send = (from: number, count: number) =>
      Promise.all(Array.from({ length: count }, (_, i) => front.send(PARTITION, owner.id, pingCommand(uuid, T0 + (from + i) * SECOND))));

    const follower = new IntakeFollower({ connection: ncOwner, lingerMs: 5, checkEveryMs: 500 });
    try {
      follower.join(PARTITION, replica.intakeMark, replica);
      await send(1, 5);
      await follower.reached(PARTITION, front.storedUpTo);
      assert.is(nPings(), 5);

      const jsm = await managerOf(ncOwner);
      const consumers = await jsm.consumers.list(INTAKE_STREAM).next();
      assert.is(consumers.length, 1, "one reader");
      await jsm.consumers.delete(INTAKE_STREAM, consumers[0].name);

      await send(100, 5);
      // within reached()'s 10 s: the reader read on after its consumer was lost
      await follower.reached(PARTITION, front.storedUpTo);
      assert.is(nPings(), 10, "every ping once");
      assert.ok(follower.restarts >= 1, `restarts: ${follower.restarts}`);
    } finally {
      follower.close();
    }
  });
});

test.run();
