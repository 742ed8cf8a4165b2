// ShardHost: one Shard, its store, and (optionally) its notification deliverer. Every command is
// applied to the shard at once, and its promise resolves only when what it changed is committed.
// Runs inside a worker thread (production) or in-process (tests) with the same code.
import type { Durability } from "../persistence/open.ts";
import type { Changes, OutboxEntry } from "../engine/changes.ts";
import { isEmpty } from "../engine/changes.ts";
import { downSinceFlipNumber, withDownSince } from "../engine/down-since.ts";
import type { ShardPingResult } from "../engine/commands.ts";
import type { Channel, Flip, Millis } from "../engine/model.ts";
import { assertNever } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import { Shard } from "../engine/shard.ts";
import type { PingCommand } from "./pool-api.ts";
import { openStore, Store } from "../persistence/store.ts";
import { ShardIntake } from "./shard-intake.ts";
import { checkByRef, checksSince, figuresAt } from "./shard-reads.ts";
import { flipsOf, outboxFigures, pingBody, pingPage, sentNotices } from "./store-reads.ts";
import { PresentedChecks } from "./presented-checks.ts";
import { ProjectVersions } from "./project-versions.ts";
import { shardOf } from "./routing.ts";
import { packChecks } from "./check-directory.ts";
import type { ShardStats } from "./shard-stats.ts";
import { countFlip, heapFigures, newShardCounters, observe } from "./shard-stats.ts";
import { log } from "./log.ts";
import { RetriedFailure } from "./retried-failure.ts";
import { CommitEpisode } from "./commit-episode.ts";
import type { HostRequest, HostResultOf, ShardDirectory } from "./shard-requests.ts";
import { isStoreUnavailable, WriteFailures } from "./write-failures.ts";

const SLOW_COMMIT_SECONDS = 1; // a commit is one small log append and a disk sync: 1 s means trouble

export type ShardHostOptions = {
  readonly dataDir: string;
  readonly durability: Durability;
  readonly index: number;
  readonly count: number;
  readonly startAt: Millis;
  readonly newId: () => string;
  /** Apply deadlines that passed while stopped (false for maintenance access). */
  readonly applyMissedDeadlines: boolean;
  /** Intake logs of front ends gone (a crash): their pings past this shard's marks are applied at open. */
  readonly intakeLeft?: readonly string[];
  /** How long applied intake pings may wait for a commit (shard-intake.ts INTAKE_COMMIT_MS unless given). */
  readonly intakeCommitMs?: number;
};

export class ShardHost {
  #shard: Shard; // replaced by one rebuilt from the store when a commit failed after the shard applied it
  readonly #store: Store;
  readonly #options: ShardHostOptions;
  readonly #writes: WriteFailures;
  readonly #episode: CommitEpisode; // after a failed commit: the rebuild and the probe writes
  #lastAt: Millis;
  readonly #closers: (() => void | Promise<void>)[] = [];
  readonly #presented = new PresentedChecks();
  readonly #versions = new ProjectVersions();
  readonly #owns: (entry: OutboxEntry) => boolean; // this shard's notifications (all shards share the outbox table)
  /** What /metrics reads of this shard (counted here, read on scrape). */
  readonly counters = newShardCounters();
  #releaseCheckpoints: (() => void) | null = null;
  readonly #intake: ShardIntake; // pings acknowledged from the front ends' intake logs
  readonly #rebuilds: RetriedFailure; // a rebuild that fails is retried by every probe: logged once per episode
  readonly #ticks: { readonly deadlines: RetriedFailure; readonly checkpoint: RetriedFailure }; // the same for the ticker's work
  /** Called after a commit that queued notifications (the deliverer hooks in here). */
  onOutbox: ((now: Millis) => void) | null = null;

