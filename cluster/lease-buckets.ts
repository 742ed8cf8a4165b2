// A partition's lease as its bucket holds it (one bucket per partition, one key, reads from the stream's
// leader): read, written by compare-and-set on its revision, and the buckets' names; ownership.ts runs the rounds.
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import { wrongLastSequence } from "./nats-errors.ts";
import type { Lease, LeaseKey } from "./leases.ts";
import { decodeLease, encodeLease } from "./leases.ts";

/** The one key of a partition's lease bucket. */
export const LEASE_KEY = "owner";
/** The lease buckets' name unless a test names its own: partition p's bucket is `${LEASE_BUCKET}-${p}`. */
export const LEASE_BUCKET = "hcd-owner";
export const leaseBucket = (bucket: string, partition: number) => `${bucket}-${partition}`;
/** The partition whose lease bucket is kept in JetStream stream `stream`, or null for any other stream. */
export function leasedPartitionOf(stream: string, bucket: string): number | null {
  const prefix = `KV_${leaseBucket(bucket, 0).slice(0, -1)}`; // "KV_<bucket>-"
  const rest = stream.startsWith(prefix) ? stream.slice(prefix.length) : "";
  return /^\d+$/.test(rest) ? Number(rest) : null;
}
const leaseSubject = (bucket: string, partition: number) => `$KV.${leaseBucket(bucket, partition)}.${LEASE_KEY}`;
export const presenceKey = (node: string) => `node.${node}`;

/** The lease buckets of one cluster, each request waiting `requestTimeoutMs` at most. */
export class LeaseBuckets {
  readonly #js: JetStreamClient;
  readonly #jsm: JetStreamManager;
  readonly #bucket: string;
  readonly #requestTimeoutMs: number;

  constructor(js: JetStreamClient, jsm: JetStreamManager, bucket: string, requestTimeoutMs: number) {
    this.#js = js;
    this.#jsm = jsm;
    this.#bucket = bucket;
    this.#requestTimeoutMs = requestTimeoutMs;
  }

  /** Writes a lease (or a release) at `revision`: the new revision, or null when the compare-and-set failed; other errors (no quorum, timeouts) throw. */
  async write(partition: number, lease: Lease | null, revision: number): Promise<number | null> {
    try {
      const ack = await this.#js.publish(leaseSubject(this.#bucket, partition), encodeLease(lease), {
        expect: { lastSequence: revision },
        timeout: this.#requestTimeoutMs,
      });
      return ack.seq;
    } catch (error) {
      if (wrongLastSequence(error)) return null;
      throw error;
    }
  }

  /** The partition's lease and its revision; a lease never written is written "released" first, so that every claim is a compare-and-set. */
  async read(partition: number): Promise<LeaseKey> {
    let entry = await this.lastEntry(partition);
    if (entry === null) {
      // a lease never written: write "released" once so that every claim is a CAS on a revision. Two nodes
      // doing this at once both write "released" (harmless), and the message id makes the second a duplicate.
      await this.#js
        .publish(leaseSubject(this.#bucket, partition), encodeLease(null), {
          msgID: `${leaseBucket(this.#bucket, partition)}-first`,
          expect: { lastSubjectSequence: 0 },
          timeout: this.#requestTimeoutMs,
        })
        .catch((error: unknown) => {
          if (!wrongLastSequence(error)) throw error;
        });
      entry = await this.lastEntry(partition);
      if (entry === null) throw new Error(`${leaseBucket(this.#bucket, partition)}: no lease after the first write`);
    }
    return entry;
  }

  /** The lease's last revision, asked of its bucket's stream leader (a message get); null when never written. */
  async lastEntry(partition: number): Promise<LeaseKey | null> {
    const message = await this.#jsm.streams.getMessage(`KV_${leaseBucket(this.#bucket, partition)}`, {
      last_by_subj: leaseSubject(this.#bucket, partition),
    });
    if (message === null) return null;
    const deleted = message.header?.get("KV-Operation"); // DEL or PURGE: never written by hcd, read as released
    return { revision: message.seq, lease: deleted ? null : decodeLease(message.data) };
  }
}
