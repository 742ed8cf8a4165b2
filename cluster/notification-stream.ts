// The cluster's notifications as a JetStream work queue: one R3 stream that holds every outbox entry
// still to send, and one durable pull consumer that every node pulls from, so each entry is in one node's
// hands at a time. This file is the JetStream part only (the stream, publishing, taking and settling
// entries); notify/cluster-queue.ts runs the single-node deliverer over it.
//
// Stream: work-queue retention (an entry leaves the stream when it is acknowledged, i.e. delivered or given
// up), on disk, `replicas` copies, never dropped for age or space. Each entry is published with its id as
// the message id, and the stream drops a second message with the same id within its duplicate window: a
// partition's takeover replays the commands after the last snapshot and so produces the same entries (the
// ids are deterministic) that the deposed owner may already have enqueued. The window is one hour
// (DUPLICATE_WINDOW_MS): the server keeps every id published in the window (about 100 bytes each, a few
// MB at ten notifications a second), and a takeover within 15 s of the owner's silence replays records
// appended shortly before it, unless the partition's last snapshot is older than that; a replay of records
// older than the window (a quiet partition: snapshots come every 10,000 records) enqueues their entries
// again, and they are sent twice. The id dedupes whatever happened to the first copy: an entry already
// delivered (acknowledged and gone) is dropped too, the server remembers the id, not the message.
//
// Consumer: explicit acks, ack wait 30 s (ACK_WAIT_MS). An entry in a node's hands is kept from the others
// by `working()` every 10 s while it waits for a send slot or is being sent (a send may take 10 s, longer
// with redirects and a queue of entries before it), so the ack wait only decides how soon the entries of a
// node that died are handed to another: half a minute, well inside the minutes a notification may take.
// max_deliver is unlimited: the limit on attempts is the deliverer's (maxAttempts, counted in the entry
// itself), and deliveries also count the entries of a node that died and the early returns of an entry
// waiting for its retry time, neither of which should ever give an entry up; an entry past max_deliver
// would stay in the stream, never delivered and never reported. max_ack_pending is unlimited too: entries
// waiting for a retry (a negative ack with a delay) count as pending, and a cap would let one dead
// receiver's backlog stop every other channel's notifications.
//
// A failed attempt's new state (attempts, last error, retry time) is published as a new message (message
// id `<id>#<attempts>`) before the old one is acknowledged, so a retry survives the node that made it; a
// node that dies between the two leaves both, and the entry may be sent twice (at least once).
//
// Debian's 2.9.10: a create request may go unanswered while another node creates the same stream
// (jetstream-setup.ts), and a publish times out or finds no responders while the stream elects a leader
// (about 4-5 s after its leader's server was killed, measured here); both are sent again, a publish for up
// to three ack waits and with the same message id, so a copy that did land is dropped.
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

  private constructor(options: { stream: string; subject: string; consumer: string; connection: NatsConnection; jsm: JetStreamManager; ackTimeoutMs: number }) {
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
    const stream = options.stream ?? "HCD_NOTIFY", subject = options.subject ?? "hcd.notify", consumer = options.consumer ?? "deliver";
    const jsm = await managerOf(options.connection);
    await ensureStream(jsm, {
      name: stream, subjects: [subject], num_replicas: options.replicas, storage: StorageType.File,
      retention: RetentionPolicy.Workqueue, discard: DiscardPolicy.New, max_msgs: -1, max_bytes: -1, max_age: 0,
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    });
    await retriedWhileSettling(async () => {
      try {
        await jsm.consumers.info(stream, consumer);
      } catch (error) {
        if (!consumerNotFound(error)) throw error;
        await jsm.consumers.add(stream, {
          durable_name: consumer, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, replay_policy: ReplayPolicy.Instant,
          ack_wait: nanos(ACK_WAIT_MS), max_deliver: -1, max_ack_pending: -1,
        });
      }
    });
    return new NotificationStream({ stream, subject, consumer, connection: options.connection, jsm, ackTimeoutMs: options.ackTimeoutMs ?? 5_000 });
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
        await new Promise<void>((wake) => { this.#wake = wake; });
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
    } catch (error) { // bytes no node can read will not improve: out of the queue, and said so
      log.error({ err: error, stream: this.stream, seq: message.seq }, "a notification message could not be read; dropped");
      message.term();
      return null;
    }
    const quietly = (what: string, act: () => void) => {
      try {
        act();
      } catch (error) { // the connection is gone: the entry comes back to some node after the ack wait
        log.debug({ err: error, id: entry.id }, `notification ${what} not sent`);
      }
    };
    return {
      entry, seq: message.seq,
      settle: () => message.ackAck({ timeout: this.#ackTimeoutMs }).catch((error: unknown) => {
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
      // { seq }, not the bare number the client also takes: that one is answered "invalid json" by 2.9.10
      const got = await Promise.all(seqs.slice(i, i + GETS_AT_ONCE).map((seq) => this.#get({ seq })));
      for (const message of got) if (message !== null) keep(message.data);
    }
    for (let seq = Math.max(state.last_seq + 1, 1); ;) {
      // the first message at or after seq (2.9's message get takes next_by_subj; the client's type lacks it)
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
