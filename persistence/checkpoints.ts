// A store's checkpoints: the commits its log holds and its tables do not yet, applied to the tables once
// enough is pending or the oldest is old, in slices between the pings the thread serves; held during a backup.
import type { Changes } from "../engine/changes.ts";
import type { FileLog } from "./file-log.ts";
import { applyChanges, bulkWrites, ChangesMerger, checkpointedSeq, issueBulk, markCheckpointed, splitChanges } from "./journal.ts";
import type { BulkWrite } from "./journal.ts";
import type { LogOverlay } from "./log-overlay.ts";
import type { Tables } from "./tables.ts";
import { FAULTS_ARMED, failIfInjected } from "./write-faults.ts";
import { observed } from "./open.ts";
import type { Durability } from "./open.ts";

// A checkpoint runs once this much is in the log, or its oldest commit is this old. Each checkpoint
// rewrites a page or more of every check it touches (checks and ping logs are keyed by check, so pages
// are scattered): the more pings of each check it carries, the fewer bytes each ping costs. Measured at
// 1,000 checks: at most 2,000 pings a checkpoint wrote 4-9 kB a ping to the tables; 25,000 write a
// few hundred bytes. The bounds keep a restart's replay short (well under a second) and the commits held
// in memory until then bounded (tens of MB at most).
const CHECKPOINT_COMMITS = 25_000;
const CHECKPOINT_PINGS = 25_000;
const CHECKPOINT_LOG_BYTES = 32 * 1024 * 1024;
const CHECKPOINT_AGE_MS = 60_000;
// A checkpoint runs in the shard's thread, between the pings it serves, so it works in slices and lets
// the event loop run between them: commits are merged (and, once in the tables, dropped from the overlay
// of what reads see) CHECKPOINT_COMMIT_SLICE at a time, and writes encoded
// CHECKPOINT_ENCODE_SLICE at a time; only issuing a batch's encoded writes to LMDB (a few microseconds
// each) is done at once. Done at once, merging and encoding 25,000 pings held the thread 530-610 ms, and
// every ping that came meanwhile waited: at a steady 200 pings/s, the slowest answer of 70 s (one
// checkpoint) took 348-376 ms, against 122-149 ms in slices of 500 (2 runs each, alternated). Slices of
// 100 rather than 500 (4 runs each, alternated, `node dist/bench/tail.bench.js`): the slowest answer
// 135 → 95 ms and p99.9 93 → 59 ms (medians); p99 unchanged within the noise (18.1 and 17.2 ms).
// Checks and pings per batch (transaction) of a checkpoint: every checkpoint of up to CHECKPOINT_PINGS
// pings of a few thousand checks is one, as more transactions write more (batches of 500 wrote 1.35-1.6x
// the bytes per ping of one, same-run medians); a bigger one (a restore of many checks, a burst of flips)
// is cut so that the writes LMDB holds for one transaction stay bounded (tens of MB).
const CHECKPOINT_BATCH = 50_000;
const CHECKPOINT_COMMIT_SLICE = 100;
const CHECKPOINT_ENCODE_SLICE = 100;
// The checkpoints of the stores of one thread (an in-process pool's shards) run one after another: two
// stores' LMDB batches in flight at once in one thread waited for each other forever (an in-process
// pool of two shards never closed after 10,000 checks were created and 100 deleted).
let checkpointsOfThisThread: Promise<unknown> = Promise.resolve();

/** Resolves in a later turn of the event loop, after the I/O waiting now (pings) is served. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
/** A commit in the log (seq: its position there, 0 while being written) and what it changed. */
export type Journaled = { seq: number; readonly changes: Changes };

export type CheckpointsOptions = {
  readonly dir: string;
  readonly tables: Tables;
  /** The store's writer id: its log and its mark in the tables. */
  readonly writer: string;
  readonly durability: Durability;
  readonly log: FileLog;
  /** What readers see of the commits not yet in the tables: a commit leaves it once the tables hold it. */
  readonly overlay: LogOverlay;
  /** Hears how long each checkpoint took, in seconds. */
  readonly onCheckpoint: (seconds: number) => void;
};

export class Checkpoints {
  readonly #options: CheckpointsOptions;
  #pending: Journaled[] = []; // journaled (durable), waiting for a checkpoint
  #applying: Journaled[][] = []; // taken by checkpoints still writing them: readers see them here
  #pings = 0;
  #bytes = 0;
  #since: number | null = null; // performance.now() of the oldest pending commit
  #failed = false; // the last one failed: what it took is pending again, retry soon
  #checkpointed = 0; // the seq of the last commit the tables hold
  #last: Promise<void> = Promise.resolve();
  #held: Promise<void> | null = null; // while set, checkpoints wait (a backup is copying the files)
  #afterHold: Promise<void> | null = null;

  constructor(options: CheckpointsOptions) {
    this.#options = options;
  }

  /** A commit the log now holds, its record `bytes` long: a checkpoint starts once the log holds enough. */
  logged(journaled: Journaled, bytes: number): void {
    this.#pending.push(journaled);
    this.#pings += journaled.changes.pings.length;
    this.#bytes += bytes;
    this.#since ??= performance.now();
    const full = this.#pending.length >= CHECKPOINT_COMMITS || this.#pings >= CHECKPOINT_PINGS || this.#bytes >= CHECKPOINT_LOG_BYTES;
    if (full) void this.run().catch(() => {});
  }

