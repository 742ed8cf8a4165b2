// One partition on its owner, serving the single-node shard host's requests (host/shard-host.ts) so the pool
// works unchanged: commands through the log, reads from the shard, ping logs and flips from the history.
import type { Changes, OutboxEntry, SentNotice } from "../engine/changes.ts";
import { hasGivenUp } from "../engine/changes.ts";
import { downSinceFlipNumber, withDownSince } from "../engine/down-since.ts";
import { pingDurations } from "../engine/durations.ts";
import type { ShardPingResult } from "../engine/commands.ts";
import type { Flip, Millis, PingRecord } from "../engine/model.ts";
import { assertNever } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import { fail, ok } from "../engine/outcome.ts";
import type { Shard } from "../engine/shard.ts";
import type { CheckRef, FlipQuery, PingCommand } from "../host/pool-api.ts";
import { PresentedChecks } from "../host/presented-checks.ts";
import { ProjectVersions } from "../host/project-versions.ts";
import type { HostRequest, HostResultOf, PingPage } from "../host/shard-requests.ts";
import type { ShardStats } from "../host/shard-stats.ts";
import { countFlip, heapFigures, newShardCounters, observe } from "../host/shard-stats.ts";
import { checkByRef, checksSince, figuresAt, pingKept, pingsListed } from "../host/shard-reads.ts";
import type { DirectoryChanges } from "./directory-replica.ts";
import { NOTHING_PUBLISHED } from "./directory-replica.ts";
import type { SentStream } from "./sent-stream.ts";
import type { AppliedRecord, PartitionReplica, PartitionReplicaOptions, RecordEffects } from "./partition-replica.ts";
import { newestFirst } from "./history-codec.ts";
import type { HistoryRecord } from "./history-writer.ts";
import { NotOwnerError } from "./partition-replica.ts";
import type { HeldPing } from "./ping-tail.ts";
import { PingTail } from "./ping-tail.ts";

/**
 * Above this many bytes of held pings, a record's effects store them (in the history's segments) without
 * waiting for the next snapshot: what an owner holds in memory for its history stays bounded.
 */
const HELD_BYTES = 16 * 1024 * 1024;

/** Where a partition's ping logs and flips are kept (cluster/partition-history.ts). */
export type PartitionHistoryStore = {
  record(position: number, changes: HistoryRecord, index?: number): Promise<void>;
  storeSegments(position: number, held: ReadonlyMap<string, readonly HeldPing[]>): Promise<void>;
  lastRecorded(): Promise<number>;
  pings(checkUuid: string, limit: number): Promise<PingRecord[]>;
  pingBody(checkUuid: string, n: number): Promise<Uint8Array | null>;
  flips(checkUuid: string, query: FlipQuery): Promise<Flip[]>;
  flipNumber(checkUuid: string, n: number): Promise<Flip | null>;
};

/** Where notifications wait to be delivered (notify/cluster-queue.ts). */
export type NotificationSink = { enqueue(entries: readonly OutboxEntry[]): Promise<void> };

/** The replicated directory as an owner writes it (cluster/directory-replica.ts). */
export type DirectoryWriter = { publish(changes: DirectoryChanges): Promise<number>; caughtUpTo(revision: number): Promise<void> };

export type PartitionHostDeps = {
  /** Opens the partition's history; opened again at each takeover (a history refuses every record after a failed one). */
  readonly openHistory: () => Promise<PartitionHistoryStore>;
  readonly notifications: NotificationSink;
  readonly directory: DirectoryWriter;
  /** The partition's replica while this node owns it and has taken it over, else null. */
  readonly replica: () => PartitionReplica | null;
  /** The waiting notifications (the whole cluster's: asked of one partition only, see "outbox"). */
  readonly pendingNotifications?: () => Promise<OutboxEntry[]>;
  /** Delivered notifications, a check's listed newest first (cluster/sent-stream.ts); none: the list is empty. */
  readonly sent?: Pick<SentStream, "list">;
  /** Above this many bytes of held pings they are stored before the next snapshot (default HELD_BYTES). */
  readonly heldBytes?: number;
  /** Resolves once the partition's pings from the intake stream up to a position are applied (cluster/intake-follower.ts reached). */
  readonly intakeReached?: (seq: number) => Promise<void>;
};

