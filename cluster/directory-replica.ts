// The directory (projects and their keys, each check's uuid → project and badge key) in a replicated KV
// bucket, watched by every node into the single-node directory's classes so any node answers lookups.
import type { KV, KvWatchEntry } from "@nats-io/kv";
import type { NatsConnection, QueuedIterator, Status } from "@nats-io/nats-core";
import type { Project } from "../engine/model.ts";
import { DirectoryLookups } from "../host/directory-lookups.ts";
import { watchStalled } from "./bucket-follower.ts";
import { decodeCheckValue, decodeProject, parseKey } from "./directory-keys.ts";
import { openBucket } from "./jetstream-setup.ts";
import type { CheckPushToken, CheckRoute, DirectoryChanges, Write } from "./directory-writes.ts";
import { DirectoryWrites } from "./directory-writes.ts";

export type { CheckPushToken, CheckRoute, DirectoryChanges } from "./directory-writes.ts";
export { NOTHING_PUBLISHED } from "./directory-writes.ts";
import { resendUnanswered } from "./resend.ts";
import { DEFAULT_PARTITION_COUNT } from "./partitions.ts";

export type DirectoryReplicaOptions = {
  connection: NatsConnection;
  /** 3 on a three-server cluster. */
  replicas: number;
  bucket?: string;
  /** The cluster's partition count (the keys name each project's partition). */
  partitionCount?: number;
  /** How long a put or delete waits for its PubAck before it is sent again, the first time (default 5 s; twice as long each time after). */
  ackTimeoutMs?: number;
  /** How long a put or delete is sent again while unanswered before publish() fails (default 30 s). */
  retryForMs?: number;
  /** How long open() waits for the copy to catch up with the bucket (default 60 s). */
  syncTimeoutMs?: number;
  /** How often the copy compares its revision with the bucket's to find a watch that stalled (default 2 s). */
  stallCheckMs?: number;
};

/** What the copy has applied, for tests and metrics. */
export type DirectoryStats = {
  /** The last bucket revision applied. */
  readonly revision: number;
  readonly applied: number;
  /** Entries whose key or value is not in the layout (left alone). */
  readonly ignored: number;
  /** Times the watch was started again (reconnects, ended watches). */
  readonly restarts: number;
};

type Waiter = { readonly revision: number; readonly settle: (error?: Error) => void };

/**
 * Writers (directory-writes.ts): a partition's owner publishes what a committed change did to projects and
 * checks (pings, deadlines and alerting write nothing); a new owner, or one that may have lost a publish,
 * reconciles the partition: its keys become exactly its state.
 * Readers: the watch starts with every key's last value and follows each change in revision order; it
 * starts again after the last revision applied when the connection comes back, when it ends, or when it
 * stalls behind the bucket (watchStalled). synced() waits until the copy holds what the bucket held.
 * Keys are stored in clear, as the single-node store keeps them; nothing here logs a value.
 */
export class DirectoryReplica extends DirectoryLookups {
  readonly bucket: string;
  readonly #kv: KV;
  readonly #connection: NatsConnection;
  readonly #writes: DirectoryWrites;
  readonly #stallCheckMs: number;
  #stallTimer: NodeJS.Timeout | null = null;
  /** At the last stall check: the revision applied, and the bucket's last revision. */
  #lastCheck = { applied: 0, bucket: 0 };
  #revision = 0;
  #applied = 0;
  #ignored = 0;
  #restarts = 0;
  #closed = false;
  #watch: QueuedIterator<KvWatchEntry> | null = null;
  #watching: Promise<void> = Promise.resolve();
  #status: AsyncIterable<Status> | null = null;
  #waiters: Waiter[] = [];
  #catchingUp: Promise<void> | null = null;

  private constructor(kv: KV, options: DirectoryReplicaOptions, bucket: string) {
    super();
    this.bucket = bucket;
    this.#kv = kv;
    this.#connection = options.connection;
    this.#writes = new DirectoryWrites(
      {
        connection: options.connection,
        kv,
        bucket,
        partitionCount: options.partitionCount ?? DEFAULT_PARTITION_COUNT,
        ackTimeoutMs: options.ackTimeoutMs ?? 5_000,
        retryForMs: options.retryForMs ?? 30_000,
      },
      { revision: () => this.#revision, holds: (write, projects) => this.#holds(write, projects), synced: () => this.synced() },
    );
    this.#stallCheckMs = options.stallCheckMs ?? 2_000;
  }

