// One node's partitions: those ownership gives it taken over by their replicas, those it loses abandoned, the
// owned ones advanced on a timer, and commands for partitions it does not serve refused (NotOwnerError).
import type { NatsConnection } from "@nats-io/nats-core";
import type { ShardCommand } from "../engine/commands.ts";
import type { Millis } from "../engine/model.ts";
import type { Shard } from "../engine/shard.ts";
import { FailureEpisodes } from "../host/failure-episodes.ts";
import { log } from "../host/log.ts";
import { Ownership } from "./ownership.ts";
import type { RoundReport } from "./ownership.ts";
import type { FenceToken } from "./jetstream-log.ts";
import type { PartitionReplicaOptions, Submitted, TakeoverReport } from "./partition-replica.ts";
import { NotOwnerError, PartitionReplica } from "./partition-replica.ts";
import { partitionOf } from "./partitions.ts";

/** How often an owned partition's log records how far the intake stream was read, when no ping or advance did. */
const MARK_EVERY_MS = 5_000;
/** How long a partition's takeovers may keep failing before the node hands it off to another. */
const HAND_OFF_AFTER_MS = 30_000;
/** How long a node that handed a partition off takes no partition (the others' shares are counted without it). */
const HAND_OFF_FOR_MS = 60_000;

export type PartitionNodeOptions = {
  connection: NatsConnection;
  node: string;
  partitionCount: number;
  replicas: number;
  leaseMs?: number;
  renewEveryMs?: number;
  /** A partition's records are stored in a snapshot at most this long after they were applied (default 5 min). */
  snapshotAfterMs?: number;
  /** How often owned partitions advance to now (default 1 s). */
  advanceEveryMs?: number;
  /** The wall clock (epoch ms). */
  clock?: () => Millis;
  /** Passed on to every replica (snapshot interval, batch size, stream prefixes, onApplied). */
  replica?: Omit<PartitionReplicaOptions, "connection" | "partition" | "replicas">;
  /** Options of a partition's replica that depend on the partition (its effects), asked for once before it opens. */
  prepare?: (partition: number) => Promise<Partial<PartitionReplicaOptions>>;
  /**
   * How far the intake stream's pings of the partition are queued for its log (intake-follower.ts sendLingering:
   * it sends the lingering ones first), or null; an advance records it every few seconds.
   */
  intakeMark?: (partition: number) => number | null;
  /** How far a partition's deadlines may be judged at `now`, its intake pings queued up to `handed` (cluster/ping-watermarks.ts; default: up to now). */
  judgeUpTo?: (partition: number, now: Millis, handed: number) => Millis;
  /** A takeover's catch-up (PartitionReplica.takeOver): the partition's acknowledged pings its log lacks, before any deadline is judged. */
  catchUp?: (partition: number, replica: PartitionReplica, now: Millis) => Promise<Millis>;
  /** Called after each takeover this node completes; the partition is served once this resolves. */
  onTakeover?: (partition: number, report: TakeoverReport, replica: PartitionReplica) => void | Promise<void>;
  /** Called once a partition is served here (replica() answers it), right after onTakeover. */
  onServed?: (partition: number) => void;
  /** Called when a partition is no longer this node's. */
  onLost?: (partition: number) => void;
  /** Called when this node forgets a lost partition's replica: what `prepare` made for it can go too. */
  onDropped?: (partition: number) => void;
  /** Where failed takeovers, snapshots, advances and ownership rounds are logged and counted (default: a fresh one). */
  failures?: FailureEpisodes;
  /** A partition whose takeovers keep failing this long is handed off to another node (default HAND_OFF_AFTER_MS). */
  handOffAfterMs?: number;
  /** And this node takes no partition for this long after (default HAND_OFF_FOR_MS). */
  handOffForMs?: number;
};

/**
 * The timer also takes over again every partition the node holds but does not serve: its replica stopped
 * after a failed write (rebuilt from the snapshot and the log), or a takeover gave up while the lease had
 * lapsed for a moment before a renewal kept it.
 */
