// ShardHost: one Shard, its store, and (optionally) its notification deliverer. Every command is
// applied to the shard at once, and its promise resolves only when what it changed is committed.
// Runs inside a worker thread (production) or in-process (tests) with the same code.
import type { Changes, OutboxEntry } from "../changes.ts";
import { isEmpty } from "../changes.ts";
import { pingDurations } from "../durations.ts";
import type { Channel, Check, CheckSpec, Flip, Millis, PingRecord, Project, UniqueField } from "../model.ts";
import { LIMITS } from "../model.ts";
import type { Outcome } from "../outcome.ts";
import { fail, ok } from "../outcome.ts";
import type { ShardPingResult } from "../shard.ts";
import { Shard } from "../shard.ts";
import type { CheckQuery, CheckRef, FlipQuery, PingCommand } from "./pool-api.ts";
import type { Store } from "../../persistence/store.ts";
import { openStore } from "../../persistence/store.ts";
import { uniqueKeyOf } from "./unique-key.ts";
import type { CheckView } from "../../http/present.ts";
import { PresentedChecks } from "./presented-checks.ts";
import { shardOf } from "./routing.ts";
import { packChecks } from "./check-directory.ts";
import type { PackedChecks } from "./check-directory.ts";

export type ShardHostOptions = {
  readonly dataDir: string;
  readonly durability: "flush" | "commit";
  readonly index: number;
  readonly count: number;
  readonly startAt: Millis;
  readonly newId: () => string;
  /** Apply deadlines that passed while stopped (false for maintenance access). */
  readonly applyMissedDeadlines: boolean;
};

/** What the pool needs to route requests to this shard. */
export type ShardDirectory = {
  readonly projects: Project[];
  /** uuid, project and badge key of every check, packed (one typed array to copy, not a million arrays). */
  readonly checks: PackedChecks;
};

export class ShardHost {
  readonly #shard: Shard;
  readonly #store: Store;
  #lastAt: Millis;
  readonly #closers: (() => void | Promise<void>)[] = [];
  readonly #presented = new PresentedChecks();
  readonly #owns: (entry: OutboxEntry) => boolean; // this shard's notifications (all shards share the outbox table)
  /** Called after a commit that queued notifications (the deliverer hooks in here). */
  onOutbox: ((now: Millis) => void) | null = null;

  private constructor(shard: Shard, store: Store, startAt: Millis, owns: (entry: OutboxEntry) => boolean) {
    this.#shard = shard;
    this.#store = store;
    this.#lastAt = startAt;
    this.#owns = owns;
  }

  /** Opens the store, loads this shard's projects, and applies deadlines missed while stopped. */
  static async open(options: ShardHostOptions): Promise<ShardHost> {
    const store = await openStore(options.dataDir, { durability: options.durability });
    const shard = new Shard({ newId: options.newId, now: options.startAt });
    for (const project of store.loadProjects()) {
      if (shardOf(project.id, options.count) !== options.index) continue;
      shard.load(project, store.loadChannels(project.id), store.loadChecks(project.id));
    }
    const host = new ShardHost(shard, store, options.startAt, (entry) => shardOf(entry.projectId, options.count) === options.index);
    if (options.applyMissedDeadlines) await host.advance(options.startAt);
    return host;
  }