  /** Opens (or creates) the bucket, starts watching it, and resolves once the copy holds everything it held. */
  static async open(options: DirectoryReplicaOptions): Promise<DirectoryReplica> {
    const bucket = options.bucket ?? "hcd-directory";
    const kv = await openBucket(options.connection, bucket, { replicas: options.replicas, history: 1 });
    const replica = new DirectoryReplica(kv, options, bucket);
    replica.#start();
    try {
      await replica.synced(options.syncTimeoutMs ?? 60_000);
    } catch (error) {
      await replica.close();
      throw error;
    }
    return replica;
  }

  // ---- lookups: the same answers as the single-node pool's directory (host/pool.ts) ----

  /** Catches up with the bucket (one request shared by every caller meanwhile: a flood of unknown keys costs one at a time). */
  override catchUp(): Promise<void> {
    this.#catchingUp ??= this.synced()
      .then(
        () => {},
        () => {},
      )
      .finally(() => {
        this.#catchingUp = null;
      });
    return this.#catchingUp;
  }

  // the copy is the bucket's alone: what a pool learns from its answers is in the bucket already (the
  // owner wrote it before answering), and applying it here could put an older value over a newer one
  override learnProjects(): void {}
  override addChecks(): void {}
  override addCheck(): void {}
  override deleteCheck(): void {}
  override setPushToken(): void {}

  get checkCount(): number {
    return this.checks.size;
  }

  stats(): DirectoryStats {
    return { revision: this.#revision, applied: this.#applied, ignored: this.#ignored, restarts: this.#restarts };
  }

  // ---- catching up ----

  /** Resolves once the copy has applied the bucket's revision `revision` (and all before it). */
  caughtUpTo(revision: number, timeoutMs = 30_000): Promise<void> {
    if (this.#revision >= revision) return Promise.resolve();
    if (this.#closed) return Promise.reject(new Error("directory: closed"));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        revision,
        settle: (error) => {
          clearTimeout(timer);
          this.#waiters = this.#waiters.filter((w) => w !== waiter);
          if (error) reject(error);
          else resolve();
        },
      };
      const timer = setTimeout(
        () => waiter.settle(new Error(`directory: revision ${revision} not applied within ${timeoutMs} ms (at ${this.#revision})`)),
        timeoutMs,
      );
      this.#waiters.push(waiter);
    });
  }

  /** Resolves with the bucket's last revision once the copy has applied it: everything written before the call. */
  async synced(timeoutMs = 30_000): Promise<number> {
    const until = Date.now() + timeoutMs;
    const status = await resendUnanswered(() => this.#kv.status(), { timeoutMs, forMs: timeoutMs }); // the client's own timeout applies
    const last = status.streamInfo.state.last_seq;
    await this.caughtUpTo(last, Math.max(0, until - Date.now()));
    return last;
  }

  // ---- writing (the partition's owner) ----

  /** Writes what a committed change did to the directory (directory-writes.ts); resolves with the last revision written. */
  publish(changes: DirectoryChanges): Promise<number> {
    return this.#writes.publish(changes);
  }

  /** Makes the bucket's keys of `partition` exactly these projects and checks (a new owner's, after its takeover). */
  reconcile(
    partition: number,
    projects: readonly Project[],
    checks: Iterable<CheckRoute>,
    pushTokens: Iterable<CheckPushToken> = [],
  ): Promise<{ put: number; deleted: number; revision: number }> {
    return this.#writes.reconcile(partition, projects, checks, pushTokens);
  }

  /** Stops watching (the connection is the caller's). Writes in flight still finish. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#stallTimer) clearInterval(this.#stallTimer);
    for (const waiter of [...this.#waiters]) waiter.settle(new Error("directory: closed"));
    this.#watch?.stop();
    (this.#status as Partial<QueuedIterator<Status>> | null)?.stop?.(); // the client's iterator has stop()
    await this.#watching;
    await this.#writes.settled();
  }

  // ---- internals ----

  /** True when the copy holds exactly what `write` (a put; projects by id) would write. */
  #holds(write: Write, projects: ReadonlyMap<string, Project>): boolean {
    const key = parseKey(write.key);
    if (key === null) return false;
    if (key.kind === "project") {
      const held = this.projects.byId(key.projectId);
      const project = projects.get(key.projectId);
      return held !== null && project !== undefined && JSON.stringify(held) === JSON.stringify(project);
    }
    const value = decodeCheckValue(write.value!);
    return (
      this.checks.projectOf(key.uuid) === key.projectId &&
      value !== null &&
      this.checks.checkOfBadge(value.badgeKey) === key.uuid &&
      (value.pushToken === undefined ? this.pushTokenOf(key.uuid) === undefined : this.pushTokenHolder(value.pushToken) === key.uuid)
    );
  }

