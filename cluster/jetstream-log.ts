// A partition's command log as a JetStream stream of its own, replicated before an append resolves, with
// fenced, pipelined appends so a deposed owner is refused.
import type { JetStreamClient, JetStreamManager, StoredMsg } from "@nats-io/jetstream";
import { PubHeaders } from "@nats-io/jetstream";
import { headers } from "@nats-io/nats-core";
import type { CommandLog } from "./command-log.ts";
import { keptUntilPurged, openPartitionStream } from "./jetstream-setup.ts";
import type { PartitionStream, PartitionStreamOptions } from "./jetstream-setup.ts";
import { unanswered, wrongLastSequence } from "./nats-errors.ts";
import { replyInboxOf } from "./reply-inbox.ts";
import type { ReplyInbox } from "./reply-inbox.ts";

const FENCE_HEADER = "Hcd-Fence";
const FENCE_NODE_HEADER = "Hcd-Fence-Node";
const FENCE_REVISION_HEADER = "Hcd-Fence-Lease-Revision";
const EMPTY = new Uint8Array(0);
/** Message gets in flight at once while reading the log. */
const READ_WINDOW = 64;

/**
 * An append refused on the fence: the log's end was not where this writer expected it, because another
 * writer has fenced or appended since (this one is deposed), or an earlier append of this writer failed.
 */
export class FencedError extends Error {
  override name = "FencedError";
}

/**
 * A strict read asked for records the log no longer holds (a snapshot let them go): the reader must load
 * a newer snapshot and read from its position, never go on from a later record.
 */
export class TruncatedError extends Error {
  override name = "TruncatedError";
}

export type JetStreamLogOptions = PartitionStreamOptions;

/** Who fenced the log, under which lease: written into the marker, so an incident can be read afterwards. */
export type FenceToken = { readonly node: string; readonly leaseRevision: number };

/**
 * One stream per partition, not a subject per partition in a shared stream: a partition's sequences are then
 * dense, so a writer knows each record's sequence before any PubAck and sends a whole batch at once, every
 * record expecting "the last sequence is the one before mine" (Nats-Expected-Last-Sequence, the stream-wide
 * check the server serializes: docs/cluster.md, NATS server notes). Positions are the stream's sequences.
 * Invariants:
 * - writing needs fence() first: a marker at the stream's end (naming the node and its lease revision),
 *   after which any append by an earlier writer fails on the sequence check; readers skip markers;
 * - a failed append leaves the writer unfenced (part of the batch may be stored): the owner fences again
 *   and replays from what it applied, so a record is in the log at least once, in one order.
 */
export class JetStreamLog implements CommandLog {
  readonly stream: string;
  readonly subject: string;
  readonly #js: JetStreamClient;
  readonly #jsm: JetStreamManager;
  /** Where appends' PubAcks come (one subscription and one timer for all of them). */
  readonly #inbox: ReplyInbox;
  readonly #ackTimeoutMs: number;
  /** The sequence the next appended record will get, or null while this writer is not fenced. */
  #next: number | null = null;

  private constructor(options: PartitionStream) {
    this.stream = options.stream;
    this.subject = options.subject;
    this.#js = options.js;
    this.#jsm = options.jsm;
    this.#inbox = replyInboxOf(options.connection);
    this.#ackTimeoutMs = options.ackTimeoutMs;
  }

  /** Creates the partition's stream if it does not exist and returns its log, not yet fenced for writing. */
  static async open(options: JetStreamLogOptions): Promise<JetStreamLog> {
    // records stay until a snapshot lets them go (truncateBelow)
    return new JetStreamLog(
      await openPartitionStream(options, { streamPrefix: "HCD_LOG", subjectPrefix: "hcd.log" }, (subject) => keptUntilPurged([subject])),
    );
  }

  /** Whether appends are allowed now (fenced and no append has failed since). */
  get fenced(): boolean {
    return this.#next !== null;
  }

