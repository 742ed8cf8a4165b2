// The stretches of time each partition had no owner (CONTRACT "Alerting, third part"), in a replicated KV
// bucket every node reads: `p<partition>` → the partition's spans as JSON, oldest first. A new owner records
// the stretch from the last instant the partition's log shows judged to its takeover before it serves the
// partition; a change is compare-and-set on the key's revision, made again on the winner's value when
// another write came first. Status pages, uptime and the downtime table show those stretches as unknown.
import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import type { KV } from "@nats-io/kv";
import type { Downtime, Millis } from "../engine/model.ts";
import { KEEP_MS, mergeSpans } from "../persistence/unknown-time.ts";
import { openBucket } from "./jetstream-setup.ts";
import { wrongLastSequence } from "./nats-errors.ts";

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();
/** At most this many spans a partition (the newest). */
const MAX_SPANS = 1_000;
/** How long a read is answered from the node's copy (a status page is worked out every 5 s at most). */
const CACHE_MS = 2_000;

export class UnknownTimeBucket {
  readonly #kv: KV;
  readonly #connection: NatsConnection;
  readonly #bucket: string;
  readonly #clock: () => Millis;
  readonly #cache = new Map<number, { until: Millis; spans: Promise<readonly Downtime[]> }>();

  private constructor(kv: KV, connection: NatsConnection, bucket: string, clock: () => Millis) {
    this.#kv = kv;
    this.#connection = connection;
    this.#bucket = bucket;
    this.#clock = clock;
  }

  /** Opens (or creates) the bucket. */
  static async open(options: {
    connection: NatsConnection;
    replicas: number;
    bucket?: string;
    clock?: () => Millis;
  }): Promise<UnknownTimeBucket> {
    const bucket = options.bucket ?? "hcd-unknown-time";
    const kv = await openBucket(options.connection, bucket, { replicas: options.replicas, history: 1, allow_direct: false });
    return new UnknownTimeBucket(kv, options.connection, bucket, options.clock ?? Date.now);
  }

  /** Records that `partition` had no owner during `span` (merged with what is there); resolves once stored. */
  async record(partition: number, span: Downtime): Promise<void> {
    if (span.toAt <= span.fromAt) return;
    const key = keyOf(partition);
    const js = jetstream(this.#connection);
    for (;;) {
      const { spans, revision } = await this.#read(partition);
      const next = mergeSpans([...spans, span])
        .filter((s) => s.toAt > span.toAt - KEEP_MS)
        .slice(-MAX_SPANS);
      try {
        await js.publish(`$KV.${this.#bucket}.${key}`, utf8.encode(JSON.stringify(next.map((s) => [s.fromAt, s.toAt]))), {
          expect: { lastSubjectSequence: revision },
          timeout: 5_000,
        });
        this.#cache.delete(partition);
        return;
      } catch (error) {
        if (!wrongLastSequence(error)) throw error; // another owner stored first: merged again into its value
      }
    }
  }

  /** The partition's spans, oldest first (a copy at most CACHE_MS old). */
  spans(partition: number): Promise<readonly Downtime[]> {
    const now = this.#clock();
    const kept = this.#cache.get(partition);
    if (kept !== undefined && now < kept.until) return kept.spans;
    const spans = this.#read(partition).then((read) => read.spans);
    this.#cache.set(partition, { until: now + CACHE_MS, spans });
    spans.catch(() => {
      if (this.#cache.get(partition)?.spans === spans) this.#cache.delete(partition);
    }); // a failure is not kept
    return spans;
  }

  async #read(partition: number): Promise<{ spans: Downtime[]; revision: number }> {
    const entry = await this.#kv.get(keyOf(partition));
    if (entry === null || entry.operation !== "PUT") return { spans: [], revision: entry?.revision ?? 0 };
    const parsed: unknown = JSON.parse(fromUtf8.decode(entry.value));
    const spans = Array.isArray(parsed)
      ? parsed
          .filter((pair): pair is [number, number] => Array.isArray(pair) && pair.length === 2 && pair.every(Number.isFinite))
          .map(([fromAt, toAt]) => ({ fromAt, toAt }))
      : [];
    return { spans, revision: entry.revision };
  }
}

function keyOf(partition: number): string {
  return `p${partition}`;
}
