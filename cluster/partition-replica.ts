// One partition's shard on the node that owns it, kept by its JetStream command log and snapshots.
//
// submit(command) appends the command to the log (batched: the commands submitted while an append is in
// flight go together in the next one), and only after the PubAcks applies each to the in-memory Shard in
// log order and resolves with what the shard answered: nothing is applied that the log does not hold, and
// the shard's order is the log's. A batch travels as few log messages as its size allows (one up to
// maxMessageBytes, partition-codec.ts encodeMessage): the cost of a replicated append is per message, not
// per record. A message's records share its position (the stream sequence) and are told apart by their
// index in it; snapshots and fences count messages, and a snapshot always covers whole messages (a message
// is applied in one go). Every `snapshotEvery` records a snapshot is stored and the log below it
// let go.
//
// takeOver(now) makes this node the partition's writer: it loads the newest snapshot, fences the log
// (from then on the previous owner's appends are refused on the expected last sequence), replays every
// record after the snapshot strictly (a log truncated under the read means a newer snapshot: it loads
// that one and starts again, never skipping a command), takes in the pings acknowledged while no node
// owned the partition (its catch-up: each applied at its own stamp, as none is judged yet), and then
// applies an advance through the log, so deadlines that fell due meanwhile flip at their own due times.
//
// After an append fails the replica stops writing: refused on the fence, another node owns the partition
// (deposed); any other failure may have stored part of the batch, so the state is rebuilt by takeOver.
//
// Each takeover starts a new generation. A batch whose append was sent in an earlier one is never applied
// when its PubAcks come: the takeover replays it from the log, and its submitters get a SupersededError
// (stored, but not to be sent again: a retry would count it twice). A takeover first waits for the append
// in flight, so it fences and replays after it. A batch whose PubAcks come after abandon() alone is applied
// and answered: it is in the log ahead of any later owner's fence. submitAll's commands go in one append
// or are all refused before any is appended (NotOwnerError: safe to send again).
//
// What a record did outside the shard (its pings and flips in the partition's history, its notifications
// queued, the directory's keys) is carried out by the `effects` hook, started for each record in log
// order (the hook keeps that order in what it writes), and a submitter is answered only once its record's
// effects and every earlier record's are stored, or, when the hook splits them, the part it names for the
// answer (a ping is answered before its history is stored: partition-host.ts). A snapshot waits for the effects of every record it
// covers (and for what `beforeSnapshot` stores of them), and a new owner carries out again the effects of the replayed records from `recordedUpTo()` on
// (the last one an earlier owner stored, perhaps in part): none is lost between an acknowledgement and a
// crash, and the stores drop what is carried out twice by its message id. A failed effect stops the
// replica (stale) like a failed append.
import { randomUUID } from "node:crypto";
import type { NatsConnection } from "@nats-io/nats-core";
import type { Changes } from "../engine/changes.ts";
import type { PingCommand, ShardCommand, ShardResultOf } from "../engine/commands.ts";
import type { Downtime, Flip, Millis } from "../engine/model.ts";
import { Shard } from "../engine/shard.ts";
import { log } from "../host/log.ts";
import { FencedError, JetStreamLog, TruncatedError } from "./jetstream-log.ts";
import type { FenceToken } from "./jetstream-log.ts";
import type { PartitionRecord } from "./partition-codec.ts";
import { decodeMessage, encodeRecord, loadSnapshot, logMessagesOf, snapshotOf } from "./partition-codec.ts";
import type { SaveOutcome } from "./snapshot-store.ts";
import { SnapshotStore } from "./snapshot-store.ts";

/**
 * What a record's effects hook returns: a promise of all of them stored, which its submitter waits for;
 * or, split, all of them stored (`stored`, which snapshots wait for and whose failure stops the replica)
 * and the part its submitter must wait for (`beforeAnswer`): the rest can follow the answer, as a new
 * owner carries it out again from the log. Null: the record has no effect to wait for.
 */
export type RecordEffects = Promise<void> | { readonly stored: Promise<void>; readonly beforeAnswer: Promise<void> } | null;

