// The cluster's notification work queue: the single-node deliverer (deliverer.ts) run over the JetStream
// work queue of cluster/notification-stream.ts, so rendering, sending, backoff, giving up, the
// private-address guard and per-queue ordering are the same code in both modes. Every node runs one; the
// stream's shared consumer hands each entry to one node at a time.
//
// The Outbox the deliverer sees is the entries this node has taken and not yet settled, in memory, every
// one of them due: an entry taken before its retry time is handed back at once with a delay until then
// (a negative ack with a delay, so any node may take it at that time). What the deliverer writes becomes:
//   - outboxDelete (sent, or nothing to send): the message is acknowledged and leaves the stream;
//   - outboxUpdate with more attempts (a failed attempt): the new state is published as a new message, then
//     the old one acknowledged, so the retry count and last error outlive this node; when the new state is
//     given up, the old message is acknowledged and nothing is published (the deliverer's onResult hears it);
//   - outboxUpdate with the same attempts and a later time (held back behind an earlier flip of its queue
//     waiting for its retry): handed back until a second after that time, so that the earlier one, handed
//     back until that very time, is taken first.
// While the deliverer holds an entry (waiting for a send slot, or sending), the message is reported as
// worked on every 10 s, so the others leave it alone however long the send takes; a node that dies stops
// reporting, and its entries go to another node after the 30 s ack wait.
//
// Order per (check, channel) holds for the entries one node holds (the deliverer's queues), not across
// nodes: two flips of one check taken by two nodes at the same moment may arrive in either order.
// Given-up entries leave the queue (single-node mode keeps them in its outbox table for the admin listing).
// The ntfy limit (6 a minute per server and topic) is counted per node. An entry is sent as it was
// enqueued: what single-node mode fills in from its tables when it reads the outbox (a deadline flip's
// last ping, persistence/outbox.ts; an up flip's downSinceAt, host/shard-host.ts) must be in it already.
import type { OutboxEntry } from "../engine/changes.ts";
import { hasGivenUp, sentNoticeOf } from "../engine/changes.ts";
import type { Millis } from "../engine/model.ts";
import { NotificationStream, WORKING_EVERY_MS } from "../cluster/notification-stream.ts";
import type { NatsConnection, TakenEntry } from "../cluster/notification-stream.ts";
import type { SentStream } from "../cluster/sent-stream.ts";
import { log } from "../host/log.ts";
import type { DelivererOptions, Outbox } from "./deliverer.ts";
import { Deliverer } from "./deliverer.ts";

export type NotificationQueueOptions = {
  connection: NatsConnection;
  /** 3 on a 3-server cluster. */
  replicas: number;
  stream?: string; // default "HCD_NOTIFY"
  subject?: string; // default "hcd.notify"
  consumer?: string; // durable consumer name shared by every node, default "deliver"
  ackTimeoutMs?: number; // publish ack wait, default 5_000
  /** Where a delivered notification is recorded for its check's page (cluster/sent-stream.ts); none: not recorded. */
  sent?: Pick<SentStream, "record">;
};

/** How much later than the entry it waits behind a held-back entry is handed back for. */
const BEHIND_MS: Millis = 1_000;
const DEFAULT_BATCH = 200;

type Held = { entry: OutboxEntry; taken: TakenEntry };

export class NotificationQueue {
  readonly #stream: NotificationStream;
  readonly #held = new Map<string, Held>(); // entry id → the entry this node holds and its message
  #deliverer: Deliverer | null = null;
  #now: () => Millis = () => 0;
  #working: NodeJS.Timeout | null = null;
  #runs = new Set<Promise<void>>();
  #scheduled = false;
  #closing = false;

  readonly #sent: Pick<SentStream, "record"> | null;

  private constructor(stream: NotificationStream, sent: Pick<SentStream, "record"> | null) {
    this.#stream = stream;
    this.#sent = sent;
  }

  static async open(options: NotificationQueueOptions): Promise<NotificationQueue> {
    return new NotificationQueue(await NotificationStream.open(options), options.sent ?? null);
  }

  /**
   * Publishes entries, message id = entry.id (entry ids are deterministic: a takeover that replays the same
   * flip produces the same ids, and the stream's duplicate window drops the second copy). Resolves once all
   * are acknowledged by JetStream; rejects otherwise.
   */
  enqueue(entries: readonly OutboxEntry[]): Promise<void> {
    return this.#stream.publish(entries);
  }

