// How far a partition's owner may judge deadlines: not past a ping that some node has stamped and not yet
// had answered, for it may still be on its way to the owner. Every node publishes, four times a second,
// its watermark per partition (just before the earliest stamp of its pings for that partition still
// unanswered, else just before its clock's now) on `hcd.watermarks`; an owner judges a partition's deadlines up to the
// lowest watermark of the nodes heard from lately, and its own.
//
// A node not heard from for `staleAfterMs` (stopped, frozen, cut off) holds nobody back; a ping it stamped
// before then and delivers late is refused by the owner (PartitionReplica's LatePingError: answered 503,
// never acknowledged and then judged late).
import type { NatsConnection, Subscription } from "@nats-io/nats-core";
import type { Millis } from "../engine/model.ts";
import { wirePackr as packr } from "./wire-packr.ts";

const SUBJECT = "hcd.watermarks";

/** One node's watermarks as published: its name and, per partition, the instant it may be judged up to. */
type Published = { readonly node: string; readonly marks: readonly Millis[] };

export type PingWatermarksOptions = {
  readonly connection: NatsConnection;
  readonly node: string;
  readonly partitionCount: number;
  /** The earliest stamp of this node's pings for the partition not yet answered, or null. */
  readonly unansweredSince: (partition: number) => Millis | null;
  /** This node's wall clock (epoch ms): the stamps' clock. */
  readonly clock: () => Millis;
  /** How often this node publishes (default 250 ms). */
  readonly publishEveryMs?: number;
  /** A node unheard for this long holds nobody back (default 2 s). */
  readonly staleAfterMs?: number;
};

export class PingWatermarks {
  readonly #options: PingWatermarksOptions;
  readonly #heard = new Map<string, { marks: readonly Millis[]; heardAt: Millis }>();
  readonly #subscription: Subscription;
  readonly #timer: NodeJS.Timeout;

  constructor(options: PingWatermarksOptions) {
    this.#options = options;
    this.#subscription = options.connection.subscribe(SUBJECT, {
      callback: (error, message) => {
        if (error !== null) return;
        const heard = decode(message.data);
        if (heard !== null && heard.node !== options.node) this.#heard.set(heard.node, { marks: heard.marks, heardAt: options.clock() });
      },
    });
    this.#timer = setInterval(() => this.#publish(), options.publishEveryMs ?? 250);
    this.#publish();
  }

  /** How far `partition`'s deadlines may be judged at `now`: the lowest of this node's watermark and those of the nodes heard from lately. */
  judgeUpTo(partition: number, now: Millis): Millis {
    let upTo = this.#own(partition, now);
    const staleAfter = this.#options.staleAfterMs ?? 2_000;
    for (const [node, { marks, heardAt }] of this.#heard) {
      if (now - heardAt > staleAfter) this.#heard.delete(node);
      else if (partition < marks.length) upTo = Math.min(upTo, marks[partition]);
    }
    return upTo;
  }

  /** The nodes whose watermarks count now (heard from within staleAfterMs of `now`), by name. */
  heardFrom(now: Millis): string[] {
    const staleAfter = this.#options.staleAfterMs ?? 2_000;
    return [...this.#heard].filter(([, { heardAt }]) => now - heardAt <= staleAfter).map(([node]) => node).sort();
  }

  close(): void {
    clearInterval(this.#timer);
    this.#subscription.unsubscribe();
  }

  /** Just before this node's earliest unanswered stamp, or before now: a ping stamped from now on is later than it. */
  #own(partition: number, now: Millis): Millis {
    return Math.min(now, this.#options.unansweredSince(partition) ?? now) - 1;
  }

  #publish(): void {
    const now = this.#options.clock();
    const marks = Array.from({ length: this.#options.partitionCount }, (_, partition) => this.#own(partition, now));
    try {
      this.#options.connection.publish(SUBJECT, packr.pack({ node: this.#options.node, marks } satisfies Published));
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
    return { node: value.node, marks: value.marks };
  } catch {
    return null;
  }
}