  private constructor(shard: Shard, store: Store, startAt: Millis, owns: (entry: OutboxEntry) => boolean, options: ShardHostOptions) {
    this.#shard = shard;
    this.#store = store;
    this.#options = options;
    this.#writes = new WriteFailures(`shard ${options.index}`, options.dataDir);
    this.#rebuilds = new RetriedFailure(`shard ${options.index}: rebuilding from the store after a failed commit`);
    this.#ticks = {
      deadlines: new RetriedFailure(`shard ${options.index}: applying deadlines`),
      checkpoint: new RetriedFailure(`shard ${options.index}: checkpoint`),
    };
    this.#lastAt = startAt;
    this.#owns = owns;
    this.#intake = new ShardIntake({
      index: options.index,
      count: options.count,
      dataDir: options.dataDir,
      commitMs: options.intakeCommitMs,
      apply: (projectId, command) => this.#applyIntake(projectId, command),
      pendingNotifications: () => this.#shard.pendingNotifications(),
      commit: () => this.#commitAfter(this.#lastAt, () => undefined),
      failing: () => this.#episode.failing,
      markOf: (writer, shard) => this.#store.intakeMark(writer, shard),
    });
    this.#episode = new CommitEpisode({
      rebuild: () => this.#rebuild(),
      mayTry: (bytes) => this.#writes.mayTry(bytes),
      probeWrite: (bytes) => this.#store.probeWrite(bytes),
      recovered: () => {
        this.#writes.succeeded("commit");
        if (this.#intake.ledger.pending) this.#intake.commitSoon(0);
      },
      probeFailed: (error) => {
        this.counters.probeFailures++;
        this.#writes.failed("commit", error);
      },
    });
    store.onCheckpoint = (seconds) => observe(this.counters.checkpointSeconds, seconds);
  }

  /** Opens the store, loads this shard's projects, and applies deadlines missed while stopped. */
  static async open(options: ShardHostOptions): Promise<ShardHost> {
    const store = await openStore(options.dataDir, { durability: options.durability });
    const shard = new Shard({ newId: options.newId, now: options.startAt });
    for (const project of store.loadProjects()) {
      if (shardOf(project.id, options.count) !== options.index) continue;
      shard.load(project, store.loadChannels(project.id), store.loadChecks(project.id));
    }
    const host = new ShardHost(
      shard,
      store,
      options.startAt,
      (entry) => shardOf(entry.projectId, options.count) === options.index,
      options,
    );
    // acknowledged pings a crash left in intake logs, before the deadlines that passed since
    host.#intake.replay(options.intakeLeft ?? []);
    if (options.applyMissedDeadlines) await host.advance(options.startAt);
    else if (host.#intake.ledger.pending) await host.#commitAfter(options.startAt, () => undefined);
    return host;
  }

  /** Returns this shard's projects and check routing entries. */
  directory(): ShardDirectory {
    return {
      projects: this.#shard.projects(),
      checks: packChecks(this.#shard.routes(), this.#shard.checkCount),
      pushTokens: [...this.#shard.pushTokens()],
    };
  }

  /** Returns the store (for the deliverer's outbox access inside this thread). */
  store(): Store {
    return this.#store;
  }

  /** Serves one request of the pool: a change to the shard (committed before it answers), or a read. */
  async apply<R extends HostRequest>(request: R): Promise<HostResultOf<R>> {
    return (await this.#serve(request)) as HostResultOf<R>; // #serve's switch pairs each kind with its result
  }

  async #serve(r: HostRequest): Promise<HostResultOf<HostRequest>> {
    switch (r.kind) {
      case "createProject":
      case "muteProject":
      case "changeProject":
      case "addMaintenance":
      case "removeMaintenance":
      case "addChannel":
      case "updateChannel":
      case "createCheck":
      case "updateCheck":
      case "pauseCheck":
      case "resumeCheck":
      case "deleteCheck":
      case "holdForDowntime":
      case "acknowledgeCheck":
      case "importCheck":
      case "importPings":
        return this.#commitAfter(r.at, () => this.#shard.apply(r));
      case "removeChannel":
        return this.#removeChannel(r);
      case "pingBatch":
        return this.#pingBatch(r.pings);
      case "intakePings":
        observe(this.counters.groupSize, r.batch.positions.length);
        return this.#intake.receive(r.writer, r.batch);
      case "commitIntake":
        return this.#intake.firstUnlogged(r.writer);
      case "advance":
        return this.advance(r.at);
      case "tick":
        return this.#tick(r.at);
      case "directory":
        return this.directory();
      case "channels":
        return this.#shard.channels(r.projectId);
      case "projectVersion":
        return this.#versions.versionOf(r.projectId);
      case "checksSince":
        return checksSince(this.#shard, this.#versions, r.projectId, r.since);
      case "listChecks":
        return this.#shard.listChecks(r.projectId, r.query);
      case "listChecksJson":
        return this.#presented.listJson(this.#shard.listChecks(r.projectId, r.query), r.view);
      case "getCheck":
        return checkByRef(this.#shard, r.projectId, r.ref);
      // the ping log and flips are read from the store: what intake pings wrote must be in it first
      case "listPings":
        await this.#intake.log();
        return pingPage(this.#shard, this.#store, r.projectId, r.uuid, r.pingLogLimit);
      case "pingBody":
        await this.#intake.log();
        return pingBody(this.#shard, this.#store, r.projectId, r.uuid, r.n, r.pingLogLimit);
      case "listFlips":
        await this.#intake.log();
        return flipsOf(this.#shard, this.#store, r.projectId, r.ref, r.query);
      case "listSent":
        return sentNotices(this.#shard, this.#store, r.projectId, r.uuid);
      case "probe":
        return this.#probe();
      case "pruneFlips":
        return this.#store.pruneFlips(r.beforeAt);
      case "outbox":
        return this.#outbox();
      case "stats":
        return this.#stats(r.at);
      case "holdCheckpoints":
        await this.#intake.commit(); // a backup holds every ping acknowledged before it began
        this.#releaseCheckpoints = await this.#store.holdCheckpoints();
        return;
      case "releaseCheckpoints":
        this.#releaseCheckpoints?.();
        this.#releaseCheckpoints = null;
        return;
      // a compacted copy of the whole store (every shard's): every shard must hold its checkpoints
      case "copyStore":
        return this.#store.copyTo(r.dir);
      case "close":
        return this.close();
      default:
        return assertNever(r);
    }
  }

  /**
   * Removes a channel, and answers only once its waiting notifications are out of the outbox table the
   * deliverer reads (a checkpoint applies the removal there): none is sent after the answer.
   */
  async #removeChannel(r: Extract<HostRequest, { kind: "removeChannel" }>): Promise<Outcome<Channel>> {
    const removed = await this.#commitAfter(r.at, () => this.#shard.apply(r));
    if (removed.ok) await this.checkpoint();
    return removed;
  }

  /** Applies every deadline due at or before `now` and stores the flips. */
  async advance(now: Millis): Promise<void> {
    await this.#commitAfter(now, () => this.#shard.apply({ kind: "advance", at: now }));
    this.onOutbox?.(this.#lastAt);
  }

  /**
   * Applies deadlines up to `at`, then checkpoints when one is due; a failure of either is logged once per
   * episode (a store write failure by the store's episode) and tried again at the next tick. The checkpoint also
   * runs when deadlines could not be applied: it may be what failed, and it retries.
   */
  async #tick(at: Millis): Promise<void> {
    await this.advance(at).then(() => this.#ticks.deadlines.succeeded(), retriedUnlessStoreUnavailable(this.#ticks.deadlines));
    await this.checkpointIfDue().then(() => this.#ticks.checkpoint.succeeded(), retriedUnlessStoreUnavailable(this.#ticks.checkpoint));
  }

  /** Applies a batch of pings with one commit; each result in the order given. */
  async #pingBatch(pings: readonly PingCommand[]): Promise<Outcome<ShardPingResult>[]> {
    const at = pings.reduce((max, c) => Math.max(max, c.at), this.#lastAt);
    observe(this.counters.groupSize, pings.length);
    return this.#commitAfter(at, () => pings.map((ping) => this.#shard.apply({ kind: "ping", ping })));
  }

  /** Applies one ping acknowledged from an intake log (a check deleted since the front end looked: nothing to do). */
  #applyIntake(projectId: string, command: PingCommand): void {
    this.#lastAt = Math.max(this.#lastAt, command.at);
    const applied = this.#shard.apply({ kind: "ping", ping: command });
    if (applied.ok) this.#versions.noteCheck(projectId, applied.value.checkUuid); // readers see it from now on
  }

  /** Throws while store writes fail (an episode of failures), or when the store can't be read. */
  #probe(): void {
    if (this.#writes.failing) throw this.#writes.error();
    this.#store.probe();
  }

  /** Returns this shard's counters and its checks by status at `at`, its outbox and log backlog (for /metrics). */
  async #stats(at: Millis): Promise<ShardStats> {
    const { checks, alerting } = await figuresAt(this.#shard, at);
    return {
      ...this.counters,
      checks,
      alerting,
      ...outboxFigures(this.#store, this.#owns),
      journalPending: this.#store.journaledCommits(),
      heap: heapFigures(),
    };
  }

  async #outbox(): Promise<OutboxEntry[]> {
    await this.#intake.log();
    await this.checkpoint();
    return this.#store.outboxAll().filter(this.#owns);
  }

  /** Checkpoints when notifications were queued since the last one (the deliverer reads the outbox from the tables), or when one is due. */
  checkpointForOutbox(): Promise<void> {
    return this.#store.hasLoggedOutbox() ? this.checkpoint() : this.checkpointIfDue();
  }

  /** Checkpoints when the store says one is due (the oldest commit in its log is old, or the last checkpoint failed); called periodically. */
  checkpointIfDue(): Promise<void> {
    return this.#store.checkpointDue() ? this.checkpoint() : Promise.resolve();
  }

  /** Applies what the log holds to the tables (when due, and before reads of the outbox). */
  checkpoint(): Promise<void> {
    if (!this.#writes.mayTry(0)) return Promise.reject(this.#writes.error()); // what it would apply stays in the log
    return this.#store.checkpoint().then(
      () => this.#writes.succeeded("checkpoint"),
      (error: unknown) => {
        this.counters.checkpointFailures++;
        this.#writes.failed("checkpoint", error); // what it took stays journaled: the next checkpoint retries it
        throw this.#writes.error();
      },
    );
  }

  /** Registers something to stop when the host closes (its timer). */
  onClose(closer: () => void | Promise<void>): void {
    this.#closers.push(closer);
  }

  async close(): Promise<void> {
    // the intake pings applied here go to this shard's log; if that fails, the intake log keeps them for a restart
    await this.#intake.log();
    this.#intake.stop();
    this.#episode.stop();
    for (const closer of this.#closers.splice(0)) await closer();
    await this.#store.close();
  }

  // ---- internals ----

  /** Runs a command on the shard, then commits what it changed; resolves with its result after the commit. */
  async #commitAfter<T>(at: Millis, command: () => T): Promise<T> {
    // While commits fail nothing is applied: the shard must never hold what the store does not.
    if (this.#episode.failing) {
      this.#writes.refused();
      throw this.#writes.error();
    }
    this.#lastAt = Math.max(this.#lastAt, at);
    const result = command();
    const taken = this.#shard.takeChanges();
    this.#versions.note(taken); // readers see the shard's state from now on, committed or not
    const marks = this.#intake.ledger.takeMarks(); // the intake pings applied before this take are in it
    const changes = marks.length === 0 ? taken : { ...taken, intake: marks };
    if (!isEmpty(changes)) {
      const record = this.#withLogDetails(changes);
      this.#episode.started();
      const startedAt = performance.now();
      try {
        await this.#store.commit(record);
      } catch (error) {
        this.counters.commitFailures++;
        // The shard applied these changes (and maybe later ones, committed on top of them): it is
        // rebuilt from the store once no commit is in flight, and changes wait until a write succeeds.
        this.#writes.failed("commit", error);
        this.#episode.failed(Store.recordSize(record));
        throw this.#writes.error();
      } finally {
        this.#episode.settled();
      }
      this.#intake.ledger.logged(marks);
      const seconds = (performance.now() - startedAt) / 1000;
      observe(this.counters.commitSeconds, seconds);
      if (seconds >= SLOW_COMMIT_SECONDS)
        log.warn({ seconds: Math.round(seconds * 1000) / 1000, pings: changes.pings.length }, "slow commit");
      for (const flip of changes.flips) countFlip(this.counters, flip);
      if (changes.outbox.length > 0) this.onOutbox?.(this.#lastAt);
    }
    return result;
  }

  /** Replaces the shard with one loaded from what the store holds (the tables plus the log). */
  #rebuild(): boolean {
    const { index, count, newId } = this.#options;
    try {
      const shard = new Shard({ newId, now: this.#lastAt });
      for (const { project, channels, checks } of this.#store.loadDurable((id) => shardOf(id, count) === index)) {
        shard.load(project, channels, checks);
      }
      // acknowledged from an intake log, not yet in this shard's log: applied again, committed later
      for (const command of this.#intake.ledger.commands()) shard.apply({ kind: "ping", ping: command });
      this.#shard = shard;
      this.#versions.reset();
      this.#rebuilds.succeeded();
      return true;
    } catch (error) {
      // the store can't be read either, or the load failed: the probe tries again, and says so
      this.counters.rebuildFailures++;
      this.#rebuilds.failed(error);
      return false;
    }
  }

  /**
   * Completes notifications with what only the logs know: for up flips and reminders, when the check went down
   * (the last ping of a deadline's flip is filled in when the outbox is read: persistence/outbox.ts).
   */
  #withLogDetails(changes: Changes): Changes {
    if (changes.outbox.length === 0) return changes;
    // this commit's flips by check and number: a lookup per entry, not a scan (a burst of up flips must not cost flips x entries)
    let flipsHere: Map<string, Flip> | null = null;
    const outbox = changes.outbox.map((entry) => {
      const n = downSinceFlipNumber(entry);
      if (n === null) return entry; // unchanged entries stay the same objects: a burst of 100,000 deadlines' notifications copies nothing
      flipsHere ??= new Map(changes.flips.map((f) => [`${f.checkUuid} ${f.n}`, f] as const));
      return withDownSince(entry, flipsHere.get(`${entry.check.uuid} ${n}`) ?? this.#store.flipNumber(entry.check.uuid, n));
    });
    return { ...changes, outbox };
  }
}

/** Counts a failure in its episode (logged once), except a store write failure's refusals, which that episode logs (write-failures.ts). */
function retriedUnlessStoreUnavailable(episode: RetriedFailure): (error: unknown) => void {
  return (error) => {
    if (!isStoreUnavailable(error)) episode.failed(error);
  };
}