  /**
   * Starts delivering on this node: every node runs this, and each entry is given to one node at a time
   * (one durable consumer shared by all). Delivered at least once; a node killed mid-delivery means the
   * entry is redelivered to another node after the ack wait. Failures retried with backoff, given up like
   * the single-node deliverer. `now` is the node's clock.
   */
  startDelivering(options: Omit<DelivererOptions, "outbox">, now: () => Millis): void {
    if (this.#deliverer !== null) throw new Error("this queue is delivering already");
    this.#now = now;
    this.#deliverer = new Deliverer({ ...options, outbox: this.#outbox() });
    // the deliverer looks at no more than a batch at once; more is asked for once a quarter of it is free
    // (one pull per entry sent would make the pull's round trip the pace)
    const batch = options.batchSize ?? DEFAULT_BATCH;
    this.#stream.startTaking(
      () => {
        const free = batch - this.#held.size;
        return !this.#closing && free >= Math.ceil(batch / 4) ? free : 0;
      },
      (taken) => this.#arrived(taken),
    );
    this.#working = setInterval(() => {
      for (const { taken } of this.#held.values()) taken.working();
    }, WORKING_EVERY_MS);
  }

  /** Entries waiting (not yet delivered or given up), for the admin outbox listing and metrics. */
  async pending(): Promise<OutboxEntry[]> {
    // a failed attempt's new state is published before the old message goes: keep the later state
    const byId = new Map<string, OutboxEntry>();
    for (const entry of await this.#stream.stored()) {
      const known = byId.get(entry.id);
      if (known === undefined || entry.attempts > known.attempts) byId.set(entry.id, entry);
    }
    return [...byId.values()].filter((entry) => !hasGivenUp(entry)).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Stops delivering (in-flight sends finish or are left to redelivery); closes nothing it does not own. */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true; // the deliverer starts no new send: outboxDue is empty, outboxHas false
    if (this.#working !== null) clearInterval(this.#working);
    await this.#stream.stopTaking();
    while (this.#runs.size > 0) await Promise.allSettled([...this.#runs]);
    // what is left was taken but not started: to the other nodes now, not after the ack wait
    for (const { taken } of this.#held.values()) taken.handBack(0);
    this.#held.clear();
  }

  /** Whether this node can still act on what it holds (not closing, its connection not gone). */
  #active(): boolean {
    return !this.#closing && !this.#stream.closed;
  }

  #arrived(taken: TakenEntry): void {
    const { entry } = taken;
    const known = this.#held.get(entry.id);
    if (known !== undefined && known.taken.seq !== taken.seq) {
      // two copies of one entry (a failed attempt's new state and the old message whose ack was lost):
      // the one with more attempts is the entry's state, the other goes
      if (known.entry.attempts >= entry.attempts) {
        void taken.settle();
        return;
      }
      void known.taken.settle();
    }
    const wait = entry.nextAttemptAt - this.#now();
    if (wait > 0) {
      this.#held.delete(entry.id);
      taken.handBack(wait);
      this.#stream.madeRoom();
      return;
    }
    this.#held.set(entry.id, { entry, taken }); // a redelivery of the message held replaces its handle
    this.#deliverSoon();
  }

  /** Runs the deliverer once after the entries arriving in this turn (a pull brings them one by one). */
  #deliverSoon(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      if (!this.#active() || this.#deliverer === null) return;
      const run = this.#deliverer
        .deliverDue(this.#now())
        .catch((error: unknown) => log.error({ err: error }, "notification delivery failed"))
        .finally(() => this.#runs.delete(run));
      this.#runs.add(run);
    });
  }

  #release(id: string): Held | undefined {
    const held = this.#held.get(id);
    this.#held.delete(id);
    this.#stream.madeRoom();
    return held;
  }

  #outbox(): Outbox {
    return {
      outboxDue: (at, limit) => {
        if (!this.#active()) return [];
        return [...this.#held.values()]
          .map((h) => h.entry)
          .filter((entry) => entry.nextAttemptAt <= at)
          .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .slice(0, limit);
      },
      // false once this node cannot settle what it holds: the deliverer then skips the send, and the
      // entry goes to another node (at once after close(), after the ack wait when the connection is gone)
      outboxHas: (id) => this.#active() && this.#held.has(id),
      outboxDelete: async (id) => {
        await this.#release(id)?.taken.settle();
      },
      outboxDelivered: async (entry, sentAt) => {
        // recorded before it is settled: a node lost in between sends it again and records it again (stored
        // once: the record's message id is the entry's); a record that fails loses the line on the check's
        // page, never the delivery
        if (this.#sent !== null && this.#held.has(entry.id)) {
          await this.#sent
            .record(sentNoticeOf(entry, sentAt))
            .catch((error: unknown) =>
              log.warn({ err: error, entry: entry.id }, "cluster: a delivered notification could not be recorded for its check's page"),
            );
        }
        await this.#release(entry.id)?.taken.settle();
      },
      outboxUpdate: async (entry) => {
        const held = this.#held.get(entry.id);
        if (held === undefined) return;
        if (hasGivenUp(entry)) {
          this.#release(entry.id); // the caller's onResult hears it, as in single-node mode
          await held.taken.settle();
          return;
        }
        if (entry.attempts > held.entry.attempts) {
          // a failed attempt: its state outlives this node
          this.#release(entry.id);
          try {
            await this.#stream.publish([entry], (e) => `${e.id}#${e.attempts}`);
          } catch (error) {
            // the old state comes back at the retry time, or after the ack wait
            held.taken.handBack(entry.nextAttemptAt - this.#now());
            throw error;
          }
          await held.taken.settle();
          return;
        }
        // held back behind an earlier flip of its queue: back after that one
        this.#release(entry.id);
        held.taken.handBack(entry.nextAttemptAt - this.#now() + BEHIND_MS);
      },
    };
  }
}