  /** Returns this shard's projects and check routing entries. */
  directory(): ShardDirectory {
    return { projects: this.#shard.projects(), checks: packChecks(this.#shard.routes(), this.#shard.checkCount) };
  }

  /** Returns the store (for the deliverer's outbox access inside this thread). */
  store(): Store {
    return this.#store;
  }

  // ---- commands that change state ----

  async createProject(project: Project, at: Millis): Promise<Project> {
    return this.#commitAfter(at, () => this.#shard.createProject(project, at));
  }

  async addChannel(channel: Channel, at: Millis): Promise<Outcome<Channel>> {
    return this.#commitAfter(at, () => this.#shard.addChannel(channel, at));
  }

  async muteProject(projectId: string, untilAt: Millis | null, at: Millis): Promise<Outcome<Project>> {
    return this.#commitAfter(at, () => this.#shard.muteProject(projectId, untilAt, at));
  }

  async createCheck(projectId: string, spec: CheckSpec, unique: readonly UniqueField[], at: Millis): Promise<Outcome<{ check: Check; created: boolean }>> {
    return this.#commitAfter(at, () => this.#shard.createCheck(projectId, spec, unique, at));
  }

  async updateCheck(projectId: string, uuid: string, spec: CheckSpec, at: Millis): Promise<Outcome<Check>> {
    return this.#commitAfter(at, () => this.#shard.updateCheck(projectId, uuid, spec, at));
  }

  async pauseCheck(projectId: string, uuid: string, at: Millis): Promise<Outcome<Check>> {
    return this.#commitAfter(at, () => this.#shard.pauseCheck(projectId, uuid, at));
  }

  async resumeCheck(projectId: string, uuid: string, at: Millis): Promise<Outcome<Check>> {
    return this.#commitAfter(at, () => this.#shard.resumeCheck(projectId, uuid, at));
  }

  async deleteCheck(projectId: string, uuid: string, at: Millis): Promise<Outcome<Check>> {
    return this.#commitAfter(at, () => this.#shard.deleteCheck(projectId, uuid, at));
  }

  /** Applies a batch of pings with one commit; each result in the order given. */
  async pingBatch(commands: readonly PingCommand[]): Promise<Outcome<ShardPingResult>[]> {
    const at = commands.reduce((max, c) => Math.max(max, c.at), this.#lastAt);
    return this.#commitAfter(at, () => commands.map((command) => this.#shard.ping(command)));
  }

  /** Applies every deadline due at or before `now` and stores the flips. */
  async advance(now: Millis): Promise<void> {
    await this.#commitAfter(now, () => this.#shard.advance(now));
    this.onOutbox?.(this.#lastAt);
  }

  // ---- reads ----

  channels(projectId: string): Channel[] {
    return this.#shard.channels(projectId);
  }

  listChecks(projectId: string, query: CheckQuery): Check[] {
    return this.#shard.listChecks(projectId, query);
  }

  listChecksJson(projectId: string, query: CheckQuery, view: CheckView): Uint8Array {
    return this.#presented.listJson(this.#shard.listChecks(projectId, query), view);
  }

  getCheck(projectId: string, ref: CheckRef): Outcome<Check> {
    if ("uuid" in ref) return this.#shard.getCheck(projectId, ref.uuid);
    // unique_key is looked up among the caller's checks only: a foreign one is not_found (reference)
    const uuid = this.#shard.checkUuids(projectId).find((u) => uniqueKeyOf(u) === ref.uniqueKey);
    return uuid === undefined ? fail({ code: "not_found", what: "check" }) : this.#shard.getCheck(projectId, uuid);
  }

  async listPings(projectId: string, uuid: string, pingLogLimit: number): Promise<Outcome<{ check: Check; pings: PingRecord[]; durationsMs: (Millis | null)[] }>> {
    const found = this.#shard.getCheck(projectId, uuid);
    if (!found.ok) return found;
    const pings = this.#store.pingPage(uuid, Math.min(pingLogLimit, LIMITS.maxPingsListed));
    return ok({ check: found.value, pings, durationsMs: pingDurations(pings) });
  }

  async pingBody(projectId: string, uuid: string, n: number, pingLogLimit: number): Promise<Outcome<Uint8Array>> {
    const found = this.#shard.getCheck(projectId, uuid);
    if (!found.ok) return found;
    // Only pings still inside the log have bodies (reference: n <= n_pings - ping_log_limit → 404).
    if (n <= found.value.nPings - pingLogLimit || n < 1) return fail({ code: "not_found", what: "ping" });
    const body = this.#store.pingBody(uuid, n);
    return body && body.length > 0 ? ok(body) : fail({ code: "not_found", what: "ping body" });
  }

  async listFlips(projectId: string, ref: CheckRef, query: FlipQuery): Promise<Outcome<Flip[]>> {
    const found = this.getCheck(projectId, ref);
    if (!found.ok) return found;
    return ok(this.#store.flips(found.value.uuid, query));
  }

  probe(): void {
    this.#store.probe();
  }

  pruneFlips(beforeAt: Millis): Promise<number> {
    return this.#store.pruneFlips(beforeAt);
  }

  async outbox(): Promise<OutboxEntry[]> {
    await this.#store.checkpoint();
    return this.#store.outboxAll().filter(this.#owns);
  }

  /** Applies what the journal holds to the tables (periodically, and before reads of the outbox). */
  checkpoint(): Promise<void> {
    return this.#store.checkpoint();
  }

  /** Registers something to stop when the host closes (its timer). */
  onClose(closer: () => void | Promise<void>): void {
    this.#closers.push(closer);
  }

  async close(): Promise<void> {
    for (const closer of this.#closers.splice(0)) await closer();
    await this.#store.close();
  }

  // ---- internals ----

  /** Runs a command on the shard, then commits what it changed; resolves with its result after the commit. */
  async #commitAfter<T>(at: Millis, command: () => T): Promise<T> {
    this.#lastAt = Math.max(this.#lastAt, at);
    const result = command();
    const changes = this.#shard.takeChanges();
    if (!isEmpty(changes)) {
      await this.#store.commit(this.#withLogDetails(changes));
      if (changes.outbox.length > 0) this.onOutbox?.(this.#lastAt);
    }
    return result;
  }

  /**
   * Completes notifications with what only the logs know: the last ping (and body) of deadline flips,
   * and for up flips when the check went down.
   */
  #withLogDetails(changes: Changes): Changes {
    if (changes.outbox.length === 0) return changes;
    const outbox = changes.outbox.map((entry) => {
      const uuid = entry.check.uuid;
      let { lastPing, lastPingBody } = entry;
      if (lastPing === null) {
        const newest = this.#store.newestPing(uuid);
        lastPing = newest?.record ?? null;
        lastPingBody = newest?.body ?? null;
      }
      let downSinceAt: Millis | null = entry.downSinceAt; // a reminder's, when its outage began under alerting
      if (entry.reminder !== undefined && downSinceAt === null) {
        const downFlip = this.#store.flipNumber(uuid, entry.flip.n);
        downSinceAt = downFlip?.to === "down" ? downFlip.at : null;
      } else if (entry.flip.to === "up") {
        const previous = changes.flips.find((f) => f.checkUuid === uuid && f.n === entry.flip.n - 1)
          ?? this.#store.flipNumber(uuid, entry.flip.n - 1);
        downSinceAt = previous?.to === "down" ? previous.at : null;
      }
      return { ...entry, lastPing, lastPingBody, downSinceAt };
    });
    return { ...changes, outbox };
  }
}
