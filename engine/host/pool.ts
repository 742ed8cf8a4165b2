// The pool: routes each request to the shard owning its project, keeps the key/uuid directory on the
// main thread, and batches the pings of one event-loop turn into one call per shard.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { wrap } from "comlink";
import nodeEndpoint from "comlink/dist/esm/node-adapter.mjs";
import type { Channel, Check, CheckSpec, Flip, Millis, PingRecord, Project, UniqueField } from "../model.ts";
import type { Outcome } from "../outcome.ts";
import { fail, ok } from "../outcome.ts";
import type { ShardPingResult } from "../shard.ts";
import type { Caller, ChannelInput, CheckQuery, CheckRef, FlipQuery, PingCommand, PingResult, Pool, ProjectInput } from "./pool-api.ts";
import type { OutboxEntry } from "../changes.ts";
import type { CheckView } from "../../http/present.ts";
import { openStore } from "../../persistence/store.ts";
import { shardOf } from "./routing.ts";
import { CheckDirectory } from "./check-directory.ts";
import type { ShardHost } from "./shard-host.ts";
import { openShardHost } from "./shard-setup.ts";
import type { ShardSetup } from "./shard-setup.ts";

/** The shard operations the pool calls; every one answers asynchronously (a worker hop or not). */
type ShardMethods = "directory" | "createProject" | "muteProject" | "addChannel" | "createCheck" | "updateCheck" | "pauseCheck"
  | "resumeCheck" | "deleteCheck" | "pingBatch" | "advance" | "channels" | "listChecks" | "listChecksJson" | "getCheck" | "listPings"
  | "pingBody" | "listFlips" | "probe" | "pruneFlips" | "outbox" | "close";
