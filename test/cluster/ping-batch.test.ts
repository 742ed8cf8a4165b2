// A batch of pings sent to a partition whose owner gives it up while the batch's append waits for its
// PubAcks, then takes it over again; the sender (PartitionHandle, as every node's pool reaches a partition)
// sends again what was refused. Every ping is counted once, acknowledged or not: n_pings equals the
// pings in the log, and equals the pings sent.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { DirectoryReplica } from "../../cluster/directory-replica.ts";
import { JetStreamLog } from "../../cluster/jetstream-log.ts";
import { decodeMessage } from "../../cluster/partition-codec.ts";
import { PartitionHistory } from "../../cluster/partition-history.ts";
import { PartitionHost } from "../../cluster/partition-host.ts";
import { PartitionReplica } from "../../cluster/partition-replica.ts";
import { PartitionHandle } from "../../cluster/partition-rpc.ts";
import { NotificationQueue } from "../../notify/cluster-queue.ts";
import { project } from "../helpers.ts";
import { heldAppends, pingCommand, SECOND, T0, withNatsServer } from "./held-appends.ts";

const PARTITION = 2;
const PINGS = 3;

test("a ping batch given up between its append and its answer, then sent again: every ping counted once", async () => {
  await withNatsServer("a ping batch retried after its partition was given up", async (connect) => {
    const nc = await connect();
    const slow = heldAppends(nc);
    const directory = await DirectoryReplica.open({ connection: nc, replicas: 1 });
    const notifications = await NotificationQueue.open({ connection: nc, replicas: 1 });
    let replica: PartitionReplica | null = null;
    const host = new PartitionHost(PARTITION, {
      openHistory: () => PartitionHistory.open({ connection: nc, partition: PARTITION, replicas: 1 }),
      notifications,
      directory,
      replica: () => (replica?.state === "owner" ? replica : null),
    });
    const r = await PartitionReplica.open({ connection: slow.connection, partition: PARTITION, replicas: 1, ...host.replicaOptions() });
    replica = r;
    const handle = new PartitionHandle({
      connection: nc,
      partition: PARTITION,
      local: () => host,
      connected: () => true,
      directorySynced: () => directory.synced(),
    });
    try {
      await r.takeOver(T0);
      const owner = project({ createdAt: T0 });
      await handle.apply({ kind: "createProject", project: owner, at: T0 });
      const created = await handle.apply({
        kind: "createCheck",
        projectId: owner.id,
        spec: { name: "batch", timeoutMs: 3_600 * SECOND, graceMs: 60 * SECOND },
        unique: [],
        at: T0,
      });
      assert.ok(created.ok);
      const check = created.value.check;

      slow.hold();
      const pings = Array.from({ length: PINGS }, (_, i) => pingCommand(check.uuid, T0 + (i + 1) * SECOND, `rid-${i}`));
      const answer = handle.apply({ kind: "pingBatch", pings }).then(
        () => "acknowledged",
        (error: Error) => error.name,
      );
      await slow.firstHeld(); // (the first of) the batch is in the log; its PubAck waits
      r.abandon();
      slow.release();
      await r.takeOver(T0 + 10 * SECOND);
      const answered = await answer; // sent again while refused, until the takeover is done

      const log = await JetStreamLog.open({ connection: nc, partition: PARTITION, replicas: 1 });
      const logged: string[] = [];
      for await (const { bytes } of log.readFrom(1)) {
        for (const { command } of decodeMessage(bytes)) if (command.kind === "ping") logged.push(command.ping.rid ?? "");
      }
      const counted = r.read((shard) => shard.getCheck(owner.id, check.uuid));
      assert.ok(counted.ok);
      assert.equal(
        logged.sort(),
        pings.map((p) => p.rid ?? ""),
        `each ping in the log once (answered: ${answered})`,
      );
      assert.is(counted.value.nPings, PINGS, "n_pings");
      // not acknowledged as a whole unless every ping was stored: a refused batch was stored whole
      assert.ok(answered === "acknowledged" || answered === "ServiceUnavailableError", answered);
    } finally {
      await directory.close();
      await notifications.close();
    }
  });
});

test.run();