/**
 * The effects of each applied record, started in log order: its notifications queued (before its history,
 * whose last position tells a new owner which records' effects are stored), its flips and deleted checks
 * in the history, what it changed of the directory published (a replayed record's were published by its
 * submitter; a takeover reconciles instead); its pings held and stored as segments at the next snapshot
 * (or sooner past HELD_BYTES). A submitter waits for its directory keys only: a new check is in this node's
 * directory before its creation is answered; its history and notifications follow, and reads of the
 * history wait for them.
 */
export class PartitionHost {
  readonly partition: number;
  readonly #deps: PartitionHostDeps;
  readonly #versions = new ProjectVersions();
  readonly #presented = new PresentedChecks();
  readonly counters = newShardCounters();
  /** Resolves when the last record's history may be written (its notifications queued, the one before it started). */
  #historyTurn: Promise<unknown> = Promise.resolve();
  /** Resolves once the history of every record applied so far is stored: reads of the history wait for it, as a ping is answered before its history is stored. */
  #historyStored: Promise<unknown> = Promise.resolve();
  #history: PartitionHistoryStore | null = null;
  /** The pings applied and not yet stored in the history (ping-tail.ts): stored at each snapshot. */
  readonly #held = new PingTail();
  /** A store of held pings started because too many bytes were held, until it is done (one at a time). */
  #storingHeld: Promise<void> | null = null;

  constructor(partition: number, deps: PartitionHostDeps) {
    this.partition = partition;
    this.#deps = deps;
  }

  /** The replica options that make the partition's log carry out this host's effects. */
  replicaOptions(): Pick<PartitionReplicaOptions, "effects" | "recordedUpTo" | "onApplied" | "beforeSnapshot"> {
    return {
      effects: (applied) => this.#effects(applied),
      recordedUpTo: async () => {
        // at each takeover, before the replay after its snapshot: the replay holds the pings again
        this.#held.clear();
        this.#history = await this.#deps.openHistory();
        this.#historyTurn = Promise.resolve();
        this.#historyStored = Promise.resolve();
        return this.#history.lastRecorded();
      },
      onApplied: ({ changes }) => {
        this.#versions.note(changes);
        this.#held.apply(changes.pings, changes.deletedChecks);
      },
      beforeSnapshot: (covered) => this.#storeHeld(covered),
    };
  }

