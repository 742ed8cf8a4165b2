// The pings a shard host takes from the front ends' intake logs, acknowledged there already: applied at once,
// none refused, committed with the shard's next commit; at start-up, those a crash left past its marks again.
import type { PingCommand } from "../engine/commands.ts";
import { decodeIntake, intakeShard, readIntake } from "../persistence/intake.ts";
import { IntakeLedger } from "./intake-ledger.ts";
import { shardOf } from "./routing.ts";
import type { IntakeBatch } from "./shard-requests.ts";

// Pings the front end acknowledged from its intake log reach this shard's own log with its next commit,
// at most this long after they were applied (sooner when a deadline or an API change commits first, or
// when they raise a notification). What is not committed yet is replayed from the intake log after a crash.
const INTAKE_COMMIT_MS = 500;

export type ShardIntakeOptions = {
  readonly index: number;
  readonly count: number;
  readonly dataDir: string;
  /** How long applied intake pings may wait for a commit (INTAKE_COMMIT_MS unless given). */
  readonly commitMs: number | undefined;
  /** Applies one intake ping to the shard. */
  readonly apply: (projectId: string, command: PingCommand) => void;
  /** How many notifications the shard's changes not yet committed hold. */
  readonly pendingNotifications: () => number;
  /** Commits what the shard changed (with the ledger's marks). */
  readonly commit: () => Promise<void>;
  /** True while commits fail (an episode): nothing is committed for a read then. */
  readonly failing: () => boolean;
  /** The last position of intake log `writer` that shard `shard`'s commits hold (persistence/intake.ts names shards). */
  readonly markOf: (writer: string, shard: string) => number;
};

export class ShardIntake {
  /** The intake pings applied here, until a commit of this shard holds them. */
  readonly ledger: IntakeLedger;
  readonly #options: ShardIntakeOptions;
  #commit: ReturnType<typeof setTimeout> | null = null;

  constructor(options: ShardIntakeOptions) {
    this.#options = options;
    this.ledger = new IntakeLedger(intakeShard(options.index, options.count));
  }

  /**
   * Applies pings the front end has made durable in its intake log (and acknowledged): nothing is refused
   * here, not even while commits fail. Their changes go with the next commit, at the latest after
   * INTAKE_COMMIT_MS; at once when they queued notifications.
   */
  receive(writer: string, { positions, ends, bytes }: IntakeBatch): void {
    for (let i = 0, start = 0; i < positions.length; start = ends[i++]) {
      const { projectId, command } = decodeIntake(bytes.subarray(start, ends[i]));
      this.#apply(writer, positions[i], projectId, command);
    }
    if (this.#options.pendingNotifications() > 0) this.commitSoon(0);
    else this.commitSoon(this.#options.commitMs ?? INTAKE_COMMIT_MS);
  }

  /** Applies the pings of intake logs `writers` (front ends gone) routed to this shard that its commits do not hold yet. */
  replay(writers: readonly string[]): void {
    const { index, count, dataDir } = this.#options;
    const mine = intakeShard(index, count);
    for (const writer of writers) {
      // a ping went to the shard of its time: SHARDS may have changed since, so either shard's mark may hold it
      const marks = new Map<string, number>();
      const markOf = (shard: string) => marks.get(shard) ?? marks.set(shard, this.#options.markOf(writer, shard)).get(shard)!;
      for (const { position, entry } of readIntake(dataDir, writer)) {
        if (shardOf(entry.projectId, count) !== index) continue;
        if (position <= markOf(entry.shard) || position <= markOf(mine)) continue;
        this.#apply(writer, position, entry.projectId, entry.command);
      }
    }
  }

  #apply(writer: string, position: number, projectId: string, command: PingCommand): void {
    this.#options.apply(projectId, command);
    this.ledger.applied(writer, position, command);
  }

  /** Commits the intake pings applied so far within `ms` (unless a commit is already set to come sooner). */
  commitSoon(ms: number): void {
    if (this.#commit !== null) {
      if (ms > 0) return;
      clearTimeout(this.#commit);
    }
    this.#commit = setTimeout(() => {
      this.#commit = null;
      void this.log(); // a failure starts the probe, which commits them later
    }, ms);
    this.#commit.unref();
  }

  /**
   * Commits the intake pings applied so far before a read of the store (the ping log, flips, the outbox):
   * unless commits are failing, when the read shows what the store holds.
   */
  async log(): Promise<void> {
    if (this.ledger.pending && !this.#options.failing()) await this.commit().catch(() => {});
  }

  /** Commits what the intake pings applied so far changed, if a commit has not already. */
  async commit(): Promise<void> {
    this.stop();
    if (this.ledger.pending) await this.#options.commit();
  }

  /**
   * Commits the intake pings applied so far (unless commits are failing), then returns the first position
   * of intake log `writer` this shard's log does not hold yet, or null when it holds every one handed to it.
   */
  async firstUnlogged(writer: string): Promise<number | null> {
    await this.log();
    return this.ledger.firstUnlogged(writer);
  }

  /** Cancels the commit set to come. */
  stop(): void {
    if (this.#commit !== null) clearTimeout(this.#commit);
    this.#commit = null;
  }
}
