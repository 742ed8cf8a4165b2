// The cluster's notifications as a JetStream work queue (one R3 stream, one durable pull consumer every node
// shares), the JetStream part only: notify/cluster-queue.ts runs the single-node deliverer over it.
import { wirePackr as packr } from "./wire-packr.ts";
import { AckPolicy, DeliverPolicy, DiscardPolicy, jetstream, ReplayPolicy, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import type { Consumer, ConsumerMessages, JetStreamClient, JetStreamManager, JsMsg, MsgRequest, StoredMsg } from "@nats-io/jetstream";
import { nanos } from "@nats-io/nats-core";
import type { NatsConnection } from "@nats-io/nats-core";
import type { OutboxEntry } from "../engine/changes.ts";
import type { Millis } from "../engine/model.ts";
import { HOUR } from "../engine/model.ts";
import { log } from "../host/log.ts";
import { ensureStream, managerOf, retriedWhileSettling } from "./jetstream-setup.ts";
import { consumerNotFound } from "./nats-errors.ts";
import { resendUnanswered } from "./resend.ts";

export type { NatsConnection } from "@nats-io/nats-core";

export const DUPLICATE_WINDOW_MS: Millis = HOUR;
export const ACK_WAIT_MS: Millis = 30_000;
/** How often an entry in a node's hands is reported as still being worked on (a third of the ack wait). */
export const WORKING_EVERY_MS: Millis = ACK_WAIT_MS / 3;
const PUBLISH_ATTEMPTS = 3;
const FETCH_EXPIRES_MS = 5_000;
const GETS_AT_ONCE = 128; // message gets in flight at once when listing the stream

const RECORD_ID = 1; // the first value of every message: an outbox entry (a future format gets a new id)

export type NotificationStreamOptions = {
  connection: NatsConnection;
  /** 3 on a three-server cluster, 1 alone. */
  replicas: number;
  stream?: string; // default "HCD_NOTIFY"
  subject?: string; // default "hcd.notify"
  consumer?: string; // the durable consumer every node shares, default "deliver"
  ackTimeoutMs?: number; // how long a publish waits for its PubAck, default 5 s
};

/** One entry taken from the stream: this node's until it settles it (or stops reporting it as worked on). */
export type TakenEntry = {
  readonly entry: OutboxEntry;
  /** The message's stream sequence (a second copy of one entry has another). */
  readonly seq: number;
  /** Acknowledges it (delivered or given up: it leaves the stream); false when the ack was not confirmed. */
  settle(): Promise<boolean>;
  /** Hands it back, to be delivered again (to any node) after `delayMs`. */
  handBack(delayMs: Millis): void;
  /** Keeps it from the other nodes for another ack wait. */
  working(): void;
};

export function encodeEntry(entry: OutboxEntry): Uint8Array {
  return packr.pack([RECORD_ID, entry]);
}

export function decodeEntry(bytes: Uint8Array): OutboxEntry {
  const value: unknown = packr.unpack(bytes);
  if (!Array.isArray(value) || value[0] !== RECORD_ID || value.length !== 2) {
    throw new Error(`not an outbox entry (record id ${Array.isArray(value) ? String(value[0]) : typeof value})`);
  }
  const entry = value[1] as OutboxEntry;
  // a body decodes as a Buffer; the renderer expects the plain Uint8Array it was
  return entry.lastPingBody === null ? entry : { ...entry, lastPingBody: new Uint8Array(entry.lastPingBody) };
}

/**
 * Invariants:
 * - an entry leaves the stream when acknowledged (delivered or given up); it is never dropped for age or
 *   space, and it is in one node's hands at a time (explicit acks; working() every 10 s keeps it there
 *   while it waits for a send slot or is sent; the ack wait, 30 s, only decides how soon a dead node's
 *   entries go to another);
 * - an entry is published under its id as message id: a takeover's replay enqueues the same entries
 *   (deterministic ids) and the stream drops them within the duplicate window (one hour; a replay of
 *   records older than that, from a quiet partition, enqueues them again: sent twice, never lost);
 * - a failed attempt's new state is published (message id `<id>#<attempts>`) before the old message is
 *   acknowledged: a retry survives its node (at least once);
 * - no limit on deliveries or on pending acks: attempts are the deliverer's to count, and one dead
 *   receiver's backlog must not stop every other channel's notifications;
 * - a create or publish left unanswered (the stream electing a leader) is sent again, a publish for up to
 *   three ack waits under the same message id (docs/cluster.md, NATS server notes).
 */
export class NotificationStream {
  readonly stream: string;
  readonly subject: string;
  readonly consumer: string;
  readonly #connection: NatsConnection;
  readonly #js: JetStreamClient;
  readonly #jsm: JetStreamManager;
  readonly #ackTimeoutMs: number;
  #taking: Promise<void> | null = null;
  #stopped = false;
  #batch: ConsumerMessages | null = null;
  #wake: (() => void) | null = null;

  private constructor(options: {
    stream: string;
    subject: string;
    consumer: string;
    connection: NatsConnection;
    jsm: JetStreamManager;
    ackTimeoutMs: number;
  }) {
    this.stream = options.stream;
    this.subject = options.subject;
    this.consumer = options.consumer;
    this.#connection = options.connection;
    this.#js = jetstream(options.connection);
    this.#jsm = options.jsm;
    this.#ackTimeoutMs = options.ackTimeoutMs;
  }

  /** Creates the stream and its shared consumer unless they exist (every node does, often at once). */
  static async open(options: NotificationStreamOptions): Promise<NotificationStream> {
    const stream = options.stream ?? "HCD_NOTIFY",
      subject = options.subject ?? "hcd.notify",
      consumer = options.consumer ?? "deliver";
    const jsm = await managerOf(options.connection);
    await ensureStream(jsm, {
      name: stream,
      subjects: [subject],
      num_replicas: options.replicas,
      storage: StorageType.File,
      retention: RetentionPolicy.Workqueue,
      discard: DiscardPolicy.New,
      max_msgs: -1,
      max_bytes: -1,
      max_age: 0,
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    });
    await retriedWhileSettling(async () => {
      try {
        await jsm.consumers.info(stream, consumer);
      } catch (error) {
        if (!consumerNotFound(error)) throw error;
        await jsm.consumers.add(stream, {
          durable_name: consumer,
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.All,
          replay_policy: ReplayPolicy.Instant,
          ack_wait: nanos(ACK_WAIT_MS),
          max_deliver: -1,
          max_ack_pending: -1,
        });
      }
    });
    return new NotificationStream({
      stream,
      subject,
      consumer,
      connection: options.connection,
      jsm,
      ackTimeoutMs: options.ackTimeoutMs ?? 5_000,
    });
  }

  /** Whether this node's connection is gone for good: what it holds can no longer be settled. */
  get closed(): boolean {
    return this.#connection.isClosed();
  }

  /**
   * Publishes the entries, all in flight at once, each under `messageId(entry)` (default its id); resolves
   * once every one is acknowledged (a duplicate dropped by the stream counts), rejects with the first failure
   * after every answer is in. A publish left unanswered is sent again with the same message id.
   */
  async publish(entries: readonly OutboxEntry[], messageId: (entry: OutboxEntry) => string = (entry) => entry.id): Promise<void> {
    const results = await Promise.allSettled(entries.map((entry) => this.#publishOne(encodeEntry(entry), messageId(entry))));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed !== undefined) throw failed.reason;
  }

  async #publishOne(bytes: Uint8Array, msgID: string): Promise<void> {
    // an election takes a few seconds: unanswered publishes are sent again for up to PUBLISH_ATTEMPTS first ack waits
    const publish = (timeout: number) => {
      if (this.closed) throw new Error(`${this.stream}: closed`);
      return this.#js.publish(this.subject, bytes, { msgID, expect: { streamName: this.stream }, timeout });
    };
    await resendUnanswered(publish, { timeoutMs: this.#ackTimeoutMs, forMs: PUBLISH_ATTEMPTS * this.#ackTimeoutMs });
  }

  /**
   * Starts pulling entries from the shared consumer: at most `room()` are asked for at a time (0: wait for
   * madeRoom()), each handed to `take`. Runs until stopTaking() or the connection closes.
   */
  startTaking(room: () => number, take: (taken: TakenEntry) => void): void {
    if (this.#taking !== null) throw new Error(`${this.stream}: already taking`);
    this.#stopped = false;
    this.#taking = this.#takeLoop(room, take);
    void this.#connection.closed().then(() => this.#interrupt());
  }

  /** Tells the pull loop that room was made (an entry settled or handed back). */
  madeRoom(): void {
    const wake = this.#wake;
    this.#wake = null;
    wake?.();
  }

  /** Stops pulling; resolves once the pull loop has ended (entries already taken stay the caller's). */
  async stopTaking(): Promise<void> {
    this.#stopped = true;
    this.#interrupt();
    await this.#taking;
    this.#taking = null;
  }

  #interrupt(): void {
    this.#batch?.stop();
    this.madeRoom();
  }

  async #takeLoop(room: () => number, take: (taken: TakenEntry) => void): Promise<void> {
    let consumer: Consumer | null = null;
    while (!this.#stopped && !this.closed) {
      const wanted = room();
      if (wanted <= 0) {
        await new Promise<void>((wake) => {
          this.#wake = wake;
        });
        continue;
      }
      try {
        consumer ??= await this.#js.consumers.get(this.stream, this.consumer);
        this.#batch = await consumer.fetch({ max_messages: wanted, expires: FETCH_EXPIRES_MS });
        if (this.#stopped) this.#batch.stop();
        for await (const message of this.#batch) {
          const taken = this.#taken(message);
          if (taken !== null) take(taken);
        }
      } catch (error) {
        if (this.#stopped || this.closed) break;
        log.warn({ err: error, stream: this.stream }, "pulling notifications failed; trying again");
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      } finally {
        this.#batch = null;
      }
    }
  }

  #taken(message: JsMsg): TakenEntry | null {
    let entry: OutboxEntry;
    try {
      entry = decodeEntry(message.data);
    } catch (error) {
      // bytes no node can read will not improve: out of the queue, and said so
      log.error({ err: error, stream: this.stream, seq: message.seq }, "a notification message could not be read; dropped");
      message.term();
      return null;
    }
    const quietly = (what: string, act: () => void) => {
      try {
        act();
      } catch (error) {
        // the connection is gone: the entry comes back to some node after the ack wait
        log.debug({ err: error, id: entry.id }, `notification ${what} not sent`);
      }
    };
    return {
      entry,
      seq: message.seq,
      settle: () =>
        message.ackAck({ timeout: this.#ackTimeoutMs }).catch((error: unknown) => {
          log.warn({ err: error, id: entry.id }, "a notification's ack was not confirmed; it may be sent again");
          return false;
        }),
      handBack: (delayMs) => quietly("hand-back", () => message.nak(Math.max(0, Math.ceil(delayMs)))),
      working: () => quietly("progress", () => message.working()),
    };
  }

  /**
   * Every entry the stream holds (waiting, or in some node's hands), in stream order. The sequences held
   * come from the stream's info (its deleted list: acknowledged entries leave holes), and the messages are
   * read GETS_AT_ONCE at a time; the info may come from a replica a little behind, so the messages after
   * its end are then read one after another from the leader until there is none.
   */
  async stored(): Promise<OutboxEntry[]> {
    const { state } = await this.#jsm.streams.info(this.stream, { deleted_details: true });
    const deleted = new Set(state.deleted ?? []);
    const seqs: number[] = [];
    for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) if (!deleted.has(seq)) seqs.push(seq);
    const entries: OutboxEntry[] = [];
    const keep = (bytes: Uint8Array) => {
      try {
        entries.push(decodeEntry(bytes));
      } catch {
        // unreadable: the consumer drops it when it comes
      }
    };
    for (let i = 0; i < seqs.length; i += GETS_AT_ONCE) {
      // { seq }, not the bare number the client also takes (docs/cluster.md, NATS server notes)
      const got = await Promise.all(seqs.slice(i, i + GETS_AT_ONCE).map((seq) => this.#get({ seq })));
      for (const message of got) if (message !== null) keep(message.data);
    }
    for (let seq = Math.max(state.last_seq + 1, 1); ;) {
      // the first message at or after seq (the server's message get takes next_by_subj; the client's type lacks it)
      const message = await this.#get({ seq, next_by_subj: this.subject } as unknown as MsgRequest);
      if (message === null) return entries;
      keep(message.data);
      seq = message.seq + 1;
    }
  }

  /** The stored message, or null when there is none (acknowledged meanwhile, or past the end). */
  #get(query: MsgRequest): Promise<StoredMsg | null> {
    return this.#jsm.streams.getMessage(this.stream, query);
  }
}