  /**
   * Carries out `request` once the partition's pings from the intake stream up to `after` are applied (at
   * once for 0): it sees every ping answered before it was asked.
   */
  async applyAfter<R extends HostRequest>(request: R, after: number): Promise<HostResultOf<R>> {
    if (after > 0 && this.#deps.intakeReached !== undefined) await this.#deps.intakeReached(after);
    return this.apply(request);
  }

  /** Serves one request (a command through the log, or a read); NotOwnerError while this node does not serve the partition. */
  async apply<R extends HostRequest>(request: R): Promise<HostResultOf<R>> {
    return (await this.#serve(request)) as HostResultOf<R>; // #serve's switch pairs each kind with its result
  }

  async #serve(r: HostRequest): Promise<HostResultOf<HostRequest>> {
    switch (r.kind) {
      case "createProject":
      case "muteProject":
      case "addChannel":
      case "removeChannel":
      case "updateChannel":
      case "createCheck":
      case "updateCheck":
      case "pauseCheck":
      case "resumeCheck":
      case "deleteCheck":
      case "advance":
      case "holdForDowntime":
      case "acknowledgeCheck":
      case "changeProject":
      case "addMaintenance":
      case "removeMaintenance":
      case "importCheck":
      case "importPings":
        return (await this.#replica().submit(r)).result;
      case "pingBatch":
        return this.#pingBatch(r.pings);
      case "channels":
        return this.#read((shard) => shard.channels(r.projectId));
      case "projectVersion":
        return this.#read(() => this.#versions.versionOf(r.projectId));
      case "checksSince":
        return this.#read((shard) => checksSince(shard, this.#versions, r.projectId, r.since));
      case "listChecks":
        return this.#read((shard) => shard.listChecks(r.projectId, r.query));
      case "listChecksJson":
        return this.#read((shard) => this.#presented.listJson(shard.listChecks(r.projectId, r.query), r.view));
      case "getCheck":
        return this.#read((shard) => checkByRef(shard, r.projectId, r.ref));
      case "listPings":
        return this.#listPings(r.projectId, r.uuid, r.pingLogLimit);
      case "pingBody":
        return this.#pingBody(r.projectId, r.uuid, r.n, r.pingLogLimit);
      case "listFlips":
        return this.#listFlips(r.projectId, r.ref, r.query);
      case "listSent":
        return this.#listSent(r.projectId, r.uuid);
      case "probe":
        this.#replica();
        return;
      case "pruneFlips":
        return 0; // the history keeps each check's newest flips only (its stream's limit per subject)
      case "outbox":
        return this.partition === 0 ? ((await this.#deps.pendingNotifications?.()) ?? []) : [];
      case "stats":
        return this.#stats(r.at);
      case "directory":
        throw new Error("the directory is replicated in cluster mode, not asked of partitions");
      case "close":
        return;
      case "intakePings":
      case "commitIntake":
        throw new Error("a cluster node has no intake log: its pings go through the partition's replicated log");
      case "tick":
        throw new Error("a partition's deadlines are applied by its owner's own timer");
      case "holdCheckpoints":
      case "releaseCheckpoints":
      case "copyStore":
        throw new Error("backup is not available in cluster mode: the cluster's streams are its copies");
      default:
        return assertNever(r);
    }
  }

  #replica(): PartitionReplica {
    const replica = this.#deps.replica();
    if (replica === null) throw new NotOwnerError(`partition ${this.partition}: not served here`);
    return replica;
  }

  #historyStore(): PartitionHistoryStore {
    if (this.#history === null) throw new NotOwnerError(`partition ${this.partition}: not taken over here`);
    return this.#history;
  }

  #read<T>(query: (shard: Shard) => T): T {
    return this.#replica().read(query);
  }

  async #pingBatch(pings: readonly PingCommand[]): Promise<Outcome<ShardPingResult>[]> {
    const replica = this.#replica();
    observe(this.counters.groupSize, pings.length);
    const startedAt = performance.now();
    // one append for the whole batch, or none of it: a refusal (NotOwnerError) may then be sent again whole
    const results = await replica.submitAll(pings.map((ping) => ({ kind: "ping" as const, ping })));
    observe(this.counters.commitSeconds, (performance.now() - startedAt) / 1000);
    return results.map((submitted) => submitted.result);
  }

  async #listPings(projectId: string, uuid: string, pingLogLimit: number): Promise<Outcome<PingPage>> {
    const found = this.#read((shard) => shard.getCheck(projectId, uuid));
    if (!found.ok) return found;
    const limit = pingsListed(pingLogLimit);
    const held = this.#held.newest(uuid, limit).map((ping) => ping.record);
    const stored = held.length >= limit ? [] : await this.#historyStore().pings(uuid, limit);
    const pings = newestFirst([...held, ...stored], limit); // a ping released meanwhile is in both: listed once
    return ok({ check: found.value, pings, durationsMs: pingDurations(pings) });
  }

  async #listSent(projectId: string, uuid: string): Promise<Outcome<SentNotice[]>> {
    const found = this.#read((shard) => checkByRef(shard, projectId, { uuid }));
    if (!found.ok) return found;
    return ok((await this.#deps.sent?.list(found.value.uuid)) ?? []);
  }

  async #pingBody(projectId: string, uuid: string, n: number, pingLogLimit: number): Promise<Outcome<Uint8Array>> {
    const found = this.#read((shard) => shard.getCheck(projectId, uuid));
    if (!found.ok) return found;
    if (!pingKept(found.value, n, pingLogLimit)) return fail({ code: "not_found", what: "ping" });
    const held = this.#held.find(uuid, n);
    const body = held !== undefined ? held.body : await this.#historyStore().pingBody(uuid, n);
    return body && body.length > 0 ? ok(body) : fail({ code: "not_found", what: "ping body" });
  }

  async #listFlips(projectId: string, ref: CheckRef, query: FlipQuery): Promise<Outcome<Flip[]>> {
    await this.#historyStored;
    const found = this.#read((shard) => checkByRef(shard, projectId, ref));
    if (!found.ok) return found;
    return ok(await this.#historyStore().flips(found.value.uuid, query));
  }

