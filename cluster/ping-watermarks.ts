// How far a partition's owner may judge deadlines: not past a ping some node has stamped and not yet had
// taken into the partition's log. Every node publishes its watermarks on `hcd.watermarks` (docs/cluster.md).
import type { NatsConnection, Subscription } from "@nats-io/nats-core";
import type { Millis } from "../engine/model.ts";
import { wirePackr as packr } from "./wire-packr.ts";

const SUBJECT = "hcd.watermarks";

/**
 * One node's watermarks as published: its name; per partition, the instant it may be judged up to once the
 * intake stream is read up to `seq`; and for each partition it serves, how far its log holds the stream's pings.
 */
type Published = {
  readonly node: string;
  readonly marks: readonly Millis[];
  readonly seq: number;
  readonly floors: readonly (readonly [partition: number, floor: number])[];
};

/** How many of a node's latest publications are kept: an owner whose reading lags uses the newest it has read past. */
const KEPT = 24;

export type PingWatermarksOptions = {
  readonly connection: NatsConnection;
  readonly node: string;
  readonly partitionCount: number;
  /** The earliest stamp of this node's pings for the partition not yet answered, or null. */
  readonly unansweredSince: (partition: number) => Millis | null;
  /** The intake stream position this node's answered pings are at or below. */
  readonly storedUpTo: () => number;
  /** For each partition this node serves, how far its log holds the intake stream's pings. */
  readonly floors: () => (readonly [partition: number, floor: number])[];
  /** This node's wall clock (epoch ms): the stamps' clock. */
  readonly clock: () => Millis;
  /** How often this node publishes (default 250 ms). */
  readonly publishEveryMs?: number;
  /** A node unheard for this long holds nobody back (default 2 s). */
  readonly staleAfterMs?: number;
};

export class PingWatermarks {
  readonly #options: PingWatermarksOptions;
  readonly #heard = new Map<string, { published: Published[]; heardAt: Millis }>();
  readonly #subscription: Subscription;
  readonly #timer: NodeJS.Timeout;

  constructor(options: PingWatermarksOptions) {
    this.#options = options;
    this.#subscription = options.connection.subscribe(SUBJECT, {
      callback: (error, message) => {
        if (error !== null) return;
        const heard = decode(message.data);
        if (heard !== null && heard.node !== options.node) this.#hear(heard);
      },
    });
    this.#timer = setInterval(() => this.#publish(), options.publishEveryMs ?? 250);
    this.#publish();
  }

  /**
   * How far `partition`'s deadlines may be judged at `now`, its intake pings handed over up to `handed`:
   * the lowest watermark of the nodes heard from lately, each from its newest publication whose position is
   * handed; -Infinity while some node has none. This node counts as any other, heard now, its newest
   * publication being what it would publish now.
   */
  judgeUpTo(partition: number, now: Millis, handed: number): Millis {
    const staleAfter = this.#options.staleAfterMs ?? 2_000;
    const live = this.#publication(now);
    const heard = new Map(this.#heard);
    heard.set(live.node, { published: [...(heard.get(live.node)?.published ?? []), live], heardAt: now });
    let upTo = live.marks[partition];
    for (const [node, { published, heardAt }] of heard) {
      if (now - heardAt > staleAfter) {
        // a node gone quiet holds nobody back once the pings it last said it answered are read
        if (published[published.length - 1].seq > handed) return -Infinity;
        this.#heard.delete(node);
        continue;
      }
      let read: Published | undefined;
      for (let i = published.length - 1; i >= 0 && read === undefined; i--) if (published[i].seq <= handed) read = published[i];
      if (read === undefined) return -Infinity;
      if (partition < read.marks.length) upTo = Math.min(upTo, read.marks[partition]);
    }
    return upTo;
  }

  /** The newest intake stream position heard from any node lately: a request asked after it waits for the pings at or below it. */
  newestSeq(): number {
    let newest = 0;
    for (const { published } of this.#heard.values()) newest = Math.max(newest, published[published.length - 1].seq);
    return newest;
  }

  /** The lowest of every partition's floor heard lately (how far its log holds the intake stream's pings), or null while some partition's is not known. */
  floor(now: Millis): number | null {
    const staleAfter = this.#options.staleAfterMs ?? 2_000;
    const floors = new Array<number | undefined>(this.#options.partitionCount);
    for (const { published, heardAt } of this.#heard.values()) {
      if (now - heardAt > staleAfter) continue;
      for (const [partition, floor] of published[published.length - 1].floors) floors[partition] = Math.max(floors[partition] ?? 0, floor);
    }
    let lowest = Infinity;
    for (let partition = 0; partition < floors.length; partition++) {
      const floor = floors[partition];
      if (floor === undefined) return null;
      lowest = Math.min(lowest, floor);
    }
    return lowest;
  }

  /** The other nodes whose watermarks count now (heard from within staleAfterMs of `now`), by name. */
  heardFrom(now: Millis): string[] {
    const staleAfter = this.#options.staleAfterMs ?? 2_000;
    return [...this.#heard]
      .filter(([node, { heardAt }]) => node !== this.#options.node && now - heardAt <= staleAfter)
      .map(([node]) => node)
      .sort();
  }

  close(): void {
    clearInterval(this.#timer);
    this.#subscription.unsubscribe();
  }

  #hear(heard: Published): void {
    let node = this.#heard.get(heard.node);
    if (node === undefined) this.#heard.set(heard.node, (node = { published: [], heardAt: 0 }));
    node.heardAt = this.#options.clock();
    node.published.push(heard);
    if (node.published.length > KEPT) node.published.shift();
  }

  /** What this node publishes at `now`: its marks, the position its answered pings are at or below, its floors. */
  #publication(now: Millis): Published {
    // the position first: a ping answered after it is read has a later stamp than the marks below
    const seq = this.#options.storedUpTo();
    const marks = Array.from(
      { length: this.#options.partitionCount },
      (_, partition) => Math.min(now, this.#options.unansweredSince(partition) ?? now) - 1,
    );
    return { node: this.#options.node, marks, seq, floors: this.#options.floors() };
  }

  #publish(): void {
    const published = this.#publication(this.#options.clock());
    this.#hear(published); // this node's own count as any other's
    try {
      this.#options.connection.publish(SUBJECT, packr.pack(published));
    } catch {
      // the connection is closed or closing: nothing to hold back any more
    }
  }
}

/** A published message, or null when it is not one (anything may be published on a subject). */
function decode(bytes: Uint8Array): Published | null {
  try {
    const value = packr.unpack(bytes) as Partial<Published>;
    if (typeof value?.node !== "string" || !Array.isArray(value.marks) || !value.marks.every((m) => typeof m === "number")) return null;
    if (
      typeof value.seq !== "number" ||
      !Array.isArray(value.floors) ||
      !value.floors.every((f) => Array.isArray(f) && typeof f[0] === "number" && typeof f[1] === "number")
    )
      return null;
    return { node: value.node, marks: value.marks, seq: value.seq, floors: value.floors };
  } catch {
    return null;
  }
}
