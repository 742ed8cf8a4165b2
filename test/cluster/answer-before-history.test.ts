// A ping is answered once its partition's log holds it and the shard applied it, before its history is
// stored: the owner holds it in memory (a new owner holds it again from the log) and lists it from there,
// stores it with the others at the next snapshot, and lists it from the history once stored. A flip's
// history is on its way when the answer goes; what needs it waits for it. The history here is held in
// memory until released, so a read that did not wait would list nothing.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { OutboxEntry } from "../../engine/changes.ts";
import type { HistoryRecord } from "../../cluster/history-writer.ts";
import type { HeldPing } from "../../cluster/ping-tail.ts";
import type { Flip, PingRecord } from "../../engine/model.ts";
import { DirectoryReplica } from "../../cluster/directory-replica.ts";
import type { PartitionHistoryStore } from "../../cluster/partition-host.ts";
import { within } from "../../cluster/within.ts";
import { pingCommand, SECOND, T0, withNatsServer } from "./held-appends.ts";
import { newCheck, newProject, partitionOwner } from "./partition-owner.ts";
import type { TestOwner } from "./partition-owner.ts";

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
  readonly firstHeld = new Promise<void>((resolve) => {
    this.#recordHeld = resolve;
  });
  #segmentsCalled = () => {};
  /** Resolves when held pings are first given to be stored. */
  readonly segmentsCalled = new Promise<void>((resolve) => {
    this.#segmentsCalled = resolve;
  });

  hold(): void {
    this.#held = new Promise((resolve) => {
      this.#release = resolve;
    });
  }
  release(): void {
    this.#held = null;
    this.#release();
  }
  get heldRecords(): number {
    return this.#heldRecords;
  }
  async record(position: number, changes: HistoryRecord): Promise<void> {
    await this.#stored(position, new Map(), changes.flips);
  }
  async storeSegments(position: number, held: ReadonlyMap<string, readonly HeldPing[]>): Promise<void> {
    this.#segmentsCalled();
    await this.#stored(position, held, []);
  }
  async #stored(position: number, held: ReadonlyMap<string, readonly HeldPing[]>, flips: readonly Flip[]): Promise<void> {
    if (this.#held !== null) {
      this.#heldRecords += 1;
      this.#recordHeld();
      await this.#held;
    }
    for (const [checkUuid, pings] of held)
      this.#pings.set(checkUuid, [...(this.#pings.get(checkUuid) ?? []), ...pings.map((ping) => ping.record)]);
    this.#flips.push(...flips);
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

test("a ping is answered before its history is stored; it is listed from memory, then stored at the snapshot and listed from the history", async () => {
  await withNatsServer("a ping answered before its history", async (connect) => {
    const nc = await connect();
    const directory = await DirectoryReplica.open({ connection: nc, replicas: 1 });
    const history = new HeldHistory();
    let owned: TestOwner | null = null;
    try {
      owned = await partitionOwner(nc, PARTITION, {
        openHistory: async () => history,
        notifications: { enqueue: async () => {} },
        directory,
      });
      const { host, replica } = owned;
      const owner = await newProject(host);
      const uuid = await newCheck(host, owner);

      history.hold();
      const answered = await within(
        host.apply({ kind: "pingBatch", pings: [pingCommand(uuid, T0 + SECOND, "rid-1")] }),
        20_000,
        "the ping's answer waited for its history",
      );
      assert.equal(
        answered.map((r) => r.ok),
        [true],
      );
      const list = async () => {
        const page = await host.apply({ kind: "listPings", projectId: owner.id, uuid, pingLogLimit: 100 });
        assert.ok(page.ok);
        return page.value.pings.map((p) => p.n);
      };
      assert.equal(await list(), [1], "listed from what the owner holds");
      assert.equal(await history.pings(uuid, 100), [], "not stored yet");

      const snapshot = replica.snapshot();
      await history.segmentsCalled; // the snapshot stores the held pings first, and that write is held here
      assert.is(history.heldRecords, 2, "two writes held: the ping's flip (new to up), then the held pings' segments");
      assert.equal(await list(), [1], "still listed while its segment is on its way");
      history.release();
      assert.ok((await snapshot).saved);
      assert.equal(
        (await history.pings(uuid, 100)).map((p) => p.n),
        [1],
        "stored in the history by the snapshot",
      );
      assert.equal(await list(), [1], "listed once, from the history");
    } finally {
      owned?.replica.abandon();
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
    const upQueued = new Promise<void>((resolve) => {
      markUpQueued = resolve;
    });
    let owned: TestOwner | null = null;
    try {
      owned = await partitionOwner(nc, PARTITION, {
        openHistory: async () => history,
        notifications: {
          enqueue: async (entries) => {
            queued.push(...entries);
            if (entries.some((e) => e.flip.to === "up")) markUpQueued();
          },
        },
        directory,
      });
      const { host } = owned;
      const owner = await newProject(host);
      const channel = {
        id: "00000000-0000-4000-8000-0000000000c1",
        projectId: owner.id,
        name: "ops",
        kind: "email" as const,
        value: { kind: "email" as const, address: "ops@example.com" },
        createdAt: T0,
      };
      await host.apply({ kind: "addChannel", channel, at: T0 });
      const uuid = await newCheck(host, owner, { timeoutMs: 60 * SECOND, channels: { all: true } });
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
      owned?.replica.abandon();
      await directory.close();
    }
  });
});

test.run();