  #start(): void {
    this.#watching = this.#watchLoop();
    void this.#followStatus();
    this.#stallTimer = setInterval(() => void this.#checkStall().catch(() => {}), this.#stallCheckMs);
    this.#stallTimer.unref();
  }

  /**
   * Starts the watch again when it has applied nothing since the last check while the bucket was already
   * ahead of it then: its consumer was lost (its server died while this connection stayed up), which the
   * client itself notices only after two missed heartbeats of 30 s, and its new consumer can take longer still.
   */
  async #checkStall(): Promise<void> {
    const bucket = (await this.#kv.status()).streamInfo.state.last_seq;
    const stalled = watchStalled(this.#lastCheck, this.#revision);
    this.#lastCheck = { applied: this.#revision, bucket };
    if (stalled && !this.#closed) this.#watch?.stop();
  }

  /** Watches the bucket until closed; a watch that ends (or is stopped on a reconnect) starts again after the last revision applied. */
  async #watchLoop(): Promise<void> {
    let pause = 100;
    while (!this.#closed) {
      try {
        const from = this.#revision;
        const watch = await this.#kv.watch(from > 0 ? { key: ">", resumeFromRevision: from + 1 } : { key: ">" });
        this.#watch = watch;
        if (this.#closed) watch.stop();
        for await (const entry of watch) {
          this.#apply(entry);
          pause = 100;
        }
      } catch {
        // no connection yet, or the consumer could not be made: tried again below
      }
      if (this.#closed || this.#connection.isClosed()) break;
      this.#restarts += 1;
      await new Promise((resolve) => setTimeout(resolve, pause));
      pause = Math.min(pause * 2, 2_000);
    }
  }

  /** On a reconnect, the watch starts again after the last revision applied (not waiting for its heartbeats to be missed). */
  async #followStatus(): Promise<void> {
    const status = (this.#status = this.#connection.status());
    for await (const event of status) {
      if (this.#closed) break;
      if (event.type === "reconnect") this.#watch?.stop();
    }
  }

  #apply(entry: KvWatchEntry): void {
    if (entry.revision <= this.#revision) return; // already applied (a watch started again may repeat some)
    this.#revision = entry.revision;
    const key = parseKey(entry.key);
    if (key === null || !this.#applyKey(key, entry)) this.#ignored += 1;
    else this.#applied += 1;
    if (this.#waiters.length > 0) for (const waiter of this.#waiters.filter((w) => w.revision <= this.#revision)) waiter.settle();
  }

  /** Applies one entry to the copy; false when its value is not in the layout. */
  #applyKey(key: NonNullable<ReturnType<typeof parseKey>>, entry: KvWatchEntry): boolean {
    const removed = entry.operation !== "PUT";
    if (key.kind === "project") {
      if (removed) {
        this.projects.forget(key.projectId);
        return true;
      }
      const project = decodeProject(entry.value);
      if (project === null || project.id !== key.projectId) return false;
      const held = this.projects.byId(project.id);
      if (held && !sameKeys(held, project)) this.projects.forget(project.id); // its old keys name nothing any more
      this.projects.learn([project]);
      return true;
    }
    if (removed) {
      this.checks.delete(key.uuid);
      this.putPushToken(key.uuid, undefined);
      return true;
    }
    const value = decodeCheckValue(entry.value);
    if (value === null) return false;
    this.checks.add(key.uuid, key.projectId, value.badgeKey);
    this.putPushToken(key.uuid, value.pushToken);
    return true;
  }
}

function sameKeys(a: Project, b: Project): boolean {
  return a.apiKey === b.apiKey && a.apiKeyReadonly === b.apiKeyReadonly && a.pingKey === b.pingKey && a.badgeKey === b.badgeKey;
}