export class PartitionNode {
  readonly node: string;
  readonly #options: PartitionNodeOptions;
  readonly #clock: () => Millis;
  readonly #failures: FailureEpisodes;
  readonly #replicas = new Map<number, PartitionReplica>();
  readonly #gaining = new Set<number>(); // partitions being taken over
  readonly #served = new Set<number>(); // partitions taken over here, onTakeover done, and not lost since
  readonly #unsnapshotSince = new Map<number, Millis>(); // owned partitions: when records were first seen past the last snapshot
  readonly #markedAt = new Map<number, Millis>(); // owned partitions: when an advance last recorded how far the intake stream was read
  #ownership: Ownership | null = null;
  #timer: NodeJS.Timeout | null = null;

  private constructor(options: PartitionNodeOptions) {
    this.node = options.node;
    this.#options = options;
    this.#clock = options.clock ?? Date.now;
    this.#failures = options.failures ?? new FailureEpisodes();
  }

  /** Opens the ownership buckets; nothing is claimed until start(). */
  static async open(options: PartitionNodeOptions): Promise<PartitionNode> {
    const node = new PartitionNode(options);
    node.#ownership = await Ownership.open({
      connection: options.connection,
      node: options.node,
      partitionCount: options.partitionCount,
      replicas: options.replicas,
      leaseMs: options.leaseMs,
      renewEveryMs: options.renewEveryMs,
      clock: node.#clock,
      onGained: (partition, revision, previous) => {
        log.info({ partition, revision }, "cluster: partition gained");
        // another node's lease: that node was last seen serving the partition when it wrote it
        void node.#gain(partition, previous !== null && previous.node !== node.node ? previous.writtenAt : null);
      },
      onLost: (partition) => {
        node.#served.delete(partition);
        node.#replicas.get(partition)?.abandon();
        // its shard goes with it (memory follows ownership); a takeover under way ends by itself, as the
        // partition is not owned any more, and a gain later opens a fresh replica
        if (!node.#gaining.has(partition)) node.#drop(partition);
        node.#unsnapshotSince.delete(partition);
        node.#markedAt.delete(partition);
        node.#failures.forget(`partition ${partition}`);
        options.onLost?.(partition);
      },
      onRound: (outcome) => node.#roundDone(outcome),
    });
    return node;
  }

  /** Claims and renews partitions, and advances the owned ones every advanceEveryMs. */
  start(): void {
    this.#owned().start();
    this.#timer ??= setInterval(() => {
      for (const partition of this.#owned().owned()) {
        const replica = this.#replicas.get(partition);
        if (replica !== undefined && replica.state === "owner" && this.#served.has(partition)) {
          // an advance is a log record: appended only when a deadline is due, not every tick; and never
          // past a ping some node has stamped and not yet had answered (it may be on its way here)
          const now = this.#clock(),
            due = replica.read((shard) => shard.nextDueAt());
          const handed = this.#options.intakeMark?.(partition) ?? null;
          const upTo = this.#options.judgeUpTo?.(partition, now, handed ?? 0) ?? now;
          // how far the intake stream was read is recorded every few seconds even when nothing is due: a
          // takeover reads the stream on from there, not from the partition's last ping
          const mark = handed !== null && handed > replica.intakeMark && now - (this.#markedAt.get(partition) ?? 0) >= MARK_EVERY_MS;
          if (upTo > -Infinity && ((due !== null && due <= upTo) || mark)) {
            if (mark) this.#markedAt.set(partition, now);
            // refused: lost (not a failure), or retried next tick
            replica.advance(upTo, handed ?? undefined).then(
              () => this.#failures.succeeded("advance", `partition ${partition}`),
              (error: unknown) => {
                if (!(error instanceof NotOwnerError)) this.#failures.failed("advance", `partition ${partition}`, error);
              },
            );
          }
          this.#snapshotIfOld(partition, replica, now);
        } else if (!this.#gaining.has(partition)) {
          // held but not served: its replica stopped after a failed write, or a takeover gave up while the
          // lease had lapsed for a moment and was renewed after (no new gain is announced for a lease still held)
          void this.#gain(partition, null);
        }
      }
    }, this.#options.advanceEveryMs ?? 1_000);
  }

  /**
   * Stores a snapshot of a partition whose records since the last one are older than snapshotAfterMs,
   * however few: a takeover then replays minutes of records at most, well inside the duplicate windows of
   * the history (10 min) and the notification queue (1 h), which drop what a replay stores again.
   */
  #snapshotIfOld(partition: number, replica: PartitionReplica, now: Millis): void {
    if (replica.applied <= replica.snapshotSequence) {
      this.#unsnapshotSince.delete(partition);
      return;
    }
    const since = this.#unsnapshotSince.get(partition);
    if (since === undefined) this.#unsnapshotSince.set(partition, now);
    else if (now - since >= (this.#options.snapshotAfterMs ?? 5 * 60_000)) {
      this.#unsnapshotSince.delete(partition);
      // tried again a while later; the count-based snapshots go on
      replica.snapshot().then(
        () => this.#failures.succeeded("snapshot", `partition ${partition}`),
        (error: unknown) => {
          if (!(error instanceof NotOwnerError)) this.#failures.failed("snapshot", `partition ${partition}`, error);
        },
      );
    }
  }

  /** Stops renewing and advancing without releasing anything, as a frozen or cut-off process would. */
  pause(): void {
    this.#owned().pause();
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Stops, releasing every partition so others need not wait for the leases to run out. */
  async stop(): Promise<void> {
    this.pause();
    for (const replica of this.#replicas.values()) replica.abandon();
    await this.#owned().stop();
  }

  /** The partitions this node owns and has taken over (ready for commands), lowest first. */
  /** Forgets a partition this node no longer owns: its replica (its shard) and what was prepared for it. */
  #drop(partition: number): void {
    if (!this.#replicas.delete(partition)) return;
    this.#options.onDropped?.(partition);
  }

  /** The partitions whose replica (and in it, its shard) this node keeps in memory: the ones it owns or is taking over. */
  held(): number[] {
    return [...this.#replicas.keys()].sort((a, b) => a - b);
  }

  ready(): number[] {
    return [...this.#replicas.keys()].filter((p) => this.replica(p) !== null).sort((a, b) => a - b);
  }

  /** Applies a command to its project's partition through the log; refused with NotOwnerError when this node does not own it. */
  submit<C extends ShardCommand>(projectId: string, command: C): Promise<Submitted<C>> {
    const replica = this.#ready(projectId);
    return replica === null ? Promise.reject(this.#notOwner(projectId)) : replica.submit(command);
  }

  /** Answers a read from the project's partition; throws NotOwnerError when this node does not own it. */
  read<T>(projectId: string, query: (shard: Shard) => T): T {
    const replica = this.#ready(projectId);
    if (replica === null) throw this.#notOwner(projectId);
    return replica.read(query);
  }

  /** The node that held the partition's lease when this node last looked (a hint: it may have changed hands since), or null. */
  leaseholder(partition: number): string | null {
    return this.#owned().leaseholder(partition);
  }

  /**
   * The one rule of "partition p is served here": its replica, when this node holds its lease (by its own
   * clock, the margin before the expiry included), has taken it over and run onTakeover since it last
   * gained it, and the replica still writes; else null.
   */
  replica(partition: number): PartitionReplica | null {
    const replica = this.#replicas.get(partition);
    return replica !== undefined && replica.state === "owner" && this.#served.has(partition) && this.#owned().owns(partition)
      ? replica
      : null;
  }

  #ready(projectId: string): PartitionReplica | null {
    return this.replica(partitionOf(projectId, this.#options.partitionCount));
  }

  #notOwner(projectId: string): NotOwnerError {
    return new NotOwnerError(`${this.node} does not own partition ${partitionOf(projectId, this.#options.partitionCount)}`);
  }

  /**
   * Takes a gained partition over:
   * 1. one gain at a time per partition; not served from now until it succeeds;
   * 2. open the partition's replica unless this node keeps one (prepare: its host and effects);
   * 3. take it over (PartitionReplica.takeOver: snapshot, fence, replay, catch-up, downtime hold, advance);
   * 4. lost meanwhile (released to a node that joined, or the lease ran out): abandon it, not served here;
   * 5. run onTakeover (the directory made exactly its state), then serve it (onServed);
   * 6. on a failure (JetStream electing a leader, a catch-up that timed out): count it, wait (250 ms,
   *    doubling up to 2 s) and try again while the partition is still this node's; after handOffAfterMs
   *    of failures, while another node takes partitions, hand it off (Ownership.handOff): released at the
   *    next round, and the others' shares counted without this node, so one of them takes it.
   * Invariant: served (replica()) only between a successful step 5 and the partition's loss or next gain.
   */
  async #gain(partition: number, ownerSeenAt: Millis | null): Promise<void> {
    if (this.#gaining.has(partition)) return;
    this.#gaining.add(partition);
    this.#served.delete(partition);
    let failingSince: Millis | null = null;
    try {
      for (let attempt = 0; this.#owned().owns(partition); attempt++) {
        try {
          let replica = this.#replicas.get(partition);
          if (replica === undefined) {
            const prepared = (await this.#options.prepare?.(partition)) ?? {};
            replica = await PartitionReplica.open({
              ...this.#options.replica,
              ...prepared,
              connection: this.#options.connection,
              partition,
              replicas: this.#options.replicas,
              fenceToken: () => this.#fenceToken(partition),
              onSnapshot: (error) => {
                if (error === null) this.#failures.succeeded("snapshot", `partition ${partition}`);
                else if (!(error instanceof NotOwnerError)) this.#failures.failed("snapshot", `partition ${partition}`, error);
              },
            });
            this.#replicas.set(partition, replica);
          }
          const catchUp = this.#options.catchUp;
          const report = await replica.takeOver(
            this.#clock(),
            ownerSeenAt,
            catchUp === undefined ? null : (taking, now) => catchUp(partition, taking, now),
          );
          if (report.held > 0)
            log.info(
              { partition, held: report.held },
              `cluster: partition ${partition} had no owner for a while: ${report.held} check(s) whose deadline fell in that time are judged once their grace has passed`,
            );
          // lost while taking over (released to a node that joined, or the lease ran out): not served here
          if (!this.#owned().owns(partition)) {
            replica.abandon();
            return;
          }
          await this.#options.onTakeover?.(partition, report, replica);
          this.#served.add(partition);
          this.#options.onServed?.(partition);
          this.#failures.succeeded("takeover", `partition ${partition}`);
          return;
        } catch (error) {
          // while it fails the partition's pings are taken but not judged: counted in /metrics, logged once
          if (!(error instanceof NotOwnerError)) this.#failures.failed("takeover", `partition ${partition}`, error);
          failingSince ??= this.#clock();
          if (this.#clock() - failingSince >= (this.#options.handOffAfterMs ?? HAND_OFF_AFTER_MS) && this.#owned().othersTake()) {
            log.warn(
              { partition, failingForMs: this.#clock() - failingSince },
              "cluster: a partition's takeovers keep failing; handed off to another node",
            );
            this.#owned().handOff(partition, this.#options.handOffForMs ?? HAND_OFF_FOR_MS);
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** attempt, 2_000)));
        }
      }
      this.#failures.forget(`partition ${partition}`); // lost while failing: no longer this node's to report
    } finally {
      this.#gaining.delete(partition);
      // lost meanwhile (not merely near its lease's end, which a renewal mends): nothing kept of it
      if (this.#owned().revisionOf(partition) === undefined) this.#drop(partition);
    }
  }

  /** The lease read again right before a fence: this node's name and the revision it holds the partition at; NotOwnerError when another node wrote the lease since. */
  async #fenceToken(partition: number): Promise<FenceToken> {
    const revision = await this.#owned().confirm(partition);
    if (revision === null) throw new NotOwnerError(`partition ${partition}: the lease is no longer ${this.node}'s; not fencing`);
    return { node: this.node, leaseRevision: revision };
  }

  /** A round that failed, or could not read or write some leases, is a failure of this node's ownership rounds. */
  #roundDone(outcome: { report: RoundReport } | { error: unknown }): void {
    const trouble =
      "error" in outcome
        ? outcome.error
        : outcome.report.errors.length + outcome.report.unanswered.length > 0
          ? new Error(
              [...outcome.report.errors.map((e) => `${e.step.kind} ${e.step.partition}: ${e.error}`), ...outcome.report.unanswered].join(
                "; ",
              ),
            )
          : null;
    if (trouble === null) this.#failures.succeeded("ownership_round", this.node);
    else this.#failures.failed("ownership_round", this.node, trouble);
  }

  #owned(): Ownership {
    if (this.#ownership === null) throw new Error("PartitionNode: not opened");
    return this.#ownership;
  }
}
