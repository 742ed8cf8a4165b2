// A partition's newest snapshot in an R3 stream of its own: chunks of at most 256 kB, then a head naming
// them and the log position covered; never written over a newer one.
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import { headers } from "@nats-io/nats-core";
import { keptUntilPurged, openPartitionStream } from "./jetstream-setup.ts";
import type { PartitionStream, PartitionStreamOptions } from "./jetstream-setup.ts";
import type { PartitionSnapshot, SnapshotHead } from "./partition-codec.ts";
import { decodeSnapshot, decodeSnapshotHead, encodeSnapshot, encodeSnapshotHead } from "./partition-codec.ts";
import { wrongLastSequence } from "./nats-errors.ts";

export const CHUNK_BYTES = 256 * 1024;

/** Subjects `${subjectPrefix}.${partition}.chunk|head` (default prefixes HCD_SNAP, hcd.snap). */
export type SnapshotStoreOptions = PartitionStreamOptions;

/** A snapshot as read back: its state and the log position it covers. */
export type StoredSnapshot = { readonly logSequence: number; readonly snapshot: PartitionSnapshot; readonly bytes: number };

/** What a save did: stored (at the head's stream sequence), or skipped because a snapshot at `newer` (≥ ours) is there. */
export type SaveOutcome = { readonly saved: true; readonly head: SnapshotHead } | { readonly saved: false; readonly newer: number };

/**
 * Invariants:
 * - every message is published with the stream-wide expected last sequence (a snapshot pipelined as the
 *   log's batches are), and a writer first reads the newest head and writes only a snapshot of a later
 *   position: a deposed owner either skips, or its messages are refused on the sequence;
 * - once a head is stored, everything before its first chunk is let go; a reader of an older snapshot
 *   then fails and reads the newest one again.
 */
export class SnapshotStore {
  readonly stream: string;
  readonly #chunkSubject: string;
  readonly #headSubject: string;
  readonly #js: JetStreamClient;
  readonly #jsm: JetStreamManager;
  readonly #ackTimeoutMs: number;

  private constructor(options: PartitionStream) {
    this.stream = options.stream;
    this.#chunkSubject = `${options.subject}.chunk`;
    this.#headSubject = `${options.subject}.head`;
    this.#js = options.js;
    this.#jsm = options.jsm;
    this.#ackTimeoutMs = options.ackTimeoutMs;
  }

  /** Creates the partition's snapshot stream if it does not exist. */
  static async open(options: SnapshotStoreOptions): Promise<SnapshotStore> {
    return new SnapshotStore(
      await openPartitionStream(options, { streamPrefix: "HCD_SNAP", subjectPrefix: "hcd.snap" }, (subject) =>
        keptUntilPurged([`${subject}.*`]),
      ),
    );
  }

  /** The newest stored head, or null when no snapshot was ever stored. */
  async head(): Promise<{ head: SnapshotHead; sequence: number } | null> {
    const message = await this.#jsm.streams.getMessage(this.stream, { last_by_subj: this.#headSubject });
    return message === null ? null : { head: decodeSnapshotHead(message.data), sequence: message.seq };
  }

  /**
   * Stores a snapshot covering the log up to `logSequence` (inclusive) unless a snapshot at that position
   * or later is stored; rejects when another writer's messages landed meanwhile (refused on the sequence).
   */
  async save(logSequence: number, snapshot: PartitionSnapshot): Promise<SaveOutcome> {
    const newest = await this.head();
    if (newest !== null && newest.head.logSequence >= logSequence) return { saved: false, newer: newest.head.logSequence };
    const last = (await this.#jsm.streams.info(this.stream)).state.last_seq;
    if (newest !== null && newest.sequence > last)
      throw new Error(`${this.stream}: stream info behind its head (${last} < ${newest.sequence}); try again`);
    const body = encodeSnapshot(snapshot);
    const chunks: Uint8Array[] = [];
    for (let offset = 0; offset < body.length; offset += CHUNK_BYTES) chunks.push(body.subarray(offset, offset + CHUNK_BYTES));
    const head: SnapshotHead = { logSequence, firstChunk: last + 1, chunks: chunks.length, bytes: body.length };
    const messages = [
      ...chunks.map((bytes) => ({ subject: this.#chunkSubject, bytes })),
      { subject: this.#headSubject, bytes: encodeSnapshotHead(head) },
    ];
    const marked = headers();
    marked.set("Hcd-Log-Sequence", String(logSequence));
    const acks = messages.map((m, i) =>
      this.#js.publish(m.subject, m.bytes, { headers: marked, expect: { lastSequence: last + i }, timeout: this.#ackTimeoutMs }),
    );
    const results = await Promise.allSettled(acks);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed !== undefined) {
      if (wrongLastSequence(failed.reason)) {
        throw new Error(`${this.stream}: another snapshot was written meanwhile; this one was refused`);
      }
      throw failed.reason;
    }
    // older snapshots go; nothing is below sequence 1, and a purge below 1 may empty the whole stream
    // (docs/cluster.md, NATS server notes)
    if (head.firstChunk > 1) await this.#jsm.streams.purge(this.stream, { seq: head.firstChunk });
    return { saved: true, head };
  }

  /** The newest snapshot, or null when none was stored; read again when it was let go under the read. */
  async load(): Promise<StoredSnapshot | null> {
    for (let attempt = 0; ; attempt++) {
      const newest = await this.head();
      if (newest === null) return null;
      const parts: Uint8Array[] = [];
      for (let i = 0; i < newest.head.chunks; i++) {
        const chunk = await this.#jsm.streams.getMessage(this.stream, { seq: newest.head.firstChunk + i });
        if (chunk === null) break;
        parts.push(chunk.data);
      }
      if (parts.length === newest.head.chunks) {
        const body = Buffer.concat(parts);
        if (body.length !== newest.head.bytes)
          throw new Error(`${this.stream}: snapshot of ${newest.head.bytes} bytes read as ${body.length}`);
        return { logSequence: newest.head.logSequence, snapshot: decodeSnapshot(body), bytes: body.length };
      }
      // a newer snapshot replaced this one while it was read: its chunks are gone; read the newer one
      if (attempt >= 5)
        throw new Error(`${this.stream}: snapshot chunk ${newest.head.firstChunk + parts.length} gone, ${attempt + 1} times`);
    }
  }
}
