// One partition's shard on the node that owns it, kept by its JetStream command log and snapshots: commands
// appended, then applied in log order (replica-appends.ts); a takeover rebuilds it (replica-restore.ts).
import { randomUUID } from "node:crypto";
import type { NatsConnection } from "@nats-io/nats-core";
import type { PingCommand, ShardCommand } from "../engine/commands.ts";
import type { Millis } from "../engine/model.ts";
import type { Shard } from "../engine/shard.ts";
import { log } from "../host/log.ts";
import { AppliedShard } from "./applied-shard.ts";
import { FencedError, JetStreamLog } from "./jetstream-log.ts";
import type { FenceToken } from "./jetstream-log.ts";
import type { PartitionRecord } from "./partition-codec.ts";
import { DEFAULT_SNAPSHOT_EVERY } from "./partitions.ts";
import { EffectChain } from "./record-effects.ts";
import { AppendQueue } from "./replica-appends.ts";
import { restoreFromLog } from "./replica-restore.ts";
import { FIRST_STANDING, nextStanding } from "./replica-state.ts";
import type { ReplicaEvent, ReplicaState, Standing } from "./replica-state.ts";
import { LatePingError, NotOwnerError } from "./replica-types.ts";
import type { AppliedRecord, RecordEffects, Submitted, TakeoverReport } from "./replica-types.ts";
import type { SaveOutcome } from "./snapshot-store.ts";
import { SnapshotStore } from "./snapshot-store.ts";

export { LatePingError, NotOwnerError, SupersededError } from "./replica-types.ts";
export type { AppliedRecord, RecordEffects, Submitted, TakeoverReport } from "./replica-types.ts";
export type { ReplicaState } from "./replica-state.ts";

export type PartitionReplicaOptions = {
  connection: NatsConnection;
  partition: number;
  /** 3 on a three-server cluster. */
  replicas: number;
  /** A snapshot is stored after this many records since the last one (default DEFAULT_SNAPSHOT_EVERY). */
  snapshotEvery?: number;
  /** Most records in one append (default 256). */
  maxBatch?: number;
  /** Most bytes of records in one log message (default 256 kB, below NATS's 1 MB payload limit); a larger record goes alone. */
  maxMessageBytes?: number;
  ackTimeoutMs?: number;
  /** The ids a new check gets; drawn by the owner before the append (default: random uuids). */
  newId?: () => string;
  /** Stream name prefixes of the log and the snapshots (tests keep theirs apart). */
  logStreamPrefix?: string;
  snapshotStreamPrefix?: string;
  /** Called for every record applied (replayed or submitted), in log order, with what it changed. */
  onApplied?: (applied: AppliedRecord) => void;
  /** Carries out what a record did outside the shard; called in log order as each is applied, without waiting for the earlier ones (record-effects.ts). */
  effects?: (applied: AppliedRecord) => RecordEffects;
  /** The position up to which an earlier owner carried out the effects (read at each takeover; default 0). */
  recordedUpTo?: () => Promise<number>;
  /**
   * Stores what the hook keeps of the records up to `covered` outside the log (the pings of partition-host.ts),
   * called as a snapshot of them is taken: the snapshot is stored, and the log below it let go, only after.
   * A failure stops the replica like a failed effect.
   */
  beforeSnapshot?: (covered: number) => Promise<void>;
  /** Asked right before each fence: who writes under which lease (written into the fence); throws when the lease is not this node's any more. */
  fenceToken?: () => Promise<FenceToken>;
  /** Called when an automatic snapshot fails, and with null once one is stored again. */
  onSnapshot?: (error: unknown) => void;
};

/**
 * Run by a takeover once the replica writes and before it judges any deadline: hands it the pings
 * acknowledged for the partition that its log lacks (submitIntake), and answers how far its deadlines may
 * be judged at `now` (the pings still on their way hold that back), -Infinity for not yet. A failure ends
 * the takeover (it is tried again).
 */
export type TakeoverCatchUp = (replica: PartitionReplica, now: Millis) => Promise<Millis>;

