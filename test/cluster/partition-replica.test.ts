// A partition's replica against one real nats-server, at the moments an owner is given up: a takeover on
// the same node while an append waits for its PubAcks, and a record whose effects the previous owner
// stored in part. Nothing of the log may be applied twice or lost, and nothing may be left unanswered.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Check } from "../../engine/model.ts";
import type { Flip } from "../../engine/model.ts";
import { PartitionHistory } from "../../cluster/partition-history.ts";
import { PartitionReplica } from "../../cluster/partition-replica.ts";
import type { AppliedRecord, PartitionReplicaOptions } from "../../cluster/partition-replica.ts";
import { project } from "../helpers.ts";
import { heldAppends, pingOf, SECOND, T0, unhandledRejections, withNatsServer } from "./held-appends.ts";

const PARTITION = 3;
let ids = 0;
const newId = () => `00000000-0000-4000-8000-${(++ids).toString(16).padStart(12, "0")}`;

async function projectWithChecks(replica: PartitionReplica, count: number, timeoutS = 60): Promise<Check[]> {
  const owner = project({ id: newId(), createdAt: T0 });
  await replica.submit({ kind: "createProject", project: owner, at: T0 });
  const checks: Check[] = [];
  for (let i = 1; i <= count; i++) {
    const { result } = await replica.submit({
      kind: "createCheck",
      projectId: owner.id,
      spec: { name: `check ${i}`, timeoutMs: timeoutS * SECOND, graceMs: 30 * SECOND },
      unique: [],
      at: T0,
    });
    assert.ok(result.ok);
    checks.push(result.value.check);
  }
  return checks;
}

const nPings = (replica: PartitionReplica, check: Check) =>
  replica.read((shard) => {
    const found = shard.getCheck(check.projectId, check.uuid);
    return found.ok ? found.value.nPings : -1;
  });

test("a takeover on the same node while an append waits for its PubAcks: the batch is refused, not applied twice, the takeover completes", async () => {
  await withNatsServer("a re-takeover during an append in flight", async (connect) => {
    const slow = heldAppends(await connect());
    const replayedPings: number[] = [];
    const onApplied = (applied: AppliedRecord) => {
      if (applied.replayed && applied.command.kind === "ping") replayedPings.push(applied.position);
    };
    let markReplayed = () => {};
    const replayed = new Promise<void>((resolve) => {
      markReplayed = resolve;
    });
    const replica = await PartitionReplica.open({
      connection: slow.connection,
      partition: PARTITION,
      replicas: 1,
      newId,
      onApplied: (applied) => {
        onApplied(applied);
        if (replayedPings.length > 0) markReplayed();
      },
    });
    await replica.takeOver(T0);
    const [check] = await projectWithChecks(replica, 1);
    const rejections = unhandledRejections();
    try {
      slow.hold();
      const submitted = replica.submit(pingOf(check.uuid, T0 + SECOND)).then(
        () => "applied",
        (error: Error) => error.name,
      );
      await slow.firstHeld(); // the ping is in the log; its PubAck waits
      replica.abandon(); // the lease was lost (a renewal that timed out but landed) ...
      const takeover = replica.takeOver(T0 + 2 * SECOND); // ... and gained again in the same round
      // the PubAck comes once the takeover replayed the ping (when it does not wait for the append), or a moment later
      await Promise.race([replayed, new Promise((resolve) => setTimeout(resolve, 500))]);
      slow.release();
      const outcome = await Promise.race([
        takeover.then(() => "taken over"),
        rejections.first().then((error) => `unhandled rejection: ${(error as Error)?.message ?? String(error)}`),
      ]);
      assert.is(outcome, "taken over");
      assert.is(replica.state, "owner");
      // stored, so not to be sent again (a retry would count it twice); the takeover applied it from the log
      assert.is(await submitted, "SupersededError");
      assert.is(replayedPings.length, 1, "the ping replayed once");
      assert.is(nPings(replica, check), 1);
      const after = await replica.submit(pingOf(check.uuid, T0 + 3 * SECOND));
      assert.ok(after.result.ok);
      assert.is(nPings(replica, check), 2);
      assert.equal(rejections.seen, []);
    } finally {
      rejections.stop();
    }
  });
});

test("a partition given up (no takeover here) while an append waits: the batch is answered, and counted once by the next takeover", async () => {
  await withNatsServer("a partition given up during an append in flight", async (connect) => {
    const slow = heldAppends(await connect());
    const replica = await PartitionReplica.open({ connection: slow.connection, partition: PARTITION, replicas: 1, newId });
    await replica.takeOver(T0);
    const [check] = await projectWithChecks(replica, 1);
    slow.hold();
    const submitted = replica.submit(pingOf(check.uuid, T0 + SECOND)).then(
      () => "applied",
      (error: Error) => error.name,
    );
    await slow.firstHeld();
    replica.abandon(); // released to a node that joined: its record is in the log before that node's fence
    slow.release();
    assert.is(await submitted, "applied");
    assert.is(replica.state, "deposed");
    await replica.takeOver(T0 + 2 * SECOND); // gained back later: rebuilt from the log
    assert.is(nPings(replica, check), 1);
  });
});

test("a record whose flips the previous owner stored in part: the next owner stores the missing ones, each once", async () => {
  await withNatsServer("a record stored in part, completed by the next owner", async (connect) => {
    const nc = await connect();
    const historyOfA = await PartitionHistory.open({ connection: nc, partition: PARTITION, replicas: 1 });
    let markPartial = () => {};
    const partial = new Promise<void>((resolve) => {
      markPartial = resolve;
    });
    // A is killed between the history messages of its advance: only the first flip is stored
    const effectsOfA = async ({ position, command, changes }: AppliedRecord) => {
      if (command.kind === "advance" && changes.flips.length === 3) {
        await historyOfA.record(position, { flips: [changes.flips[0]], deletedChecks: [] });
        markPartial();
        return new Promise<void>(() => {}); // never: A is gone
      }
      await historyOfA.record(position, changes);
    };
    const options = (effects: PartitionReplicaOptions["effects"], history: PartitionHistory): PartitionReplicaOptions => ({
      connection: nc,
      partition: PARTITION,
      replicas: 1,
      newId,
      effects,
      recordedUpTo: () => history.lastRecorded(),
    });
    const a = await PartitionReplica.open(options(effectsOfA, historyOfA));
    await a.takeOver(T0);
    const checks = await projectWithChecks(a, 3);
    for (const check of checks) await a.submit(pingOf(check.uuid, T0 + SECOND));
    const advanced = a.advance(T0 + 200 * SECOND); // each check: timeout 60 s, grace 30 s: all three down
    advanced.catch(() => {});
    await partial;
    a.abandon();

    const historyOfB = await PartitionHistory.open({ connection: nc, partition: PARTITION, replicas: 1 });
    const b = await PartitionReplica.open(options((applied) => historyOfB.record(applied.position, applied.changes), historyOfB));
    await b.takeOver(T0 + 201 * SECOND);
    for (const [i, check] of checks.entries()) {
      const flips: Flip[] = await historyOfB.flips(check.uuid, {});
      assert.equal(
        flips.map((f) => f.to),
        ["down", "up"],
        `check ${i + 1}: flips in the history`,
      );
      assert.is(b.read((shard) => shard.getCheck(check.projectId, check.uuid)).ok, true);
    }
  });
});

test.run();
