// Following a KV bucket with a watch that starts again after its last revision when it ends or goes silent
// (its consumer lost with its server while the connection stays up).
import type { KV, KvWatchEntry } from "@nats-io/kv";
import { ClosedConnectionError } from "@nats-io/nats-core";
import { retriedWhileSettling } from "./jetstream-setup.ts";

/** What a watch had applied, and how far its bucket was, at a look. */
export type WatchLook = { readonly applied: number; readonly bucket: number };

/** Whether a watch at `applied` now has stalled since `last`: nothing applied since, though the bucket was ahead then. */
export function watchStalled(last: WatchLook, applied: number): boolean {
  return applied === last.applied && applied < last.bucket;
}

export type BucketFollowerOptions = {
  /** The keys followed (a KV key pattern). */
  readonly key: string;
  /** Every entry, in revision order; an entry may come again after a restart (its revision tells). */
  readonly onEntry: (entry: KvWatchEntry) => void;
  /** How often the watch is looked at (default 2,000 ms; 0: never, the caller tells it with expect()). */
  readonly checkEveryMs?: number;
};

/**
 * The client notices a lost consumer only after missed heartbeats (docs/cluster.md, NATS server notes): a
 * node would not hear a sign-out for a minute. So the bucket is looked at every checkEveryMs, and a watch
 * that applied nothing between two looks while the bucket was ahead at the first (watchStalled) starts
 * again; one that ends starts again after a pause (100 ms, doubling up to 2 s).
 */
export class BucketFollower {
  readonly #kv: KV;
  readonly #options: BucketFollowerOptions;
  #applied = 0;
  #last: WatchLook = { applied: 0, bucket: 0 };
  #watch: { stop(): void } | null = null;
  #timer: ReturnType<typeof setInterval> | null = null;
  #closed = false;
  #restarts = 0;

  private constructor(kv: KV, options: BucketFollowerOptions) {
    this.#kv = kv;
    this.#options = options;
  }

  /** Starts following: resolves once the first watch is made (its first entries are the keys' present values). */
  static async start(kv: KV, options: BucketFollowerOptions): Promise<BucketFollower> {
    const follower = new BucketFollower(kv, options);
    const first = await follower.#open();
    void follower.#follow(first);
    const every = options.checkEveryMs ?? 2_000;
    if (every > 0) {
      follower.#timer = setInterval(() => void follower.#look().catch(() => {}), every);
      follower.#timer.unref();
    }
    return follower;
  }

  /** How many times the watch was started again. */
  get restarts(): number {
    return this.#restarts;
  }

  /** Starts the watch again unless it has applied `revision`, one the caller wrote a while ago (a free look). */
  expect(revision: number): void {
    if (this.#applied < revision && !this.#closed) this.#watch?.stop();
  }

  stop(): void {
    this.#closed = true;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#watch?.stop();
  }

  async #open(): Promise<AsyncIterable<KvWatchEntry> & { stop(): void }> {
    const from = this.#applied;
    const watch = await retriedWhileSettling(() =>
      this.#kv.watch(from > 0 ? { key: this.#options.key, resumeFromRevision: from + 1 } : { key: this.#options.key }),
    );
    this.#watch = watch;
    if (this.#closed) watch.stop();
    return watch;
  }

  /** Applies the watch's entries; when it ends (stopped as stalled, or lost), opens another, until stopped. */
  async #follow(first: AsyncIterable<KvWatchEntry>): Promise<void> {
    let watch: AsyncIterable<KvWatchEntry> | null = first;
    let pause = 100;
    while (!this.#closed) {
      try {
        watch ??= await this.#open();
        for await (const entry of watch) {
          if (entry.revision <= this.#applied) continue; // again, after a restart
          this.#applied = entry.revision;
          this.#options.onEntry(entry);
          pause = 100;
        }
      } catch (error) {
        if (error instanceof ClosedConnectionError) break; // it ends with the connection
        // cut off for now, or the consumer could not be made: tried again below
      }
      watch = null;
      if (this.#closed) break;
      this.#restarts += 1;
      await new Promise((resolve) => setTimeout(resolve, pause).unref());
      pause = Math.min(pause * 2, 2_000);
    }
  }

  async #look(): Promise<void> {
    const bucket = (await this.#kv.status()).streamInfo.state.last_seq;
    const stalled = watchStalled(this.#last, this.#applied);
    this.#last = { applied: this.#applied, bucket };
    if (stalled && !this.#closed) this.#watch?.stop(); // #follow opens the next
  }
}