/**
 * Invariants: nothing is applied that the log does not hold, in the log's order; a submitter is answered
 * only once its record's effects (the part it waits for) and every earlier record's are stored; after a
 * failed append or effect the replica stops writing until a takeover rebuilds it; a batch appended in an
 * earlier generation is never applied (its submitters get a SupersededError: stored, not to be sent again).
 */
export class PartitionReplica {
  readonly partition: number;
  readonly #log: JetStreamLog;
  readonly #snapshots: SnapshotStore;
  readonly #snapshotEvery: number;
  readonly #newId: () => string;
  readonly #recordedUpTo: () => Promise<number>;
  readonly #beforeSnapshot: (covered: number) => Promise<void>;
  readonly #fenceToken: (() => Promise<FenceToken>) | null;
  readonly #onSnapshot: (error: unknown) => void;
  readonly #effects: EffectChain;
  readonly #shard: AppliedShard;
  readonly #appends: AppendQueue;
  #standing: Standing = FIRST_STANDING;
  #intakeQueued = 0; // how far the intake stream's pings are queued for the log (submitIntake, an advance's mark)
  #judgedUpTo: Millis = 0; // deadlines up to here are judged (or held): a ping stamped then or before is refused
  #snapshotting: Promise<SaveOutcome> | null = null;
  #lastSnapshotError: unknown = null;
  #takingOver: Promise<TakeoverReport> | null = null;

