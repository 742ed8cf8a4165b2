// An owner holds the pings it applied until a snapshot stores them in the history (ping-tail.ts). They are
// in the partition's log meanwhile: a new owner, taking the partition over from the last snapshot, holds
// them again by its replay and lists every ping once, those the history has and those it does not yet.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { DirectoryReplica } from "../../cluster/directory-replica.ts";
import { PartitionHistory } from "../../cluster/partition-history.ts";
import type { PartitionHost, PartitionHostDeps } from "../../cluster/partition-host.ts";
import type { HeldPing } from "../../cluster/ping-tail.ts";
import { pingCommand, SECOND, T0, withNatsServer } from "./held-appends.ts";
import { newCheck, newProject, partitionOwner } from "./partition-owner.ts";
import type { TestOwner } from "./partition-owner.ts";

const PARTITION = 4;

test("pings held by an owner that is gone: the next owner lists them all, once, from the history and its replay", async () => {
  await withNatsServer("held pings across a takeover", async (connect) => {
    const nc = await connect();
    const directory = await DirectoryReplica.open({ connection: nc, replicas: 1 });
    const owners: TestOwner[] = [];
    const ownerOn = async (at: number) => {
      const owned = await partitionOwner(
        nc,
        PARTITION,
        {
          openHistory: () => PartitionHistory.open({ connection: nc, partition: PARTITION, replicas: 1 }),
          notifications: { enqueue: async () => {} },
          directory,
        },
        at,
      );
      owners.push(owned);
      return owned;
    };
    try {
      const first = await ownerOn(T0);
      const owner = await newProject(first.host);
      const uuid = await newCheck(first.host, owner);
      const ping = async (host: PartitionHost, n: number) => {
        const [answer] = await host.apply({ kind: "pingBatch", pings: [pingCommand(uuid, T0 + n * SECOND, `rid-${n}`)] });
        assert.ok(answer.ok);
      };
      const listed = async (host: PartitionHost) => {
        const page = await host.apply({ kind: "listPings", projectId: owner.id, uuid, pingLogLimit: 100 });
        assert.ok(page.ok);
        return page.value.pings.map((p) => p.n);
      };
      const history = await PartitionHistory.open({ connection: nc, partition: PARTITION, replicas: 1 });
      for (let n = 1; n <= 3; n++) await ping(first.host, n);
      assert.ok((await first.replica.snapshot()).saved);
      for (let n = 4; n <= 5; n++) await ping(first.host, n);
      assert.equal(await listed(first.host), [5, 4, 3, 2, 1]);
      assert.equal(
        (await history.pings(uuid, 100)).map((p) => p.n),
        [3, 2, 1],
        "the history has what the snapshot stored",
      );

      first.replica.abandon(); // the node is gone; its held pings 4 and 5 with it
      const second = await ownerOn(T0 + 5_500); // after ping 5, before ping 6: a takeover judges up to its instant
      assert.equal(await listed(second.host), [5, 4, 3, 2, 1], "4 and 5 held again by the replay");
      await ping(second.host, 6);
      assert.ok((await second.replica.snapshot()).saved);
      assert.equal(
        (await history.pings(uuid, 100)).map((p) => p.n),
        [6, 5, 4, 3, 2, 1],
        "stored by the next snapshot",
      );
      assert.equal(await listed(second.host), [6, 5, 4, 3, 2, 1]);
    } finally {
      for (const { replica } of owners) replica.abandon();
      await directory.close();
    }
  });
});

test("an owner holding more bytes of pings than it may stores them before the next snapshot", async () => {
  await withNatsServer("held pings over their bytes", async (connect) => {
    const nc = await connect();
    const directory = await DirectoryReplica.open({ connection: nc, replicas: 1 });
    let owned: TestOwner | null = null;
    let markStored = (_: number[]) => {};
    const stored = new Promise<number[]>((resolve) => {
      markStored = resolve;
    });
    const deps: Omit<PartitionHostDeps, "replica"> = {
      openHistory: async () => {
        const history = await PartitionHistory.open({ connection: nc, partition: PARTITION, replicas: 1 });
        const storeSegments = history.storeSegments.bind(history);
        return Object.assign(history, {
          storeSegments: async (position: number, held: ReadonlyMap<string, readonly HeldPing[]>) => {
            await storeSegments(position, held);
            markStored([...held.values()].flat().map((p) => p.record.n));
          },
        });
      },
      notifications: { enqueue: async () => {} },
      directory,
      heldBytes: 10_000,
    };
    try {
      owned = await partitionOwner(nc, PARTITION, deps);
      const { host, replica } = owned;
      const uuid = await newCheck(host, await newProject(host, { pingBodyLimit: 100_000 }));
      const history = await PartitionHistory.open({ connection: nc, partition: PARTITION, replicas: 1 });
      const body = new Uint8Array(6_000).fill(0x61);
      for (let n = 1; n <= 2; n++) {
        const [answer] = await host.apply({ kind: "pingBatch", pings: [{ ...pingCommand(uuid, T0 + n * SECOND), body }] });
        assert.ok(answer.ok);
      }
      // the second ping's record passed 10,000 bytes held: its effects store both, without a snapshot
      assert.equal(await stored, [1, 2]);
      assert.equal(
        (await history.pings(uuid, 10)).map((p) => p.n),
        [2, 1],
      );
      assert.is(replica.snapshotSequence, 0, "no snapshot was stored");
      assert.is((await history.pingBody(uuid, 2))?.length, 6_000);
    } finally {
      owned?.replica.abandon();
      await directory.close();
    }
  });
});

test.run();
