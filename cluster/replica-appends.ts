// A partition replica's flush loop: the commands submitted while an append is in flight go together in the
// next one, as few log messages as their size allows, and are applied in log order only after the PubAcks.
import type { ShardCommand } from "../engine/commands.ts";
import { log } from "../host/log.ts";
import type { JetStreamLog } from "./jetstream-log.ts";
import type { PartitionRecord } from "./partition-codec.ts";
import { encodeRecord, logMessagesOf } from "./partition-codec.ts";
import { sameGeneration } from "./replica-state.ts";
import type { Standing } from "./replica-state.ts";
import { NotOwnerError, SupersededError } from "./replica-types.ts";
import type { Submitted } from "./replica-types.ts";

/** Commands submitted together: appended in one append, never split. */
type Pending = {
  records: PartitionRecord[];
  bytes: Uint8Array[];
  resolve: (applied: Submitted<ShardCommand>[]) => void;
  reject: (error: unknown) => void;
};

export type AppendQueueOptions = {
  readonly partition: number;
  readonly log: Pick<JetStreamLog, "append">;
  /** Most records in one append. */
  readonly maxBatch: number;
  /** Most bytes of records in one log message (a larger record goes alone). */
  readonly maxMessageBytes: number;
  /** The replica's standing now. */
  readonly standing: () => Standing;
  /** An append sent in `generation` failed (the replica's standing changes; the queue refuses what waits). */
  readonly appendFailed: (error: unknown, generation: number) => void;
  /** Applies an appended record (a record of the message at `position`, at `index` in it); what its submitter waits for. */
  readonly apply: (
    position: number,
    index: number,
    record: PartitionRecord,
  ) => { submitted: Submitted<ShardCommand>; beforeAnswer: Promise<void> };
  /** Called after each batch applied (a snapshot may be due). */
  readonly afterBatch: () => void;
  /** The flush itself failed (an apply threw): nothing more is written. */
  readonly flushFailed: (error: unknown) => void;
};

export class AppendQueue {
  readonly #options: AppendQueueOptions;
  #queue: Pending[] = [];
  #flushing: Promise<void> | null = null; // the flush running, if any

  constructor(options: AppendQueueOptions) {
    this.#options = options;
  }

  /** The flush running, if any: a takeover waits for it, so its append lands before the fence and is replayed. */
  get flushing(): Promise<void> | null {
    return this.#flushing;
  }

  /** Queues records for the next append; resolves once each is applied, in order. */
  enqueue(records: PartitionRecord[]): Promise<Submitted<ShardCommand>[]> {
    return new Promise<Submitted<ShardCommand>[]>((resolve, reject) => {
      this.#queue.push({ records, bytes: records.map(encodeRecord), resolve, reject });
      this.#startFlush();
    });
  }

  /** Refuses everything queued and not yet appended. */
  rejectAll(error: unknown): void {
    for (const pending of this.#queue.splice(0)) pending.reject(error);
  }

  /** Starts a flush unless one runs; one that ends with commands queued meanwhile (in its last microtasks) is followed by another. */
  #startFlush(): void {
    if (this.#flushing !== null) return;
    const flushing = this.#flush().catch((error: unknown) => this.#options.flushFailed(error));
    this.#flushing = flushing;
    void flushing.then(() => {
      this.#flushing = null;
      if (this.#queue.length > 0) this.#startFlush();
    });
  }

  /**
   * Appends and applies the queued commands, a batch at a time, until the queue is empty. For each batch:
   * 1. take up to maxBatch records, never splitting what was submitted together;
   * 2. refuse it (NotOwnerError: safe to send again) unless the replica is the owner;
   * 3. append it as few log messages as its size allows, noting the generation it was sent in;
   * 4. on a failed append: the standing changes (fenced: deposed; else stale, as part of it may be
   *    stored), and this batch and everything queued are refused;
   * 5. when a takeover began while it was in flight: refuse it with SupersededError (stored, and replayed by
   *    that takeover: sending it again would count it twice);
   * 6. apply its records in log order (a message's records share its position, told apart by index) and
   *    answer each submitter once its records' effects (the part it waits for) are stored.
   * Invariants: nothing is applied that the log does not hold, and the shard's order is the log's.
   */
  async #flush(): Promise<void> {
    const { partition, standing } = this.#options;
    while (this.#queue.length > 0) {
      const batch = this.#takeBatch();
      const before = standing();
      if (before.state !== "owner") {
        for (const pending of batch) pending.reject(new NotOwnerError(`partition ${partition}: ${before.state}, not the owner`));
        continue;
      }
      const generation = before.generation;
      const messages = logMessagesOf(
        batch.flatMap((pending) => pending.bytes),
        this.#options.maxMessageBytes,
      );
      let positions: number[];
      try {
        positions = await this.#options.log.append(messages.map((message) => message.bytes));
      } catch (error) {
        this.#options.appendFailed(error, generation);
        log.warn({ partition, state: standing().state, err: error }, "cluster: a partition's append failed; it stops writing");
        for (const pending of [...batch, ...this.#queue.splice(0)]) pending.reject(error);
        break;
      }
      if (!sameGeneration(standing(), generation)) {
        for (const pending of batch)
          pending.reject(new SupersededError(`partition ${partition}: appended, then taken over again before it was applied`));
        continue;
      }
      try {
        let message = 0,
          index = 0;
        for (const pending of batch) {
          const answers = pending.records.map((record) => {
            if (index === messages[message].count) {
              message += 1;
              index = 0;
            }
            return this.#options.apply(positions[message], index++, record);
          });
          answers[answers.length - 1].beforeAnswer.then(() => pending.resolve(answers.map((a) => a.submitted)), pending.reject);
        }
      } catch (error) {
        for (const pending of batch) pending.reject(error); // those answered already keep their answer
        throw error;
      }
      this.#options.afterBatch();
    }
  }

  /** The next pendings to append together: up to maxBatch records, and at least one pending (never split). */
  #takeBatch(): Pending[] {
    let count = this.#queue[0].records.length,
      taken = 1;
    while (taken < this.#queue.length && count + this.#queue[taken].records.length <= this.#options.maxBatch)
      count += this.#queue[taken++].records.length;
    return this.#queue.splice(0, taken);
  }
}
