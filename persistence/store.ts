// openStore(dir): the tables, an LMDB env with named dbs (see tables.ts) in dir, msgpack values with
// shared structures and ordered array keys, and this store's command log in dir/log. Several worker
// threads may open the same dir; each writes only its own projects, and its own log.
//
// A commit is one record of the log: all of it lands or none does. The log writes the appends of one
// event-loop turn together, so concurrent commits share one disk sync.
import { copyFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { randomUUID } from "node:crypto";
import type { Changes, OutboxEntry, SentNotice } from "../engine/changes.ts";
import { FileLog, segmentFiles, segmentName, syncDir } from "./file-log.ts";
import { dropMark, intakeMark, keyProblem } from "./journal.ts";
import { encodeJournal, encodeProbe } from "./journal-codec.ts";
import { Checkpoints } from "./checkpoints.ts";
import type { Journaled } from "./checkpoints.ts";
import type { Channel, Check, Flip, Millis, PingRecord, Project } from "../engine/model.ts";
import { flipNumbered, flipsOf, pruneFlips } from "./flip-log.ts";
import { LogOverlay } from "./log-overlay.ts";
import { tolerateLmdbBatchRejections } from "./lmdb-rejections.ts";
import { outboxAll, outboxDue, outboxHas, outboxReplace } from "./outbox.ts";
import { pingBody, pingNumbered, pingPage } from "./ping-log.ts";
import { recordDelivered, sentNotices } from "./sent-log.ts";
import { loadChannels, loadChecks, loadDurable, loadProjects } from "./snapshots.ts";
import type { Tables } from "./tables.ts";
import { LOG_DIR, makeDir, observed, openTables, READABLE_SCHEMAS, SCHEMA_VERSION } from "./open.ts";
import type { Durability, Leftovers, StoreOptions } from "./open.ts";

/** Opens (creating if missing, unless readOnly) the store in `dir`; rejects with an Error naming the path and the cause. */
export async function openStore(dir: string, options: StoreOptions): Promise<Store> {
  tolerateLmdbBatchRejections(); // a failed write must not end the thread: its callers are told
  try {
    const { tables, leftovers } = await openTables(dir, options);
    return new Store(dir, tables, options, leftovers);
  } catch (cause) {
    throw new Error(`cannot open the store at ${dir}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** The persistent state of hcd: snapshots, ping logs, flips and the outbox in one LMDB env, and the log of commits not yet in it. */
export class Store {
  readonly #dir: string;
  readonly #tables: Tables;
  readonly #durability: Durability;
  readonly #readOnly: boolean;
  readonly #cleanup: Promise<void>;
  readonly #writer = randomUUID(); // names this Store's log and its mark in the tables: several threads write one dir
  readonly #log: FileLog;
  #writing: Journaled[] = []; // log appends not yet resolved: a failed one must never reach the tables
  readonly #overlay = new LogOverlay(); // what readers see of the commits not yet in the tables
  readonly #checkpoints: Checkpoints;
  #lastWrite: Promise<void> = Promise.resolve(); // settles after every log append before it
  /** Hears how long each checkpoint took, in seconds (for /metrics). */
  onCheckpoint: ((seconds: number) => void) | null = null;

  constructor(dir: string, tables: Tables, options: StoreOptions, leftovers: Leftovers) {
    this.#dir = dir;
    this.#tables = tables;
    this.#durability = options.durability;
    this.#readOnly = options.readOnly ?? false;
    this.#log = new FileLog(join(dir, LOG_DIR), this.#writer, { sync: options.durability === "flush" });
    this.#checkpoints = new Checkpoints({
      dir,
      tables,
      writer: this.#writer,
      durability: options.durability,
      log: this.#log,
      overlay: this.#overlay,
      onCheckpoint: (seconds) => this.onCheckpoint?.(seconds),
    });
    // what the replay applied from crashed writers' logs goes once the tables are on disk: a write of
    // our own, flushed, syncs every commit before it
    const { logFiles, legacyJournal } = leftovers;
    this.#cleanup =
      logFiles.length === 0 && !legacyJournal
        ? Promise.resolve()
        : observed(tables.meta.put("schema", SCHEMA_VERSION))
            .then(() => tables.env.flushed)
            .then(() => {
              for (const file of logFiles) rmSync(file, { force: true });
              if (logFiles.length > 0) syncDir(join(dir, LOG_DIR));
              if (legacyJournal) rmSync(join(dir, "journal"), { recursive: true, force: true });
            })
            .then(
              () => undefined,
              () => undefined,
            ); // left behind, their records are skipped by their marks
  }

  /** Returns every project, ordered by id. */
  loadProjects(): Project[] {
    return loadProjects(this.#tables);
  }

  /** Returns a project's channels, ordered by id. */
  loadChannels(projectId: string): Channel[] {
    return loadChannels(this.#tables, projectId);
  }

  /** Returns the position of intake log `writer` that shard `shard`'s checkpointed commits reach (0 = none; read it at open, when the log is all in the tables). */
  intakeMark(writer: string, shard: string): number {
    return intakeMark(this.#tables, writer, shard);
  }

  /** Returns a project's checks, ordered by uuid. */
  loadChecks(projectId: string): Check[] {
    return loadChecks(this.#tables, projectId);
  }

  /**
   * Makes `changes` durable as one record of the log (one small append, atomic: all of it or none),
   * shared with the other commits of this event-loop turn. Resolves once durable (see Durability). The
   * tables see it at the next checkpoint, which runs by itself once enough is pending.
   */
  commit(changes: Changes): Promise<void> {
    if (Object.values(changes).every((value: unknown) => !Array.isArray(value) || value.length === 0)) return Promise.resolve();
    // What the log accepts, a checkpoint must be able to apply: refuse unstorable keys up front.
    const problem = keyProblem(changes);
    if (problem !== null) return Promise.reject(new Error(`commit refused: ${problem}`));
    const journaled: Journaled = { seq: 0, changes };
    const record = encodeJournal(changes);
    this.#writing.push(journaled);
    this.#overlay.add(changes);
    // Only a commit the log holds may be checkpointed: one whose write failed (a full disk, EIO) leaves
    // no trace in the tables either. The log resolves appends in order, so #pending stays in order.
    const written = this.#log.append([record]).then(
      ([seq]) => {
        journaled.seq = seq;
        this.#unwrite(journaled);
        this.#checkpoints.logged(journaled, record.length);
      },
      (error: unknown) => {
        this.#unwrite(journaled);
        this.#overlay.remove([changes]);
        throw error;
      },
    );
    this.#lastWrite = written.catch(() => undefined);
    return written;
  }

  /** Returns the size of a commit's record in bytes (what a probe after its failure must write). */
  static recordSize(changes: Changes): number {
    return encodeJournal(changes).length;
  }

  /** Appends a record of about `bytes` that changes nothing (a replay applies nothing from it); rejects when the write fails. */
  async probeWrite(bytes: number): Promise<void> {
    await this.#log.append([encodeProbe(bytes)]);
  }

  /**
   * Returns the projects `accept` takes, with their channels and checks, as the store holds them: the
   * tables plus the commits logged but not yet applied to them (a shard rebuilds from this when a
   * commit failed after its changes were applied in memory).
   */
  loadDurable(accept: (projectId: string) => boolean): { project: Project; channels: Channel[]; checks: Check[] }[] {
    return loadDurable(this.#tables, this.#checkpoints.unapplied(), accept);
  }

  /**
   * Applies every commit logged so far to the tables, then drops them from the log; resolves when the
   * tables show them (checkpoints.ts). Reads of the outbox call this first.
   */
  checkpoint(): Promise<void> {
    return this.#checkpoints.run();
  }

  // ---- reads: the tables plus what is logged but not yet in them (the overlay, by check), so that a
  // read never waits for a checkpoint; a transaction already applied may show in both, hence the dedupe by n ----

  /**
   * Returns a check's newest ping and its body, including commits not yet checkpointed; null when none.
   * With `n`, the check's ping count as committed (its newest ping's n), the tables' newest is read by
   * its key, not found by a scan (a burst of notifications reads one per entry).
   */
  newestPing(checkUuid: string, n?: number): { record: PingRecord; body: Uint8Array | null } | null {
    const logged = this.#overlay.pings(checkUuid).at(-1);
    if (logged !== undefined) return { record: logged.record, body: logged.body };
    const record = (n === undefined ? undefined : pingNumbered(this.#tables, checkUuid, n)) ?? pingPage(this.#tables, checkUuid, 1)[0];
    if (record === undefined) return null;
    // a ping without a body stored none (ping-log.ts pingPut)
    return { record, body: record.bodySize === 0 ? null : pingBody(this.#tables, checkUuid, record.n) };
  }

  /** Returns a check's flip number n, including commits not yet checkpointed; null when unknown. */
  flipNumber(checkUuid: string, n: number): Flip | null {
    return this.#overlay.flips(checkUuid).find((f) => f.n === n) ?? flipNumbered(this.#tables, checkUuid, n);
  }

  /** Returns up to `limit` of a check's newest pings, newest first, including commits not yet checkpointed. */
  pingPage(checkUuid: string, limit: number): PingRecord[] {
    const byN = new Map<number, PingRecord>();
    for (const record of pingPage(this.#tables, checkUuid, limit)) byN.set(record.n, record);
    for (const write of this.#overlay.pings(checkUuid)) byN.set(write.record.n, write.record);
    return [...byN.values()].sort((a, b) => b.n - a.n).slice(0, Math.max(0, limit));
  }

  /** Returns the body of a check's ping n, or null when it had none or was trimmed. */
  pingBody(checkUuid: string, n: number): Uint8Array | null {
    const write = this.#overlay.pings(checkUuid).find((w) => w.record.n === n);
    if (write !== undefined) return write.body === null || write.body.length === 0 ? null : write.body;
    return pingBody(this.#tables, checkUuid, n);
  }

  /** Returns a check's flips with fromAt <= at < toAt (bounds optional), newest first, including commits not yet checkpointed. */
  flips(checkUuid: string, range: { fromAt?: Millis; toAt?: Millis }): Flip[] {
    const byN = new Map<number, Flip>();
    for (const flip of flipsOf(this.#tables, checkUuid, range)) byN.set(flip.n, flip);
    for (const flip of this.#overlay.flips(checkUuid)) {
      const inRange = (range.fromAt === undefined || flip.at >= range.fromAt) && (range.toAt === undefined || flip.at < range.toAt);
      if (inRange) byN.set(flip.n, flip);
    }
    return [...byN.values()].sort((a, b) => b.at - a.at || b.n - a.n);
  }

  /**
   * Stops checkpoints until the returned release is called; resolves once the one in progress is done
   * (its log segments removed). Meanwhile commits still go to the log, so pings keep flowing,
   * and the tables change only by outbox deliveries. A backup holds every store of the dir this way,
   * so that its copies of the logs and the tables fit together (see copyTo).
   */
  holdCheckpoints(): Promise<() => void> {
    return this.#checkpoints.hold();
  }

  /**
   * Writes a consistent copy of the store to `dir`: every writer's log (log/*.log) and a compacted copy
   * of the tables (data.mdb, from one read transaction). Call while every store of this dir holds its
   * checkpoints: the logs are copied first, then the tables, so a commit acknowledged before the copy
   * began is in a log's copy or (checkpointed earlier) in the tables'; the open of the copy replays the
   * logs past the tables' marks, as after a crash. The copies are named as a crashed writer's, so that
   * the open removes them once the tables hold them.
   */
  async copyTo(dir: string): Promise<void> {
    const from = join(this.#dir, LOG_DIR),
      to = join(dir, LOG_DIR);
    makeDir(to);
    for (const file of segmentFiles(from)) {
      try {
        copyFileSync(join(from, file.name), join(to, segmentName(COPIED_IDENTITY, file.writer, file.segment)));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error; // gone: a writer that closed, its records in the tables
      }
    }
    await this.#tables.env.backup(dir, true);
  }

  /** Returns a table's LMDB pages and entries (the write profile of bench/write-profile.ts). */
  tableStats(name: "checks" | "pings" | "bodies"): { leafPages: number; branchPages: number; entries: number } {
    const stats = this.#tables[name].getStats() as { treeLeafPageCount: number; treeBranchPageCount: number; entryCount: number };
    return { leafPages: stats.treeLeafPageCount, branchPages: stats.treeBranchPageCount, entries: stats.entryCount };
  }

  /** Returns true when a checkpoint should run although none filled up: the oldest commit in the log is old enough, or the last checkpoint failed. */
  checkpointDue(): boolean {
    return this.#checkpoints.due();
  }

  /** Returns true when commits not yet in the tables queued notifications (the outbox's readers need a checkpoint first). */
  hasLoggedOutbox(): boolean {
    return this.#overlay.hasOutbox();
  }

  /** Returns how many commits are in the log and not yet applied to the tables. */
  journaledCommits(): number {
    return this.#checkpoints.count();
  }

  /** Removes a commit from those being written (appends resolve in order: it is nearly always the first). */
  #unwrite(journaled: Journaled): void {
    if (this.#writing[0] === journaled) this.#writing.shift();
    else this.#writing = this.#writing.filter((j) => j !== journaled);
  }

  /** Removes the flips (of every check) with at < beforeAt; resolves to how many, once durable. */
  async pruneFlips(beforeAt: Millis): Promise<number> {
    await this.checkpoint();
    const removed = await observed(pruneFlips(this.#tables, beforeAt));
    await this.#durable(Promise.resolve(), this.#tables.env);
    return removed;
  }

  /** Returns up to `limit` outbox entries with nextAttemptAt <= at that `accept` takes (default: all), ordered by id. */
  outboxDue(at: Millis, limit: number, accept?: (entry: OutboxEntry) => boolean): OutboxEntry[] {
    return outboxDue(this.#tables, at, limit, accept);
  }

  /** Returns every outbox entry, ordered by id. */
  outboxAll(): OutboxEntry[] {
    return outboxAll(this.#tables);
  }

  /** Replaces an outbox entry, unless it left the outbox meanwhile (its channel was removed); resolves once durable. */
  async outboxUpdate(entry: OutboxEntry): Promise<void> {
    await this.#durable(observed(this.#tables.env.childTransaction(() => outboxReplace(this.#tables, entry))), this.#tables.env);
  }

  /** Returns true while the outbox holds the entry (checkpointed commits only: read it after the deliverer's outboxDue). */
  outboxHas(id: string): boolean {
    return outboxHas(this.#tables, id);
  }

  /** Removes an outbox entry (nothing if absent); resolves once durable. */
  async outboxDelete(id: string): Promise<void> {
    await this.#durable(observed(this.#tables.outbox.remove([id])), this.#tables.env);
  }

  /** Removes a delivered entry from the outbox and keeps its record for the check's events, in one transaction; resolves once durable. */
  async outboxDelivered(notice: SentNotice): Promise<void> {
    await this.#durable(observed(this.#tables.env.childTransaction(() => recordDelivered(this.#tables, notice))), this.#tables.env);
  }

  /** Returns a check's delivered notifications, newest first (the newest sent-log.ts KEPT_PER_CHECK). */
  sentNotices(checkUuid: string): SentNotice[] {
    return sentNotices(this.#tables, checkUuid);
  }

  /** Reads the schema entry; throws if the store can't be read (closed, or the env is broken). */
  probe(): void {
    if (!READABLE_SCHEMAS.includes(this.#tables.meta.get("schema"))) throw new Error("store probe: schema entry missing");
  }

  /** Checkpoints, waits for pending writes, then closes the env (in this thread; other threads keep theirs). */
  async close(): Promise<void> {
    await this.#lastWrite; // commits still being written are checkpointed with the rest
    await this.checkpoint();
    await this.#cleanup;
    if (!this.#readOnly) {
      // the log goes when the tables hold all of it; then its mark has nothing left to guard
      if (await this.#log.close(this.#checkpoints.checkpointed + 1)) await observed(dropMark(this.#tables, this.#writer));
    }
    await this.#tables.env.close();
  }

  async #durable(written: Promise<unknown>, env: Tables["env"]): Promise<void> {
    await written;
    if (this.#durability === "flush") await env.flushed;
  }
}

/** The process identity of a backup's log copies: no running process has it (see process-identity.ts). */
const COPIED_IDENTITY = "0-0-0";
