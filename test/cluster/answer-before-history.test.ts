// A ping is answered once its partition's log holds it and the shard applied it, before its history is
// stored (a new owner stores that again from the log); a read of the check's pings on the owner then
// waits for the history in flight, so it lists the ping it answered. The history here is held in memory
// until released, so a read that did not wait would list nothing.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Changes, OutboxEntry } from "../../engine/changes.ts";
import type { Flip, PingRecord } from "../../engine/model.ts";
import { DirectoryReplica } from "../../cluster/directory-replica.ts";
import { PartitionHost } from "../../cluster/partition-host.ts";
import type { PartitionHistoryStore } from "../../cluster/partition-host.ts";
import { PartitionReplica } from "../../cluster/partition-replica.ts";
import { within } from "../../cluster/within.ts";
import { project } from "../helpers.ts";
import { pingCommand, SECOND, T0, withNatsServer } from "./held-appends.ts";

const PARTITION = 3;

/** A history that stores what it is given only while open; what comes while held waits for release(). */
class HeldHistory implements PartitionHistoryStore {
  readonly #pings = new Map<string, PingRecord[]>();
  readonly #flips: Flip[] = [];
  #last = 0;
  #held: Promise<void> | null = null;
  #release = () => {};
  #heldRecords = 0;
  #recordHeld = () => {};
  readonly firstHeld = new Promise<void>((resolve) => { this.#recordHeld = resolve; });

  hold(): void {
    this.#held = new Promise((resolve) => { this.#release = resolve; });
  }
  release(): void {
    this.#held = null;
    this.#release();
  }
  get heldRecords(): number {
    return this.#heldRecords;
  }
  async record(position: number, changes: Pick<Changes, "pings" | "flips" | "deletedChecks">): Promise<void> {
    if (this.#held !== null) {
      this.#heldRecords += 1;
      this.#recordHeld();
      await this.#held;
    }
    for (const ping of changes.pings) this.#pings.set(ping.checkUuid, [...(this.#pings.get(ping.checkUuid) ?? []), ping.record]);
    this.#flips.push(...changes.flips);
    this.#last = position;
  }
  async lastRecorded(): Promise<number> {
    return this.#last;
  }
  async pings(checkUuid: string, limit: number): Promise<PingRecord[]> {
    return (this.#pings.get(checkUuid) ?? []).slice(-limit).reverse();
  }
  async pingBody(): Promise<Uint8Array | null> {
    return null;
  }
  async flips(): Promise<Flip[]> {
    return [];
  }
  async flipNumber(checkUuid: string, n: number): Promise<Flip | null> {
    return this.#flips.find((f) => f.checkUuid === checkUuid && f.n === n) ?? null;
  }
}

test("a ping is answered while its history is still being stored; a read of its pings waits for it and lists it", async () => {
  await withNatsServer("a ping answered before its history", async (connect) => {
    const nc = await connect();
    const directory = await DirectoryReplica.open({ connection: nc, replicas: 1 });
    const history = new HeldHistory();
    let replica: PartitionReplica | null = null;
    const host = new PartitionHost(PARTITION, {
      openHistory: async () => history,
      notifications: { enqueue: async () => {} },
      directory,
      replica: () => (replica?.state === "owner" ? replica : null),
    });
    try {
      replica = await PartitionReplica.open({ connection: nc, partition: PARTITION, replicas: 1, ...host.replicaOptions() });
      await replica.takeOver(T0);
      const owner = project({ createdAt: T0 });
      await host.apply({ kind: "createProject", project: owner, at: T0 });
      const created = await host.apply({ kind: "createCheck", projectId: owner.id, spec: { name: "c", timeoutMs: 3_600 * SECOND, graceMs: 60 * SECOND }, unique: [], at: T0 });
      assert.ok(created.ok);
      const uuid = created.value.check.uuid;

      history.hold();
      const answer = host.apply({ kind: "pingBatch", pings: [pingCommand(uuid, T0 + SECOND, "rid-1")] });
      await history.firstHeld; // the ping's history is on its way, and held there
      const answered = await within(answer, 20_000, "the ping's answer waited for its history");
      assert.equal(answered.map((r) => r.ok), [true]);
      assert.is(history.heldRecords, 1, "answered while its history is held");

      const read = host.apply({ kind: "listPings", projectId: owner.id, uuid, pingLogLimit: 100 });
      history.release();
      const page = await read;
      assert.ok(page.ok);
      assert.equal(page.value.pings.map((p) => p.n), [1], "the read waited for the history of the ping it follows");
      assert.is(page.value.check.nPings, 1);
    } finally {
      replica?.abandon();
      await directory.close();
    }
  });
});

test("an up flip's notification names when the check went down, though the down flip's history was still on its way", async () => {
  await withNatsServer("a notification after a flip whose history is in flight", async (connect) => {
    const nc = await connect();
    const directory = await DirectoryReplica.open({ connection: nc, replicas: 1 });
    const history = new HeldHistory();
    const queued: OutboxEntry[] = [];
    let markUpQueued = () => {};
    const upQueued = new Promise<void>((resolve) => { markUpQueued = resolve; });
    let replica: PartitionReplica | null = null;
    const host = new PartitionHost(PARTITION, {
      openHistory: async () => history,
      notifications: { enqueue: async (entries) => { queued.push(...entries); if (entries.some((e) => e.flip.to === "up")) markUpQueued(); } },
      directory,
      replica: () => (replica?.state === "owner" ? replica : null),
    });
    try {
      replica = await PartitionReplica.open({ connection: nc, partition: PARTITION, replicas: 1, ...host.replicaOptions() });
      await replica.takeOver(T0);
      const owner = project({ createdAt: T0 });
      await host.apply({ kind: "createProject", project: owner, at: T0 });
      const channel = { id: "00000000-0000-4000-8000-0000000000c1", projectId: owner.id, name: "ops", kind: "email" as const, value: { kind: "email" as const, address: "ops@example.com" }, createdAt: T0 };
      await host.apply({ kind: "addChannel", channel, at: T0 });
      const created = await host.apply({ kind: "createCheck", projectId: owner.id, spec: { name: "c", timeoutMs: 60 * SECOND, graceMs: 60 * SECOND, channels: { all: true } }, unique: [], at: T0 });
      assert.ok(created.ok);
      const uuid = created.value.check.uuid;
      await host.apply({ kind: "pingBatch", pings: [pingCommand(uuid, T0 + SECOND)] });

      history.hold();
      const downAt = T0 + 121 * SECOND;
      await host.apply({ kind: "advance", at: downAt }); // down: its flip's history held
      await host.apply({ kind: "pingBatch", pings: [pingCommand(uuid, downAt + SECOND)] }); // up, answered
      history.release();
      await upQueued;
      const up = queued.find((e) => e.flip.to === "up");
      assert.is(up?.downSinceAt, downAt, "the up notification says since when the check was down");
    } finally {
      replica?.abandon();
      await directory.close();
    }
  });
});

test.run();