export type PartitionReplicaOptions = {
  connection: NatsConnection;
  partition: number;
  /** 3 on a three-server cluster. */
  replicas: number;
  /** A snapshot is stored after this many records since the last one (default 10,000). */
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
  /** Carries out what a record did outside the shard; called in log order as each is applied, without waiting for the earlier ones (see above). */
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
 * One record as applied: its log position (its message's), its index in that message (0 for a message of
 * one record), the command, what the shard changed, and whether a takeover replayed it.
 */
export type AppliedRecord = { readonly position: number; readonly index: number; readonly command: ShardCommand; readonly changes: Changes; readonly replayed: boolean };

/** A submitted command once applied: its position (its log message's), the shard's answer and what it changed. */
export type Submitted<C extends ShardCommand> = { readonly position: number; readonly result: ShardResultOf<C>; readonly changes: Changes };

/** What a takeover did. */
export type TakeoverReport = {
  /** The log position the loaded snapshot covers, or null when there was none. */
  readonly snapshotSequence: number | null;
  readonly snapshotBytes: number;
  /** The position of this node's fence marker: every record below it was written by earlier owners. */
  readonly fencedAt: number;
  /** Records replayed after the snapshot. */
  readonly replayed: number;
  /** Snapshots loaded again because the log was let go under the replay. */
  readonly restarts: number;
  /** How many checks the partition's time without an owner holds (#holdForDowntime). */
  readonly held: number;
  /** The partition's time without an owner (from the last instant its log shows judged to the takeover), or null when it has no history. */
  readonly unowned: Downtime | null;
  /** The flips of the advance to `now` that ends the takeover (deadlines that fell due meanwhile). */
  readonly flips: readonly Flip[];
};

export type ReplicaState = "idle" | "owner" | "deposed" | "stale";

/**
 * Run by a takeover once the replica writes and before it judges any deadline: hands it the pings
 * acknowledged for the partition that its log lacks (submitIntake), and answers how far its deadlines may
 * be judged at `now` (the pings still on their way hold that back), -Infinity for not yet. A failure ends
 * the takeover (it is tried again).
 */
export type TakeoverCatchUp = (replica: PartitionReplica, now: Millis) => Promise<Millis>;

/** Commands submitted together: appended in one append, never split. */
type Pending = { records: PartitionRecord[]; bytes: Uint8Array[]; resolve: (applied: Submitted<ShardCommand>[]) => void; reject: (error: unknown) => void };

/** Thrown to submitters while this replica is not the partition's writer: nothing of theirs was appended, so they may send it again. */
export class NotOwnerError extends Error {
  override name = "NotOwnerError";
}

/**
 * Thrown to submitters of a ping stamped at or before an instant whose deadlines this owner has judged:
 * applied now, it could not keep its check up (a down flip would already stand). Nothing of the batch was
 * appended; the ping is answered 503 and its sender tries again with a fresh stamp.
 */
export class LatePingError extends Error {
  override name = "LatePingError";
}

/** Thrown to submitters whose records were appended by an owner that gave the partition up meanwhile: the next takeover applies them. */
export class SupersededError extends Error {
  override name = "SupersededError";
}

export class PartitionReplica {
  readonly partition: number;
  readonly #log: JetStreamLog;
  readonly #snapshots: SnapshotStore;
  readonly #snapshotEvery: number;
  readonly #maxBatch: number;
  readonly #maxMessageBytes: number;
  readonly #newId: () => string;
  readonly #onApplied: (applied: AppliedRecord) => void;
  readonly #effectsOf: ((applied: AppliedRecord) => RecordEffects) | null;
  readonly #recordedUpTo: () => Promise<number>;
  readonly #beforeSnapshot: (covered: number) => Promise<void>;
  readonly #fenceToken: (() => Promise<FenceToken>) | null;
  readonly #onSnapshot: (error: unknown) => void;
  /** The effects of the records applied so far, chained in log order (rejected once one failed). */
  #effects: Promise<void> = Promise.resolve();
  /** The parts of those effects that their submitters wait for, chained in log order. */
  #beforeAnswer: Promise<void> = Promise.resolve();
  /** Records at or below this position had their effects carried out by an earlier owner. */
  #effectsFrom = 0;
  #shard: Shard | null = null;
  #state: ReplicaState = "idle";
  #applied = 0; // position of the last record applied
  #latestAt: Millis = 0; // latest instant a command applied carried
  #intakeApplied = 0; // how far the intake stream's pings are in the log and applied (the records' largest position)
  #intakeQueued = 0; // how far they are queued for the log (submitIntake, an advance's mark)
  #judgedUpTo: Millis = 0; // deadlines up to here are judged (or held): a ping stamped then or before is refused
  #snapshotBase = 0; // position the last stored (or loaded) snapshot covers
  #sinceSnapshot = 0; // records applied after the state the last stored (or loaded) snapshot holds: a message holds many
  #snapshotting: Promise<SaveOutcome> | null = null;
  #ids: string[] = []; // the ids the record being applied hands out
  #queue: Pending[] = [];
  #flushing: Promise<void> | null = null; // the flush running, if any
  #lastSnapshotError: unknown = null;
  #takingOver: Promise<TakeoverReport> | null = null;
  #generation = 0; // raised by every takeover: a batch appended in an earlier one is not applied
  #abandons = 0; // abandon() calls: a takeover that sees one during its run does not become the owner

  private constructor(options: PartitionReplicaOptions, log: JetStreamLog, snapshots: SnapshotStore) {
    this.partition = options.partition;
    this.#log = log;
    this.#snapshots = snapshots;
    this.#snapshotEvery = options.snapshotEvery ?? 10_000;
    this.#maxBatch = options.maxBatch ?? 256;
    this.#maxMessageBytes = options.maxMessageBytes ?? 256 * 1024;
    this.#newId = options.newId ?? randomUUID;
    this.#onApplied = options.onApplied ?? (() => {});
    this.#effectsOf = options.effects ?? null;
    this.#recordedUpTo = options.recordedUpTo ?? (() => Promise.resolve(0));
    this.#beforeSnapshot = options.beforeSnapshot ?? (() => Promise.resolve());
    this.#fenceToken = options.fenceToken ?? null;
    this.#onSnapshot = options.onSnapshot ?? (() => {});
  }

  /** Opens (or creates) the partition's log and snapshot streams; the replica is idle until takeOver(). */
  static async open(options: PartitionReplicaOptions): Promise<PartitionReplica> {
    const common = { connection: options.connection, partition: options.partition, replicas: options.replicas, ackTimeoutMs: options.ackTimeoutMs };
    const log = await JetStreamLog.open({ ...common, streamPrefix: options.logStreamPrefix });
    const snapshots = await SnapshotStore.open({ ...common, streamPrefix: options.snapshotStreamPrefix });
    return new PartitionReplica(options, log, snapshots);
  }

  get state(): ReplicaState {
    return this.#state;
  }

  /**
   * How far the intake stream was read for this partition: every ping of it up to this position is in the
   * log (or queued for it), and a new owner reads the stream on from the applied part (cluster/intake-follower.ts).
   */
  get intakeMark(): number {
    return Math.max(this.#intakeApplied, this.#intakeQueued);
  }

  /** How far the intake stream's pings of this partition are in its log: the stream may let go of what every partition's log holds. */
  get intakeStored(): number {
    return this.#intakeApplied;
  }

  /** The position of the last record applied. */
  get applied(): number {
    return this.#applied;
  }

  /** The log position the last stored or loaded snapshot covers (0: none). */
  get snapshotSequence(): number {
    return this.#snapshotBase;
  }

  /** Why the last automatic snapshot failed, or null. */
  get lastSnapshotError(): unknown {
    return this.#lastSnapshotError;
  }

  /** Answers a read from the shard as it is now (every acknowledged command applied); only while the owner (not during a takeover). */
  read<T>(query: (shard: Shard) => T): T {
    if (this.#shard === null || this.#state !== "owner") throw new NotOwnerError(`partition ${this.partition}: ${this.#state}, not the owner`);
    return query(this.#shard);
  }

  /**
   * Loads the newest snapshot, fences the log, replays after the snapshot, runs `catchUp`, then holds the
   * checks due while nobody owned the partition and advances as far as `catchUp` allows (to `now` without
   * one) through the log. A call while a takeover runs gets that takeover's answer (two at once would
   * replay into one shard).
   */
  takeOver(now: Millis, ownerSeenAt: Millis | null = null, catchUp: TakeoverCatchUp | null = null): Promise<TakeoverReport> {
    this.#takingOver ??= this.#takeOver(now, ownerSeenAt, catchUp).finally(() => { this.#takingOver = null; });
    return this.#takingOver;
  }

  async #takeOver(now: Millis, ownerSeenAt: Millis | null, catchUp: TakeoverCatchUp | null): Promise<TakeoverReport> {
    this.#state = "idle";
    this.#generation += 1;
    const abandons = this.#abandons;
    while (this.#flushing !== null) await this.#flushing; // its append lands before the fence, and is replayed
    for (let restarts = 0; ; restarts++) {
      const stored = await this.#snapshots.load();
      const shard = new Shard({ now: stored?.snapshot.at ?? now, newId: () => this.#takeId() });
      if (stored !== null) loadSnapshot(shard, stored.snapshot);
      this.#shard = shard;
      this.#applied = stored?.logSequence ?? 0;
      this.#snapshotBase = this.#applied;
      this.#sinceSnapshot = 0;
      this.#latestAt = stored?.snapshot.at ?? 0;
      this.#intakeApplied = stored?.snapshot.intake ?? 0;
      this.#intakeQueued = 0;
      const token = this.#fenceToken === null ? undefined : await this.#fenceToken(); // the lease read again, right before
      const fencedAt = await this.#log.fence(token);
      this.#effects = Promise.resolve();
      this.#beforeAnswer = Promise.resolve();
      this.#effectsFrom = await this.#recordedUpTo(); // read after the fence: no earlier owner stores more
      let replayed = 0;
      try {
        for await (const { position, bytes } of this.#log.readFrom(this.#applied + 1, { strict: true })) {
          for (const [index, record] of decodeMessage(bytes).entries()) {
            this.#apply(position, index, record, true);
            replayed += 1;
          }
        }
      } catch (error) {
        if (error instanceof TruncatedError && restarts < 5) continue; // a newer snapshot let the log go: load it
        throw error;
      }
      await this.#effects; // the replayed records' effects that were missing are stored before anyone is answered
      this.#applied = Math.max(this.#applied, fencedAt);
      if (this.#abandons !== abandons) throw new NotOwnerError(`partition ${this.partition}: given up during its takeover`);
      this.#state = "owner";
      // the checks due after `fromAt` are held, not judged: a ping stamped in that time still keeps its check up
      const fromAt = Math.max(this.#latestAt, ownerSeenAt ?? 0);
      // no deadline past the log's last instant was judged: the catch-up's pings after it are not late
      this.#judgedUpTo = this.#latestAt;
      const upTo = catchUp === null ? now : Math.min(now, await this.#catchUp(catchUp, now));
      if (this.#abandons !== abandons) throw new NotOwnerError(`partition ${this.partition}: given up during its takeover`);
      const held = await this.#holdForDowntime(fromAt, now);
      // judged only as far as the pings on their way allow; the node's timer takes it on from there
      const advanced = upTo > this.#judgedUpTo ? await this.advance(upTo) : null;
      return {
        snapshotSequence: stored?.logSequence ?? null, snapshotBytes: stored?.bytes ?? 0, fencedAt, replayed, restarts,
        flips: advanced?.changes.flips ?? [], held, unowned: fromAt > 0 && now > fromAt ? { fromAt, toAt: now } : null,
      };
    }
  }

  /**
   * The partition had no owner from the last instant its log shows judged (its latest record, or when the
   * previous owner last renewed its lease, the later) until `now`: the checks whose deadline fell in that
   * time are held until their grace has passed (CONTRACT "hcd's own downtime and clock"). Had an owner
   * lived past such a deadline, its advance to it would be in the log. Returns how many checks it holds.
   */
  async #holdForDowntime(fromAt: Millis, now: Millis): Promise<number> {
    if (fromAt <= 0 || now <= fromAt) return 0; // a partition with no history: nothing fell due
    // stamped at the last instant applied, not `now`: a ping stamped before `now` and still on its way keeps its stamp
    return (await this.submit({ kind: "holdForDowntime", downtime: { fromAt, toAt: now }, at: this.#latestAt })).result;
  }

  /** Runs a takeover's catch-up; a failed one leaves the replica stale (not writing) until it is taken over again. */
  async #catchUp(catchUp: TakeoverCatchUp, now: Millis): Promise<Millis> {
    try {
      return await catchUp(this, now);
    } catch (error) {
      if (this.#state === "owner") this.#state = "stale";
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
    if (this.#state !== "owner") return Promise.reject(new NotOwnerError(`partition ${this.partition}: ${this.#state}, not the owner`));
    if (commands.length === 0) return Promise.resolve([]);
    const late = commands.find((command) => command.kind === "ping" && command.ping.at <= this.#judgedUpTo);
    if (late !== undefined) return Promise.reject(new LatePingError(`partition ${this.partition}: a ping stamped at or before ${new Date(this.#judgedUpTo).toISOString()}, whose deadlines are judged`));
    return this.#enqueue(commands.map((command): PartitionRecord => ({ command, ids: this.#idsFor(command) }))) as Promise<Submitted<C>[]>;
  }

  /** Queues records for the next append; resolves once each is applied, in order. */
  #enqueue(records: PartitionRecord[]): Promise<Submitted<ShardCommand>[]> {
    return new Promise<Submitted<ShardCommand>[]>((resolve, reject) => {
      this.#queue.push({ records, bytes: records.map(encodeRecord), resolve, reject });
      this.#startFlush();
    });
  }

  /**
   * Appends pings taken from the intake stream (each with its message's position, in stream order) and
   * applies them like any ping, except that none is refused as late: each was acknowledged when its
   * message was stored, so it is applied at its own stamp even past deadlines judged already (which the
   * watermarks prevent: cluster/ping-watermarks.ts). Positions at or below intakeMark are not appended again.
   */
  submitIntake(pings: readonly { readonly seq: number; readonly ping: PingCommand }[]): Promise<Submitted<{ kind: "ping"; ping: PingCommand }>[]> {
    if (this.#state !== "owner") return Promise.reject(new NotOwnerError(`partition ${this.partition}: ${this.#state}, not the owner`));
    const fresh = pings.filter(({ seq }) => seq > this.intakeMark);
    if (fresh.length === 0) return Promise.resolve([]);
    const late = fresh.filter(({ ping }) => ping.at <= this.#judgedUpTo).length;
    if (late > 0) log.warn({ partition: this.partition, late }, "cluster: acknowledged pings reached their owner after deadlines past their stamps were judged");
    this.#intakeQueued = fresh[fresh.length - 1].seq;
    return this.#enqueue(fresh.map(({ seq, ping }): PartitionRecord => {
      const command = { kind: "ping" as const, ping };
      return { command, ids: this.#idsFor(command), intake: seq };
    })) as Promise<Submitted<{ kind: "ping"; ping: PingCommand }>[]>;
  }

  /** Starts a flush unless one runs; one that ends with commands queued meanwhile (in its last microtasks) is followed by another. */
  #startFlush(): void {
    if (this.#flushing !== null) return;
    const flushing = this.#flush().catch((error: unknown) => this.#flushFailed(error));
    this.#flushing = flushing;
    void flushing.then(() => { this.#flushing = null; if (this.#queue.length > 0) this.#startFlush(); });
  }

  /**
   * Applies every deadline due by `now`, each at its own due time, through the log. `now` must be no later
   * than the stamps of the pings still on their way to this owner (cluster/ping-watermarks.ts): a ping
   * stamped at or before it is refused from then on (LatePingError).
   */
  advance(now: Millis, intakeMark?: number): Promise<Submitted<{ kind: "advance"; at: Millis }>> {
    if (this.#state !== "owner") return Promise.reject(new NotOwnerError(`partition ${this.partition}: ${this.#state}, not the owner`));
    this.#judgedUpTo = Math.max(this.#judgedUpTo, now); // before any later submission is queued
    if (intakeMark === undefined || intakeMark <= this.intakeMark) return this.submit({ kind: "advance", at: now });
    // the intake stream read up to intakeMark, with no ping for this partition past intakeMark's queued ones: recorded
    this.#intakeQueued = intakeMark;
    return this.#enqueue([{ command: { kind: "advance", at: now }, ids: [], intake: intakeMark }])
      .then((applied) => applied[0] as Submitted<{ kind: "advance"; at: Millis }>);
  }

  /**
   * Stores a snapshot of the state at the last applied position and lets the log below it go. A snapshot
   * already running is awaited instead; one not newer than the stored one is skipped.
   */
  snapshot(): Promise<SaveOutcome> {
    if (this.#snapshotting !== null) return this.#snapshotting;
    if (this.#shard === null || this.#state !== "owner") return Promise.reject(new NotOwnerError(`partition ${this.partition}: not the owner`));
    const covered = this.#applied;
    const state = snapshotOf(this.#shard, this.#latestAt, this.#intakeApplied); // taken now, in step with `covered`
    const taken = this.#sinceSnapshot;
    const effectsStored = this.#effects; // of every record up to `covered`: the log below it is let go
    const kept = this.#beforeSnapshot(covered);
    kept.catch((error: unknown) => this.#effectFailed(error));
    this.#snapshotting = Promise.all([effectsStored, kept]).then(() => this.#snapshots.save(covered, state)).then(async (outcome) => {
      if (outcome.saved) {
        await this.#log.truncateBelow(covered + 1);
        this.#snapshotBase = covered;
        this.#sinceSnapshot = Math.max(0, this.#sinceSnapshot - taken);
      }
      return outcome;
    }).finally(() => { this.#snapshotting = null; });
    return this.#snapshotting;
  }

  /** Resolves once no snapshot is being stored (whether the last one was stored or failed). */
  async settled(): Promise<void> {
    while (this.#snapshotting !== null) await this.#snapshotting.catch(() => {});
  }

  /** Stops writing (the partition was lost); queued submissions are refused, and a takeover under way ends deposed (a batch in flight is answered: it is in the log). */
  abandon(): void {
    this.#abandons += 1;
    this.#state = "deposed";
    for (const pending of this.#queue.splice(0)) pending.reject(new NotOwnerError(`partition ${this.partition}: given up`));
  }

  /** Appends and applies the queued commands, a batch at a time, until the queue is empty. */
  async #flush(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#takeBatch();
      if (this.#state !== "owner") {
        for (const pending of batch) pending.reject(new NotOwnerError(`partition ${this.partition}: ${this.#state}, not the owner`));
        continue;
      }
      const generation = this.#generation;
      const messages = logMessagesOf(batch.flatMap((pending) => pending.bytes), this.#maxMessageBytes);
      let positions: number[];
      try {
        positions = await this.#log.append(messages.map((message) => message.bytes));
      } catch (error) {
        // refused on the fence: another node writes now; otherwise part of the batch may be stored
        if (this.#generation === generation) this.#state = error instanceof FencedError ? "deposed" : "stale";
        log.warn({ partition: this.partition, state: this.#state, err: error }, "cluster: a partition's append failed; it stops writing");
        for (const pending of [...batch, ...this.#queue.splice(0)]) pending.reject(error);
        break;
      }
      if (this.#generation !== generation) {
        // a takeover began while in flight: stored, and replayed by that takeover, not applied here
        for (const pending of batch) pending.reject(new SupersededError(`partition ${this.partition}: appended, then taken over again before it was applied`));
        continue;
      }
      try {
        let message = 0, index = 0;
        for (const pending of batch) {
          const answers = pending.records.map((record) => {
            if (index === messages[message].count) { message += 1; index = 0; }
            const position = positions[message];
            const { result, changes, beforeAnswer } = this.#apply(position, index++, record, false);
            return { submitted: { position, result, changes }, beforeAnswer };
          });
          answers[answers.length - 1].beforeAnswer.then(() => pending.resolve(answers.map((a) => a.submitted)), pending.reject);
        }
      } catch (error) {
        for (const pending of batch) pending.reject(error); // those answered already keep their answer
        throw error;
      }
      if (this.#sinceSnapshot >= this.#snapshotEvery && this.#snapshotting === null) {
        const stored = (error: unknown) => { this.#lastSnapshotError = error; this.#onSnapshot(error); };
        this.snapshot().then(() => stored(null), stored);
      }
    }
  }

  /** The next pendings to append together: up to maxBatch records, and at least one pending (never split). */
  #takeBatch(): Pending[] {
    let count = this.#queue[0].records.length, taken = 1;
    while (taken < this.#queue.length && count + this.#queue[taken].records.length <= this.#maxBatch) count += this.#queue[taken++].records.length;
    return this.#queue.splice(0, taken);
  }

  /** A bug in the flush (an apply that threw): nothing more is written, and the next takeover rebuilds the state. */
  #flushFailed(error: unknown): void {
    this.#state = "stale";
    log.error({ partition: this.partition, err: error }, "cluster: a partition's flush failed; it stops writing until taken over again");
    for (const pending of this.#queue.splice(0)) pending.reject(error);
  }

  /** Applies the record at `index` of the log message at `position`: a message's records in one go, index 0 first. */
  #apply(position: number, index: number, record: PartitionRecord, replayed: boolean): { result: ShardResultOf<ShardCommand>; changes: Changes; beforeAnswer: Promise<void> } {
    const shard = this.#shard;
    if (shard === null) throw new Error(`partition ${this.partition}: no shard to apply to`);
    if (index === 0 ? position <= this.#applied : position !== this.#applied) throw new Error(`partition ${this.partition}: record ${position}.${index} after ${this.#applied}: out of order`);
    this.#ids = [...record.ids];
    const result = shard.apply(record.command);
    const changes = shard.takeChanges();
    this.#applied = position;
    this.#sinceSnapshot += 1;
    this.#latestAt = Math.max(this.#latestAt, record.command.kind === "ping" ? record.command.ping.at : record.command.at);
    if (record.intake !== undefined) this.#intakeApplied = Math.max(this.#intakeApplied, record.intake);
    const applied: AppliedRecord = { position, index, command: record.command, changes, replayed };
    this.#onApplied(applied);
    const effectsOf = this.#effectsOf;
    if (effectsOf !== null && position >= this.#effectsFrom) { // the message at #effectsFrom may be stored in part
      // started now, in log order (the stores keep that order while earlier ones are in flight), and
      // counted done once every earlier record's are
      const started = effectsOf(applied);
      if (started !== null) {
        const [stored, beforeAnswer] = started instanceof Promise ? [started, started] : [started.stored, started.beforeAnswer];
        this.#effects = Promise.all([this.#effects, stored]).then(() => {});
        this.#effects.catch((error: unknown) => this.#effectFailed(error));
        this.#beforeAnswer = Promise.all([this.#beforeAnswer, beforeAnswer]).then(() => {});
      }
    }
    return { result, changes, beforeAnswer: this.#beforeAnswer };
  }

  /** A record's effects could not be stored: stop writing; the state is rebuilt by the next takeover. */
  #effectFailed(error: unknown): void {
    if (this.#state !== "owner") return;
    this.#state = "stale";
    log.warn({ partition: this.partition, err: error }, "cluster: a record's effects could not be stored; the partition stops writing");
    for (const pending of this.#queue.splice(0)) pending.reject(error);
  }

  /** The ids a command may hand out while applied: a new check's uuid and badge key. */
  #idsFor(command: ShardCommand): string[] {
    const creates = command.kind === "createCheck" || (command.kind === "ping" && "pingKey" in command.ping.target && command.ping.target.create);
    return creates ? [this.#newId(), this.#newId()] : [];
  }

  #takeId(): string {
    const id = this.#ids.shift();
    if (id === undefined) throw new Error(`partition ${this.partition}: a command handed out more ids than its record carries`);
    return id;
  }
}