  /**
   * Makes this writer the log's only writer: appends a marker under the stream's current end as the
   * expected last sequence. Resolves with the marker's position; records below it were written by earlier
   * writers and must be applied before this writer's own. `token` (the writer's node and lease revision)
   * is written into the marker.
   */
  async fence(token?: FenceToken): Promise<number> {
    this.#next = null;
    for (let attempt = 0; attempt < 10; attempt++) {
      const last = await this.lastPosition();
      const marker = headers();
      marker.set(FENCE_HEADER, String(last));
      if (token !== undefined) {
        marker.set(FENCE_NODE_HEADER, token.node);
        marker.set(FENCE_REVISION_HEADER, String(token.leaseRevision));
      }
      try {
        const ack = await this.#js.publish(this.subject, EMPTY, {
          headers: marker,
          expect: { lastSequence: last },
          timeout: this.#ackTimeoutMs,
        });
        this.#next = ack.seq + 1;
        return ack.seq;
      } catch (error) {
        if (!wrongLastSequence(error)) throw error;
        // another writer appended between the read and the marker: read the end again
      }
    }
    throw new FencedError(`${this.stream}: another writer kept appending; could not fence`);
  }

  append(records: readonly Uint8Array[]): Promise<number[]> {
    if (this.#next === null)
      return Promise.reject(new FencedError(`${this.stream}: not fenced for writing (fence() first, or again after a failed append)`));
    if (records.length === 0) return Promise.resolve([]);
    const first = this.#next;
    this.#next += records.length;
    // every record in flight at once, each fenced on the sequence of the one before it
    const acks = records.map((bytes, i) => {
      const expect = headers();
      expect.set(PubHeaders.ExpectedLastSeqHdr, String(first + i - 1));
      return this.#inbox.publish(this.subject, bytes, { headers: expect, timeoutMs: this.#ackTimeoutMs });
    });
    // every answer is awaited: the first record that failed says why (the ones after it fail on the fence
    // because it is missing, whatever its own reason was)
    return Promise.allSettled(acks).then((results) => {
      const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
      if (failed === undefined) {
        return results.map((r, i) => {
          const seq = (r as PromiseFulfilledResult<{ seq: number }>).value.seq;
          if (seq !== first + i) throw new Error(`${this.stream}: record stored at ${seq}, expected ${first + i}`);
          return seq;
        });
      }
      this.#next = null;
      if (wrongLastSequence(failed.reason))
        throw new FencedError(
          `${this.stream}: refused, the log's end is not where this writer left it (${(failed.reason as Error).message})`,
        );
      throw failed.reason;
    });
  }

  /**
   * Yields the records from `from` up to the log's end as it was when the read began; markers are skipped.
   * With `strict`, throws a TruncatedError when records at or after `from` were let go (instead of going
   * on from the first record still held): a takeover must never skip a command. Whether they were is
   * asked of the leader, by the gets themselves, never of stream info: a replica that has lost sight of
   * its leader answers info with its own state, and one did so here for minutes with a first sequence past
   * records the leader still held, failing every takeover of the partition while its pings went unjudged.
   *
   * The records are read by message gets, READ_WINDOW in flight at once, not through a consumer: a get is
   * answered by the stream's leader, while creating a consumer needs the cluster's meta leader, which
   * after a server's loss can leave creations unanswered for a minute (docs/cluster.md, NATS server notes).
   * A get left unanswered for `idleTimeoutMs` rejects, and its caller reads again.
   */
  async *readFrom(
    from: number,
    options: { strict?: boolean; idleTimeoutMs?: number } = {},
  ): AsyncIterable<{ position: number; bytes: Uint8Array }> {
    const end = await this.lastPosition();
    const start = Math.max(from, 1);
    if (start > end) return;
    const idleMs = options.idleTimeoutMs ?? 10_000;
    for (let window = start; window <= end; window += READ_WINDOW) {
      const last = Math.min(window + READ_WINDOW - 1, end);
      const got = await Promise.all(Array.from({ length: last - window + 1 }, (_, i) => this.#getRecord(window + i, idleMs)));
      for (const [i, message] of got.entries()) {
        if (message === null) {
          // let go (the log is only ever cut from below): a strict reader must not skip it
          if (options.strict) throw new TruncatedError(`${this.stream}: asked to read from ${start}, record ${window + i} is gone`);
          continue;
        }
        if (!message.header?.has(FENCE_HEADER)) yield { position: message.seq, bytes: message.data };
      }
    }
  }

  /** The stored message at `seq` (null: let go), asked of the stream's leader; sent again while unanswered, for up to `idleMs`. */
  async #getRecord(seq: number, idleMs: number): Promise<StoredMsg | null> {
    const until = Date.now() + idleMs;
    for (;;) {
      try {
        return await this.#jsm.streams.getMessage(this.stream, { seq });
      } catch (error) {
        if (!unanswered(error) || Date.now() >= until) throw error;
      }
    }
  }

  async truncateBelow(position: number): Promise<void> {
    // nothing is below sequence 1, and a purge below 1 may empty the whole stream (docs/cluster.md, NATS server notes)
    if (position <= 1) return;
    await this.#jsm.streams.purge(this.stream, { seq: position });
  }

  /**
   * The position of the last record (or marker); 0 when nothing was ever written. Asked of the stream's
   * leader (a message get, never answered by a replica): stream info may be answered by a replica that is
   * still catching up after a restart, and a read that ended at its stale end would miss acknowledged
   * records (docs/cluster.md, NATS server notes). The reads up to this end are message
   * gets, answered by the leader too.
   */
  async lastPosition(): Promise<number> {
    const last = await this.#jsm.streams.getMessage(this.stream, { last_by_subj: this.subject });
    if (last !== null) return last.seq;
    return (await this.#jsm.streams.info(this.stream)).state.last_seq; // never written, or every record let go
  }
}