  private constructor(options: PartitionReplicaOptions, log: JetStreamLog, snapshots: SnapshotStore) {
    this.partition = options.partition;
    this.#log = log;
    this.#snapshots = snapshots;
    this.#snapshotEvery = options.snapshotEvery ?? DEFAULT_SNAPSHOT_EVERY;
    this.#newId = options.newId ?? randomUUID;
    this.#recordedUpTo = options.recordedUpTo ?? (() => Promise.resolve(0));
    this.#beforeSnapshot = options.beforeSnapshot ?? (() => Promise.resolve());
    this.#fenceToken = options.fenceToken ?? null;
    this.#onSnapshot = options.onSnapshot ?? (() => {});
    this.#effects = new EffectChain(options.effects ?? null, (error) => this.#effectFailed(error));
    this.#shard = new AppliedShard(this.partition, options.onApplied ?? (() => {}), this.#effects);
    this.#appends = new AppendQueue({
      partition: this.partition,
      log,
      maxBatch: options.maxBatch ?? 256,
      maxMessageBytes: options.maxMessageBytes ?? 256 * 1024,
      standing: () => this.#standing,
      appendFailed: (error, generation) => this.#become({ kind: "appendFailed", generation, fenced: error instanceof FencedError }),
      apply: (position, index, record) => {
        const { result, changes, beforeAnswer } = this.#shard.apply(position, index, record, false);
        return { submitted: { position, result, changes }, beforeAnswer };
      },
      afterBatch: () => this.#snapshotIfDue(),
      flushFailed: (error) => this.#flushFailed(error),
    });
  }

  /** Opens (or creates) the partition's log and snapshot streams; the replica is idle until takeOver(). */
  static async open(options: PartitionReplicaOptions): Promise<PartitionReplica> {
    const common = {
      connection: options.connection,
      partition: options.partition,
      replicas: options.replicas,
      ackTimeoutMs: options.ackTimeoutMs,
    };
    const log = await JetStreamLog.open({ ...common, streamPrefix: options.logStreamPrefix });
    const snapshots = await SnapshotStore.open({ ...common, streamPrefix: options.snapshotStreamPrefix });
    return new PartitionReplica(options, log, snapshots);
  }

  get state(): ReplicaState {
    return this.#standing.state;
  }

  /**
   * How far the intake stream was read for this partition: every ping of it up to this position is in the
   * log (or queued for it), and a new owner reads the stream on from the applied part (cluster/intake-follower.ts).
   */
  get intakeMark(): number {
    return Math.max(this.#shard.intakeApplied, this.#intakeQueued);
  }

  /** How far the intake stream's pings of this partition are in its log: the stream may let go of what every partition's log holds. */
  get intakeStored(): number {
    return this.#shard.intakeApplied;
  }

  /** The position of the last record applied. */
  get applied(): number {
    return this.#shard.applied;
  }

  /** The log position the last stored or loaded snapshot covers (0: none). */
  get snapshotSequence(): number {
    return this.#shard.snapshotBase;
  }

  /** Why the last automatic snapshot failed, or null. */
  get lastSnapshotError(): unknown {
    return this.#lastSnapshotError;
  }

  /** Answers a read from the shard as it is now (every acknowledged command applied); only while the owner (not during a takeover). */
  read<T>(query: (shard: Shard) => T): T {
    if (!this.#shard.loaded || this.#standing.state !== "owner") throw this.#notOwner();
    return this.#shard.read(query);
  }

  /**
   * Makes this node the partition's writer (#takeOver). A call while a takeover runs gets that takeover's
   * answer (two at once would replay into one shard).
   */
  takeOver(now: Millis, ownerSeenAt: Millis | null = null, catchUp: TakeoverCatchUp | null = null): Promise<TakeoverReport> {
    this.#takingOver ??= this.#takeOver(now, ownerSeenAt, catchUp).finally(() => {
      this.#takingOver = null;
    });
    return this.#takingOver;
  }

  /**
   * A takeover:
   * 1. a new generation, not writing (a batch in flight from before is not applied: it is replayed);
   * 2. wait for the append in flight, so that it lands before the fence;
   * 3. load the newest snapshot, fence the log, replay after it (replica-restore.ts);
   * 4. write from now on, unless given up meanwhile (NotOwnerError);
   * 5. run the catch-up: the pings acknowledged while no node owned the partition, each at its own stamp
   *    (none is late: no deadline past the log's last instant was judged); a failure leaves it stale;
   * 6. unless given up meanwhile, hold the checks whose deadlines fell while nobody owned it
   *    (from the log's last instant, or when the previous owner was last seen, to `now`);
   * 7. advance as far as the catch-up allows (to `now` without one): deadlines that fell due meanwhile
   *    flip at their own due times; the node's timer takes it on from there.
   */
  async #takeOver(now: Millis, ownerSeenAt: Millis | null, catchUp: TakeoverCatchUp | null): Promise<TakeoverReport> {
    this.#become({ kind: "takeoverStarted" }); // 1.
    while (this.#appends.flushing !== null) await this.#appends.flushing; // 2.
    this.#intakeQueued = 0;
    const restored = await restoreFromLog(
      {
        // 3.
        log: this.#log,
        snapshots: this.#snapshots,
        shard: this.#shard,
        effects: this.#effects,
        fenceToken: this.#fenceToken,
        recordedUpTo: this.#recordedUpTo,
      },
      now,
    );
    this.#become({ kind: "replayed" }); // 4.
    if (this.#standing.abandoned) throw new NotOwnerError(`partition ${this.partition}: given up during its takeover`);
    const latestAt = this.#shard.latestAt;
    const fromAt = Math.max(latestAt, ownerSeenAt ?? 0);
    this.#judgedUpTo = latestAt;
    const upTo = catchUp === null ? now : Math.min(now, await this.#catchUp(catchUp, now)); // 5.
    if (this.#standing.abandoned) throw new NotOwnerError(`partition ${this.partition}: given up during its takeover`);
    const held = await this.#holdForDowntime(fromAt, now); // 6.
    const advanced = upTo > this.#judgedUpTo ? await this.advance(upTo) : null; // 7.
    const { stored, fencedAt, replayed, restarts } = restored;
    return {
      snapshotSequence: stored?.logSequence ?? null,
      snapshotBytes: stored?.bytes ?? 0,
      fencedAt,
      replayed,
      restarts,
      flips: advanced?.changes.flips ?? [],
      held,
      unowned: fromAt > 0 && now > fromAt ? { fromAt, toAt: now } : null,
    };
  }

  /**
   * Holds the checks whose deadline fell between `fromAt` and `now`, while the partition had no owner,
   * until their grace has passed (CONTRACT "hcd's own downtime and clock"). Had an owner lived past such a
   * deadline, its advance to it would be in the log. Returns how many checks it holds.
   */
  async #holdForDowntime(fromAt: Millis, now: Millis): Promise<number> {
    if (fromAt <= 0 || now <= fromAt) return 0; // a partition with no history: nothing fell due
    // stamped at the last instant applied, not `now`: a ping stamped before `now` and still on its way keeps its stamp
    return (await this.submit({ kind: "holdForDowntime", downtime: { fromAt, toAt: now }, at: this.#shard.latestAt })).result;
  }

  /** Runs a takeover's catch-up; a failed one leaves the replica stale (not writing) until it is taken over again. */
  async #catchUp(catchUp: TakeoverCatchUp, now: Millis): Promise<Millis> {
    try {
      return await catchUp(this, now);
    } catch (error) {
      this.#become({ kind: "storeFailed" });
      throw error;
    }
  }

  /** Appends the command to the log and, once acknowledged, applies it in log order; rejects when not the writer or the append fails. */
  async submit<C extends ShardCommand>(command: C): Promise<Submitted<C>> {
    return (await this.submitAll([command]))[0];
  }

  /**
   * Appends the commands in one append (all of them or none: refused with NotOwnerError before any is
   * appended) and answers each once applied, in order.
   */
  submitAll<C extends ShardCommand>(commands: readonly C[]): Promise<Submitted<C>[]> {
    if (this.#standing.state !== "owner") return Promise.reject(this.#notOwner());
    if (commands.length === 0) return Promise.resolve([]);
    const late = commands.find((command) => command.kind === "ping" && command.ping.at <= this.#judgedUpTo);
    if (late !== undefined)
      return Promise.reject(
        new LatePingError(
          `partition ${this.partition}: a ping stamped at or before ${new Date(this.#judgedUpTo).toISOString()}, whose deadlines are judged`,
        ),
      );
    return this.#appends.enqueue(commands.map((command): PartitionRecord => ({ command, ids: this.#idsFor(command) }))) as Promise<
      Submitted<C>[]
    >;
  }

  /**
   * Appends pings taken from the intake stream (each with its message's position, in stream order) and
   * applies them like any ping, except that none is refused as late: each was acknowledged when its
   * message was stored, so it is applied at its own stamp even past deadlines judged already (which the
   * watermarks prevent: cluster/ping-watermarks.ts). Positions at or below intakeMark are not appended again.
   */
  submitIntake(
    pings: readonly { readonly seq: number; readonly ping: PingCommand }[],
  ): Promise<Submitted<{ kind: "ping"; ping: PingCommand }>[]> {
    if (this.#standing.state !== "owner") return Promise.reject(this.#notOwner());
    const fresh = pings.filter(({ seq }) => seq > this.intakeMark);
    if (fresh.length === 0) return Promise.resolve([]);
    const late = fresh.filter(({ ping }) => ping.at <= this.#judgedUpTo).length;
    if (late > 0)
      log.warn(
        { partition: this.partition, late },
        "cluster: acknowledged pings reached their owner after deadlines past their stamps were judged",
      );
    this.#intakeQueued = fresh[fresh.length - 1].seq;
    return this.#appends.enqueue(
      fresh.map(({ seq, ping }): PartitionRecord => {
        const command = { kind: "ping" as const, ping };
        return { command, ids: this.#idsFor(command), intake: seq };
      }),
    ) as Promise<Submitted<{ kind: "ping"; ping: PingCommand }>[]>;
  }

  /**
   * Applies every deadline due by `now`, each at its own due time, through the log. `now` must be no later
   * than the stamps of the pings still on their way to this owner (cluster/ping-watermarks.ts): a ping
   * stamped at or before it is refused from then on (LatePingError).
   */
  advance(now: Millis, intakeMark?: number): Promise<Submitted<{ kind: "advance"; at: Millis }>> {
    if (this.#standing.state !== "owner") return Promise.reject(this.#notOwner());
    this.#judgedUpTo = Math.max(this.#judgedUpTo, now); // before any later submission is queued
    if (intakeMark === undefined || intakeMark <= this.intakeMark) return this.submit({ kind: "advance", at: now });
    // the intake stream read up to intakeMark, with no ping for this partition past intakeMark's queued ones: recorded
    this.#intakeQueued = intakeMark;
    return this.#appends
      .enqueue([{ command: { kind: "advance", at: now }, ids: [], intake: intakeMark }])
      .then((applied) => applied[0] as Submitted<{ kind: "advance"; at: Millis }>);
  }

  /**
   * Stores a snapshot of the state at the last applied position and lets the log below it go, once the
   * effects of every record it covers (and what beforeSnapshot keeps of them) are stored. A snapshot
   * already running is awaited instead; one not newer than the stored one is skipped.
   */
  snapshot(): Promise<SaveOutcome> {
    if (this.#snapshotting !== null) return this.#snapshotting;
    if (!this.#shard.loaded || this.#standing.state !== "owner")
      return Promise.reject(new NotOwnerError(`partition ${this.partition}: not the owner`));
    const { covered, state, taken } = this.#shard.snapshot(); // taken now, in step with `covered`
    const effectsStored = this.#effects.stored; // of every record up to `covered`: the log below it is let go
    const kept = this.#beforeSnapshot(covered);
    kept.catch((error: unknown) => this.#effectFailed(error));
    this.#snapshotting = Promise.all([effectsStored, kept])
      .then(() => this.#snapshots.save(covered, state))
      .then(async (outcome) => {
        if (outcome.saved) {
          await this.#log.truncateBelow(covered + 1);
          this.#shard.snapshotStored(covered, taken);
        }
        return outcome;
      })
      .finally(() => {
        this.#snapshotting = null;
      });
    return this.#snapshotting;
  }

  /** Resolves once no snapshot is being stored (whether the last one was stored or failed). */
  async settled(): Promise<void> {
    while (this.#snapshotting !== null) await this.#snapshotting.catch(() => {});
  }

  /** Stops writing (the partition was lost); queued submissions are refused, and a takeover under way ends deposed (a batch in flight is answered: it is in the log). */
  abandon(): void {
    this.#become({ kind: "abandoned" });
    this.#appends.rejectAll(new NotOwnerError(`partition ${this.partition}: given up`));
  }

  /** Every snapshotEvery records, after a batch: a snapshot unless one is being stored. */
  #snapshotIfDue(): void {
    if (this.#shard.sinceSnapshot >= this.#snapshotEvery && this.#snapshotting === null) {
      const stored = (error: unknown) => {
        this.#lastSnapshotError = error;
        this.#onSnapshot(error);
      };
      this.snapshot().then(() => stored(null), stored);
    }
  }

  /** A bug in the flush (an apply that threw): nothing more is written, and the next takeover rebuilds the state. */
  #flushFailed(error: unknown): void {
    this.#become({ kind: "flushFailed" });
    log.error({ partition: this.partition, err: error }, "cluster: a partition's flush failed; it stops writing until taken over again");
    this.#appends.rejectAll(error);
  }

  /** A record's effects could not be stored: stop writing; the state is rebuilt by the next takeover. */
  #effectFailed(error: unknown): void {
    if (this.#standing.state !== "owner") return;
    this.#become({ kind: "storeFailed" });
    log.warn({ partition: this.partition, err: error }, "cluster: a record's effects could not be stored; the partition stops writing");
    this.#appends.rejectAll(error);
  }

  #become(event: ReplicaEvent): void {
    this.#standing = nextStanding(this.#standing, event);
  }

  #notOwner(): NotOwnerError {
    return new NotOwnerError(`partition ${this.partition}: ${this.#standing.state}, not the owner`);
  }

  /** The ids a command may hand out while applied: a new check's uuid and badge key. */
  #idsFor(command: ShardCommand): string[] {
    const creates =
      command.kind === "createCheck" || (command.kind === "ping" && "pingKey" in command.ping.target && command.ping.target.create);
    return creates ? [this.#newId(), this.#newId()] : [];
  }
}