type Async<T> = { [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never };
export type ShardHandle = Async<Pick<ShardHost, ShardMethods>>;

export type PoolOptions = Omit<ShardSetup, "index" | "count" | "startAt"> & {
  readonly shards: number;
  /** The instant to start at (the clock's now). */
  readonly startAt: Millis;
};

type Queued = { command: PingCommand; projectId: string; resolve: (r: Outcome<PingResult>) => void; reject: (e: unknown) => void };

/** Returns a key's digest: the directory is looked up by digest, so lookups leak nothing about keys. */
const digest = (key: string) => createHash("sha256").update(key).digest("base64");

class ShardedPool implements Pool {
  readonly #shards: ShardHandle[];
  readonly #onClose: () => Promise<void>;
  readonly #projects = new Map<string, Project>();
  readonly #apiKeys = new Map<string, { projectId: string; readonly: boolean; key: string }>();
  readonly #pingKeys = new Map<string, string>();
  readonly #badgeKeys = new Map<string, string>();
  readonly #checks = new CheckDirectory(); // check uuid → project id, check badge key → check uuid
  readonly #queues: Queued[][];
  readonly #inFlight: boolean[];
  #flushScheduled = false;
  #closed = false;

  constructor(shards: ShardHandle[], onClose: () => Promise<void>) {
    this.#shards = shards;
    this.#onClose = onClose;
    this.#queues = shards.map(() => []);
    this.#inFlight = shards.map(() => false);
  }

  async init(): Promise<void> {
    // learn each shard's directory as it arrives, while the others are still loading
    await Promise.all(this.#shards.map(async (s) => {
      const directory = await s.directory();
      this.#learnProjects(directory.projects);
      this.#checks.addPacked(directory.checks);
    }));
  }

  // ---- directory ----

  authenticate(apiKey: string): Caller | null {
    if (apiKey === "") return null;
    const entry = this.#apiKeys.get(digest(apiKey));
    if (!entry) return null;
    const a = Buffer.from(entry.key), b = Buffer.from(apiKey);
    if (a.length !== b.length || !timingSafeEqual(a, b)) return null;
    const project = this.#projects.get(entry.projectId);
    return project ? { project, readonly: entry.readonly } : null;
  }

  projectByPingKey(pingKey: string): Project | null {
    return this.#project(this.#pingKeys.get(pingKey));
  }

  projectOfCheck(uuid: string): Project | null {
    return this.#project(this.#checks.projectOf(uuid));
  }

  projectByBadgeKey(badgeKey: string): Project | null {
    return this.#project(this.#badgeKeys.get(badgeKey));
  }

  checkByBadgeKey(badgeKey: string): { uuid: string; project: Project } | null {
    const uuid = this.#checks.checkOfBadge(badgeKey);
    const project = uuid === undefined ? null : this.projectOfCheck(uuid);
    return uuid !== undefined && project ? { uuid, project } : null;
  }

  listProjects(): Project[] {
    return [...this.#projects.values()].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }

  // ---- admin ----

  async createProject(input: ProjectInput, at: Millis): Promise<Project> {
    const project: Project = {
      id: randomUUID(), name: input.name, apiKey: secret(24), apiKeyReadonly: secret(24), pingKey: secret(16),
      badgeKey: randomUUID(), checkLimit: input.checkLimit, pingLogLimit: input.pingLogLimit,
      pingBodyLimit: input.pingBodyLimit, createdAt: at,
    };
    const stored = await this.#shardFor(project.id).createProject(project, at);
    this.#learnProjects([stored]);
    return stored;
  }

  async muteProject(projectId: string, untilAt: Millis | null, at: Millis): Promise<Outcome<Project>> {
    if (!this.#projects.has(projectId)) return fail({ code: "not_found", what: "project" });
    const muted = await this.#shardFor(projectId).muteProject(projectId, untilAt, at);
    if (muted.ok) this.#learnProjects([muted.value]);
    return muted;
  }

  async addChannel(projectId: string, input: ChannelInput, at: Millis): Promise<Outcome<Channel>> {
    if (!this.#projects.has(projectId)) return fail({ code: "not_found", what: "project" });
    const channel: Channel = { id: randomUUID(), projectId, name: input.name, kind: input.kind, value: input.value, createdAt: at };
    return this.#shardFor(projectId).addChannel(channel, at);
  }

  async listChannels(projectId: string): Promise<Channel[]> {
    return this.#shardFor(projectId).channels(projectId);
  }

  // ---- checks ----

  async listChecks(projectId: string, query: CheckQuery): Promise<Check[]> {
    return this.#shardFor(projectId).listChecks(projectId, query);
  }

  async listChecksJson(projectId: string, query: CheckQuery, view: CheckView): Promise<Uint8Array> {
    return this.#shardFor(projectId).listChecksJson(projectId, query, view);
  }

  async getCheck(projectId: string, ref: CheckRef): Promise<Outcome<Check>> {
    const owned = this.#owned(projectId, ref);
    return owned.ok ? this.#shardFor(projectId).getCheck(projectId, ref) : owned;
  }

  async createCheck(projectId: string, spec: CheckSpec, unique: readonly UniqueField[], at: Millis): Promise<Outcome<{ check: Check; created: boolean }>> {
    const result = await this.#shardFor(projectId).createCheck(projectId, spec, unique, at);
    if (result.ok) this.#checks.add(result.value.check.uuid, projectId, result.value.check.badgeKey);
    return result;
  }

  async updateCheck(projectId: string, uuid: string, spec: CheckSpec, at: Millis): Promise<Outcome<Check>> {
    const owned = this.#owned(projectId, { uuid });
    return owned.ok ? this.#shardFor(projectId).updateCheck(projectId, uuid, spec, at) : owned;
  }

  async pauseCheck(projectId: string, uuid: string, at: Millis): Promise<Outcome<Check>> {
    const owned = this.#owned(projectId, { uuid });
    return owned.ok ? this.#shardFor(projectId).pauseCheck(projectId, uuid, at) : owned;
  }

  async resumeCheck(projectId: string, uuid: string, at: Millis): Promise<Outcome<Check>> {
    const owned = this.#owned(projectId, { uuid });
    return owned.ok ? this.#shardFor(projectId).resumeCheck(projectId, uuid, at) : owned;
  }

  async deleteCheck(projectId: string, uuid: string, at: Millis): Promise<Outcome<Check>> {
    const owned = this.#owned(projectId, { uuid });
    if (!owned.ok) return owned;
    const result = await this.#shardFor(projectId).deleteCheck(projectId, uuid, at);
    if (result.ok) this.#checks.delete(uuid);
    return result;
  }

  async listPings(projectId: string, uuid: string): Promise<Outcome<{ check: Check; pings: PingRecord[]; durationsMs: (Millis | null)[] }>> {
    const owned = this.#owned(projectId, { uuid });
    const project = this.#projects.get(projectId);
    if (!owned.ok || !project) return owned.ok ? fail({ code: "not_found" }) : owned;
    return this.#shardFor(projectId).listPings(projectId, uuid, project.pingLogLimit);
  }

  async pingBody(projectId: string, uuid: string, n: number): Promise<Outcome<Uint8Array>> {
    const owned = this.#owned(projectId, { uuid });
    const project = this.#projects.get(projectId);
    if (!owned.ok || !project) return owned.ok ? fail({ code: "not_found" }) : owned;
    return this.#shardFor(projectId).pingBody(projectId, uuid, n, project.pingLogLimit);
  }

  async listFlips(projectId: string, ref: CheckRef, query: FlipQuery): Promise<Outcome<Flip[]>> {
    const owned = this.#owned(projectId, ref);
    return owned.ok ? this.#shardFor(projectId).listFlips(projectId, ref, query) : owned;
  }

  // ---- pings ----

  ping(command: PingCommand): Promise<Outcome<PingResult>> {
    if (this.#closed) return Promise.reject(new Error("the pool is closed"));
    const projectId = "uuid" in command.target ? this.#checks.projectOf(command.target.uuid) : this.#pingKeys.get(command.target.pingKey);
    if (projectId === undefined) return Promise.resolve(fail({ code: "not_found", what: "check" }));
    return new Promise((resolve, reject) => {
      this.#queues[shardOf(projectId, this.#shards.length)].push({ command, projectId, resolve, reject });
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flushPings());
      }
    });
  }

  /** Sends the queued pings of every shard that has no batch in flight; each answer comes after its batch's commit. */
  #flushPings(): void {
    this.#flushScheduled = false;
    this.#queues.forEach((_queue, index) => this.#sendBatch(index));
  }

  /**
   * One batch in flight per shard: pings that arrive meanwhile wait here and go together when it is
   * answered. Its commit would wait for the one in flight anyway; this way they share a message, a
   * wake-up of the worker and an LMDB transaction, which on 2 cores is what limits pings/s.
   */
  #sendBatch(index: number): void {
    const queue = this.#queues[index];
    if (queue.length === 0 || this.#inFlight[index]) return;
    const batch = queue.splice(0, queue.length);
    this.#inFlight[index] = true;
    const done = () => {
      this.#inFlight[index] = false;
      this.#sendBatch(index);
    };
    this.#shards[index].pingBatch(batch.map((q) => q.command)).then(
      (results) => {
        done();
        results.forEach((result, i) => batch[i].resolve(this.#afterPing(result, batch[i].projectId)));
      },
      (error: unknown) => {
        done();
        batch.forEach((q) => q.reject(error));
      },
    );
  }

  #afterPing(result: Outcome<ShardPingResult>, projectId: string): Outcome<PingResult> {
    if (!result.ok) return result;
    const { checkUuid, created, badgeKey } = result.value;
    if (created) this.#checks.add(checkUuid, projectId, badgeKey); // auto-provisioned by a slug ping
    return ok({ checkUuid, created });
  }

  // ---- time and maintenance ----

  async advance(now: Millis): Promise<void> {
    await Promise.all(this.#shards.map((s) => s.advance(now)));
  }

  async probe(): Promise<void> {
    await Promise.all(this.#shards.map((s) => s.probe()));
  }

  async pruneFlips(beforeAt: Millis): Promise<number> {
    const counts = await Promise.all(this.#shards.map((s) => s.pruneFlips(beforeAt)));
    return counts.reduce((a, b) => a + b, 0);
  }

  async listOutbox(): Promise<OutboxEntry[]> {
    return (await Promise.all(this.#shards.map((s) => s.outbox()))).flat();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#flushPings();
    await Promise.all(this.#shards.map((s) => s.close()));
    await this.#onClose();
  }

  // ---- internals ----

  #shardFor(projectId: string): ShardHandle {
    return this.#shards[shardOf(projectId, this.#shards.length)];
  }

  #project(id: string | undefined): Project | null {
    return id === undefined ? null : (this.#projects.get(id) ?? null);
  }

  /** A check of another project → forbidden; unknown → not_found (unique_key refs: the shard decides). */
  #owned(projectId: string, ref: CheckRef): Outcome<true> {
    if (!("uuid" in ref)) return ok(true);
    const owner = this.#checks.projectOf(ref.uuid);
    if (owner === undefined) return fail({ code: "not_found", what: "check" });
    return owner === projectId ? ok(true) : fail({ code: "forbidden" });
  }

  #learnProjects(projects: readonly Project[]): void {
    for (const project of projects) {
      this.#projects.set(project.id, project);
      this.#apiKeys.set(digest(project.apiKey), { projectId: project.id, readonly: false, key: project.apiKey });
      this.#apiKeys.set(digest(project.apiKeyReadonly), { projectId: project.id, readonly: true, key: project.apiKeyReadonly });
      this.#pingKeys.set(project.pingKey, project.id);
      this.#badgeKeys.set(project.badgeKey, project.id);
    }
  }
}

/** Returns a random URL-safe secret of `bytes` random bytes (CSPRNG). */
function secret(bytes: number): string {
  return randomBytes(bytes).toString("base64url");
}

/** Starts a pool whose shards live in this thread (tests; the same ShardHost code as the workers). */
export async function createInProcessPool(options: PoolOptions): Promise<Pool> {
  const hosts = await openHosts(options);
  const handles = hosts.map((host) => inProcessHandle(host));
  const pool = new ShardedPool(handles, async () => {});
  await pool.init();
  return pool;
}

async function openHosts(options: PoolOptions): Promise<ShardHost[]> {
  const hosts: ShardHost[] = [];
  for (let index = 0; index < options.shards; index++) {
    hosts.push(await openShardHost({ ...options, index, count: options.shards, startAt: options.startAt }));
  }
  return hosts;
}

function inProcessHandle(host: ShardHost): ShardHandle {
  return new Proxy({} as ShardHandle, {
    get: (_target, name: string) => name === "then" ? undefined : async (...args: unknown[]) => {
      const method = (host as unknown as Record<string, (...a: unknown[]) => unknown>)[name];
      return method.apply(host, args);
    },
  });
}

/** Starts SHARDS worker threads, each owning its projects; a crashed worker stops the process loudly. */
export async function createWorkerPool(options: PoolOptions): Promise<Pool> {
  // Replay what a crash left in the journal once, here, before the shards open the store together.
  await (await openStore(options.dataDir, { durability: options.durability })).close();
  const script = fileURLToPath(new URL("./shard.worker.js", import.meta.url));
  const workers: Worker[] = [];
  const handles: ShardHandle[] = [];
  let started = false;
  let failStart: (error: Error) => void = () => {};
  const startFailed = new Promise<never>((_resolve, reject) => { failStart = reject; });
  startFailed.catch(() => {}); // observed through the race below
  for (let index = 0; index < options.shards; index++) {
    const setup: ShardSetup = { ...options, index, count: options.shards, startAt: options.startAt };
    const worker = new Worker(script, { workerData: setup });
    const crashed = (why: string) => {
      if (!started) return failStart(new Error(`shard ${index} failed to start: ${why}`));
      console.error(`hcd: shard ${index} crashed: ${why}`);
      process.exit(70); // loudly, for a supervisor to restart: the store holds every acknowledged write
    };
    worker.on("error", (error) => crashed(error instanceof Error ? error.message : String(error)));
    worker.on("exit", (code) => crashed(`exited with code ${code}`));
    workers.push(worker);
    handles.push(wrap(nodeEndpoint(worker)) as unknown as ShardHandle);
  }
  const pool = new ShardedPool(handles, async () => {
    for (const w of workers) w.removeAllListeners("error").removeAllListeners("exit");
    await Promise.all(workers.map((w) => w.terminate()));
  });
  try {
    await Promise.race([pool.init(), startFailed]);
  } catch (error) {
    for (const w of workers) w.removeAllListeners("error").removeAllListeners("exit");
    await Promise.all(workers.map((w) => w.terminate()));
    throw error;
  }
  started = true;
  return pool;
}