  /** The changes of the commits logged and not yet in the tables, oldest first. */
  unapplied(): Changes[] {
    return [...this.#applying.flat(), ...this.#pending].map((j) => j.changes);
  }

  /** The seq of the last commit the tables hold. */
  get checkpointed(): number {
    return this.#checkpointed;
  }

  /**
   * Applies every commit logged so far to the tables, then drops them from the log; resolves when the
   * tables show them. Reads of the outbox call this first. The upserts, pings, trims and flips as one
   * batch of asynchronous writes (LMDB's write thread applies them while the shard's event loop runs on;
   * more than one past CHECKPOINT_BATCH), then the outbox, the deletions and the mark in one transaction.
   * Few transactions rather than many small ones: each transaction rewrites every page it touches, and
   * pages it shares with the next one are written again (measured at 1,000 checks of 100 pings, 12
   * pings a check: transactions of 1,000 pings wrote 5.3-9.5 kB a ping, one transaction 2.2-3.8 kB).
   */
  run(): Promise<void> {
    if (this.#held !== null)
      return (this.#afterHold ??= this.#held.then(() => {
        this.#afterHold = null;
        return this.run();
      }));
    const taken = this.#pending.splice(0); // commits logged before this call
    this.#pings = 0;
    this.#bytes = 0;
    this.#since = null;
    this.#failed = false;
    if (taken.length === 0) return this.#last;
    this.#options.log.roll(); // later commits go to a new segment, so that the ones holding `taken` can go
    this.#applying.push(taken);
    const settled = () => {
      this.#applying = this.#applying.filter((list) => list !== taken);
    };
    const inTables = async () => {
      settled();
      for (let i = 0; i < taken.length; i += CHECKPOINT_COMMIT_SLICE) {
        if (i > 0) await nextTurn();
        this.#options.overlay.remove(taken.slice(i, i + CHECKPOINT_COMMIT_SLICE).map((t) => t.changes));
      }
    };
    const { tables, writer, dir, durability } = this.#options;
    const lastSeq = taken[taken.length - 1].seq;
    const startedAt = performance.now();
    // Another thread's replay may have applied some already (a shard that opened while we wrote).
    // Applying them again is harmless, except an outbox entry delivered meanwhile, which would come
    // back: the last transaction checks each entry against the mark inside it.
    const outboxSeq = new Map(taken.flatMap((t) => t.changes.outbox.map((e) => [e.id, t.seq] as const)));
    const applied = Promise.all([this.#last, checkpointsOfThisThread])
      .then(async () => {
        if (FAULTS_ARMED) failIfInjected(dir);
        const merger = new ChangesMerger();
        for (let i = 0; i < taken.length; i++) {
          merger.add(taken[i].changes);
          if ((i + 1) % CHECKPOINT_COMMIT_SLICE === 0) await nextTurn();
        }
        const { bulk, rest } = splitChanges(merger.result(), CHECKPOINT_BATCH);
        for (const piece of bulk) {
          const writes: BulkWrite[] = [];
          for (const write of bulkWrites(tables, piece)) {
            if (writes.push(write) % CHECKPOINT_ENCODE_SLICE === 0) await nextTurn();
          }
          await observed(tables.env.batch(() => issueBulk(writes)));
        }
        await observed(
          tables.env.childTransaction(() => {
            const doneNow = checkpointedSeq(tables, writer);
            applyChanges(tables, { ...rest, outbox: rest.outbox.filter((e) => (outboxSeq.get(e.id) ?? 0) > doneNow) });
            markCheckpointed(tables, writer, lastSeq);
          }),
        );
      })
      .then(
        async () => {
          await inTables();
          this.#options.onCheckpoint((performance.now() - startedAt) / 1000);
          // the tables hold them now; once that is on disk they may leave the log (a record left behind by
          // a crash here is skipped by its mark)
          if (durability === "flush") await tables.env.flushed;
          this.#checkpointed = Math.max(this.#checkpointed, lastSeq);
          await this.#options.log.truncateBelow(lastSeq + 1).catch(() => undefined);
        },
        (error: unknown) => {
          settled();
          this.#pending.unshift(...taken); // still journaled: the next checkpoint (or a restart) applies them
          this.#since ??= performance.now();
          this.#failed = true;
          throw error;
        },
      );
    this.#last = applied.catch(() => undefined); // a later checkpoint doesn't inherit this failure
    checkpointsOfThisThread = this.#last;
    return applied;
  }

  /** Returns true when a checkpoint should run although none filled up: the oldest commit in the log is old enough, or the last checkpoint failed. */
  due(): boolean {
    if (this.#pending.length === 0) return false;
    return this.#failed || performance.now() - (this.#since ?? Infinity) >= CHECKPOINT_AGE_MS;
  }

  /** Returns how many commits are in the log and not yet applied to the tables. */
  count(): number {
    return this.#pending.length + this.#applying.reduce((sum, list) => sum + list.length, 0);
  }

  /** Stops checkpoints until the returned release is called; resolves once the one in progress is done (its log segments removed). */
  async hold(): Promise<() => void> {
    if (this.#held !== null) throw new Error("checkpoints are already held");
    let release = () => {};
    this.#held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await this.#last;
    return () => {
      this.#held = null;
      release();
    };
  }
}