  async #stats(at: Millis): Promise<ShardStats> {
    const { checks, alerting } = await figuresAt(
      this.#read((shard) => shard),
      at,
    );
    return { ...this.counters, checks, alerting, outboxPending: 0, outboxGivenUp: 0, journalPending: 0, heap: heapFigures() };
  }

  // ---- effects of applied records ----

  /**
   * Carries out one record's effects. Called for each record in log order as it is applied; the history
   * is written in that order even while an earlier record's notifications are still being queued (a
   * record's history is started after its own notifications are queued and after the earlier record's
   * history was started), so the history's last position always means "every effect up to here is stored".
   *
   * The record's submitter waits only for its directory keys (a new check is known to this node's lookups
   * before its creation is answered): its notifications and history follow the answer, as a new owner
   * carries them out again from the log after the last position the history holds, and this node's reads
   * of the history wait for what is in flight. A ping is answered a history write sooner.
   */
  #effects(applied: AppliedRecord): RecordEffects {
    const { changes, position, index } = applied;
    const published = applied.replayed ? NOTHING_PUBLISHED : this.#deps.directory.publish(changes);
    const storeHeld = this.#held.bytes > (this.#deps.heldBytes ?? HELD_BYTES) && this.#storingHeld === null;
    if (
      published === NOTHING_PUBLISHED &&
      !storeHeld &&
      changes.outbox.length + changes.flips.length + changes.deletedChecks.length === 0
    ) {
      return null; // most pings: nothing to store or wait for but their holding (onApplied)
    }
    const notified =
      changes.outbox.length > 0 ? this.#withDownSince(changes).then((entries) => this.#deps.notifications.enqueue(entries)) : null;
    const turn = notified === null ? this.#historyTurn : this.#historyTurn.then(() => notified);
    // its pings are held (onApplied) and stored with the others at the next snapshot
    const history = { flips: changes.flips, deletedChecks: changes.deletedChecks };
    const written =
      history.flips.length + history.deletedChecks.length > 0
        ? turn.then(() => this.#historyStore().record(position, history, index))
        : turn;
    this.#historyTurn = turn;
    turn.catch(() => {}); // the failure reaches the replica through `recorded`
    const recorded = storeHeld ? Promise.all([written, this.#storeHeldNow(position)]) : written;
    this.#historyStored = Promise.all([this.#historyStored, recorded]).catch(() => {}); // a failure stops the replica: its reads are refused
    for (const flip of changes.flips) countFlip(this.counters, flip);
    const beforeAnswer = published.then(async (revision) => {
      if (revision > 0) await this.#deps.directory.caughtUpTo(revision); // this node's lookups see it before the answer
    });
    return { stored: Promise.all([recorded, beforeAnswer]).then(() => {}), beforeAnswer };
  }

  /**
   * Stores the held pings not yet on their way (those of the records up to `position`) in the history's
   * segments, after every history write of those records has been sent (so the segments' position means
   * what a record's does: everything before it is stored), and lets them go once acknowledged.
   */
  #storeHeld(position: number): Promise<void> {
    const taken = this.#held.take();
    if (taken.size === 0) return Promise.resolve();
    return this.#historyTurn.then(() => this.#historyStore().storeSegments(position, taken)).then(() => this.#held.release(taken));
  }

  /** Stores the held pings before the next snapshot (too many bytes held); the next such store waits until this one is done. */
  #storeHeldNow(position: number): Promise<void> {
    const storing = this.#storeHeld(position);
    this.#storingHeld = storing;
    const done = () => {
      this.#storingHeld = null;
    };
    storing.then(done, done);
    return storing;
  }

  /** Completes up flips' and reminders' notifications with when the check went down (as the single-node host does). */
  async #withDownSince(changes: Changes): Promise<OutboxEntry[]> {
    const here = new Map(changes.flips.map((f) => [`${f.checkUuid} ${f.n}`, f] as const));
    // an earlier record's flip may still be on its way to the history (the answer does not wait for it)
    const flipNumber = async (uuid: string, n: number) =>
      here.get(`${uuid} ${n}`) ?? (await this.#historyStored, this.#historyStore().flipNumber(uuid, n));
    return Promise.all(
      changes.outbox.map(async (entry) => {
        const n = hasGivenUp(entry) ? null : downSinceFlipNumber(entry);
        return n === null ? entry : withDownSince(entry, await flipNumber(entry.check.uuid, n));
      }),
    );
  }
}
