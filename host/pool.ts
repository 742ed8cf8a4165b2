// The pool: routes each request to the shard owning its project, with the directory on the main thread
// (its lookups: directory-lookups.ts) and pings batched per shard (ping-batches.ts). It checks that a
// check belongs to the caller's project before a shard sees it.
import type {
  Channel,
  Check,
  CheckSpec,
  Downtime,
  Flip,
  MaintenanceWindow,
  Millis,
  PingRecord,
  Project,
  UniqueField,
} from "../engine/model.ts";
import type { ProjectChange } from "../engine/project-changes.ts";
import type { CheckImport, ImportedPing, ImportResult } from "../engine/check-import.ts";
import type { Outcome } from "../engine/outcome.ts";
import { fail, invalid, ok } from "../engine/outcome.ts";
import type { ShardCommand } from "../engine/commands.ts";
import { lookUp } from "./pool-api.ts";
import type {
  Caller,
  ChannelInput,
  ChecksSince,
  CheckQuery,
  CheckRef,
  FlipQuery,
  MaintenanceInput,
  PingCommand,
  PingResult,
  Pool,
  PoolStats,
  ProjectInput,
} from "./pool-api.ts";
import type { OutboxEntry, SentNotice } from "../engine/changes.ts";
import type { CheckView } from "./check-json.ts";
import { shardOf } from "./routing.ts";
import { DirectoryLookups } from "./directory-lookups.ts";
import { PingBatches } from "./ping-batches.ts";
import type { ShardHandle } from "./shard-requests.ts";
import type { ClockMark } from "../persistence/clock-mark.ts";
import type { Clock } from "./clock.ts";
import { newChannel, newMaintenanceWindow, newProject } from "./new-records.ts";
import type { PingAcknowledger } from "./pool-deadlines.ts";
import { PoolDeadlines } from "./pool-deadlines.ts";
import { PushTokenClaims } from "./push-token-claims.ts";
import { copyStore } from "./backup.ts";

export type { PingAcknowledger };

export class ShardedPool implements Pool {
  readonly #shards: ShardHandle[];
  readonly #onClose: () => Promise<void>;
  readonly #pings: PingBatches;
  #intake: PingAcknowledger | null = null;
  readonly #deadlines: PoolDeadlines;
  #closed = false;
  #lastBackup: Promise<void> = Promise.resolve();

  readonly #directory: DirectoryLookups;
  readonly #pushTokens: PushTokenClaims;
  // none recorded until the start-up says where they are (a passive pool, the CLI on a stopped DATA_DIR: none)
  #unknownTime: (projectId: string | null) => Promise<readonly Downtime[]> = async () => [];

  /** `directory`: where lookups are answered (default: one learnt from the shards by init()). */
  constructor(shards: ShardHandle[], onClose: () => Promise<void>, directory: DirectoryLookups = new DirectoryLookups()) {
    this.#directory = directory;
    this.#shards = shards;
    this.#onClose = onClose;
    this.#pings = new PingBatches(shards);
    this.#deadlines = new PoolDeadlines(shards, this.#pings, () => this.#intake);
    this.#pushTokens = new PushTokenClaims(directory);
  }

  /** Acknowledges pings by check uuid from `intake` (ping-intake.ts) rather than after their shard's commit. */
  useIntake(intake: PingAcknowledger): void {
    this.#intake = intake;
  }

  async init(): Promise<void> {
    // learn each shard's directory as it arrives, while the others are still loading
    await Promise.all(
      this.#shards.map(async (s) => {
        const directory = await s.apply({ kind: "directory" });
        this.#directory.learnProjects(directory.projects);
        this.#directory.addChecks(directory.checks);
        for (const [uuid, token] of directory.pushTokens) this.#directory.setPushToken(uuid, token);
      }),
    );
  }

  // ---- directory ----

  authenticate(apiKey: string): Caller | null {
    return this.#directory.authenticate(apiKey);
  }

  projectByPingKey(pingKey: string): Project | null {
    return this.#directory.projectByPingKey(pingKey);
  }

  projectOfCheck(uuid: string): Project | null {
    return this.#directory.projectOfCheck(uuid);
  }

  projectByBadgeKey(badgeKey: string): Project | null {
    return this.#directory.projectByBadgeKey(badgeKey);
  }

  checkByBadgeKey(badgeKey: string): { uuid: string; project: Project } | null {
    return this.#directory.checkByBadgeKey(badgeKey);
  }

  checkByPushToken(token: string): { uuid: string; project: Project } | null {
    return this.#directory.checkByPushToken(token);
  }

  listProjects(): Project[] {
    return this.#directory.listProjects();
  }

  catchUp(): Promise<void> {
    return this.#directory.catchUp();
  }

  // ---- admin ----

  async createProject(input: ProjectInput, at: Millis): Promise<Project> {
    const project = newProject(input, at);
    const stored = await this.#shardFor(project.id).apply({ kind: "createProject", project, at });
    this.#directory.learnProjects([stored]);
    return stored;
  }

  async muteProject(projectId: string, untilAt: Millis | null, at: Millis): Promise<Outcome<Project>> {
    return this.#changeOf(projectId, { kind: "muteProject", projectId, untilAt, at });
  }

  async changeProject(projectId: string, change: ProjectChange, at: Millis): Promise<Outcome<Project>> {
    return this.#changeOf(projectId, { kind: "changeProject", projectId, change, at });
  }

  async addMaintenance(projectId: string, input: MaintenanceInput, at: Millis): Promise<Outcome<MaintenanceWindow>> {
    const window = newMaintenanceWindow(input, at);
    const added = await this.#changeOf(projectId, { kind: "addMaintenance", projectId, window, at });
    return added.ok ? ok(window) : added;
  }

  async updateMaintenance(projectId: string, windowId: string, input: MaintenanceInput, at: Millis): Promise<Outcome<MaintenanceWindow>> {
    const held = this.#directory.projectById(projectId)?.maintenance?.find((w) => w.id === windowId);
    if (held === undefined) return fail({ code: "not_found", what: "maintenance window" });
    const window: MaintenanceWindow = { ...input, id: windowId, createdAt: held.createdAt };
    const replaced = await this.#changeOf(projectId, { kind: "addMaintenance", projectId, window, at });
    return replaced.ok ? ok(window) : replaced;
  }

  async removeMaintenance(projectId: string, windowId: string, at: Millis): Promise<Outcome<Project>> {
    return this.#changeOf(projectId, { kind: "removeMaintenance", projectId, windowId, at });
  }

  /** Applies a change of a project the directory knows (not_found otherwise), and has the directory learn the changed project. */
  async #changeOf(
    projectId: string,
    command: Extract<ShardCommand, { kind: "muteProject" | "changeProject" | "addMaintenance" | "removeMaintenance" }>,
  ): Promise<Outcome<Project>> {
    if (this.#directory.projectById(projectId) === null) return fail({ code: "not_found", what: "project" });
    const changed = await this.#shardFor(projectId).apply(command);
    if (changed.ok) this.#directory.learnProjects([changed.value]);
    return changed;
  }

  async addChannel(projectId: string, input: ChannelInput, at: Millis): Promise<Outcome<Channel>> {
    if (this.#directory.projectById(projectId) === null) return fail({ code: "not_found", what: "project" });
    return this.#shardFor(projectId).apply({ kind: "addChannel", channel: newChannel(projectId, input, at), at });
  }

  async removeChannel(projectId: string, channelId: string, at: Millis): Promise<Outcome<Channel>> {
    if (this.#directory.projectById(projectId) === null) return fail({ code: "not_found", what: "project" });
    return this.#shardFor(projectId).apply({ kind: "removeChannel", projectId, channelId, at });
  }

  async updateChannel(projectId: string, channelId: string, input: ChannelInput, at: Millis): Promise<Outcome<Channel>> {
    if (this.#directory.projectById(projectId) === null) return fail({ code: "not_found", what: "project" });
    return this.#shardFor(projectId).apply({
      kind: "updateChannel",
      projectId,
      channelId,
      name: input.name,
      value: input.value,
      at,
      ...(input.newChecks === undefined ? {} : { newChecks: input.newChecks }),
      ...(input.everyFailure === undefined ? {} : { everyFailure: input.everyFailure }),
    });
  }

  async listChannels(projectId: string): Promise<Channel[]> {
    return this.#shardFor(projectId).apply({ kind: "channels", projectId });
  }

  // ---- checks ----

  async projectVersion(projectId: string): Promise<string> {
    return this.#shardFor(projectId).apply({ kind: "projectVersion", projectId });
  }

  async checksSince(projectId: string, since: string | null): Promise<ChecksSince> {
    return this.#shardFor(projectId).apply({ kind: "checksSince", projectId, since });
  }

  async listChecks(projectId: string, query: CheckQuery): Promise<Check[]> {
    return this.#shardFor(projectId).apply({ kind: "listChecks", projectId, query });
  }

  async listChecksJson(projectId: string, query: CheckQuery, view: CheckView): Promise<Uint8Array> {
    return this.#shardFor(projectId).apply({ kind: "listChecksJson", projectId, query, view });
  }

  async getCheck(projectId: string, ref: CheckRef): Promise<Outcome<Check>> {
    const owned = await this.#owned(projectId, ref);
    return owned.ok ? this.#shardFor(projectId).apply({ kind: "getCheck", projectId, ref }) : owned;
  }

  async createCheck(
    projectId: string,
    spec: CheckSpec,
    unique: readonly UniqueField[],
    at: Millis,
    uuid?: string,
  ): Promise<Outcome<{ check: Check; created: boolean }>> {
    // a uuid is unique over every project, which no shard alone can judge
    if (uuid !== undefined && (await lookUp(this, () => this.#directory.projectOfCheck(uuid))) !== null)
      return invalid("uuid", "is taken by another check");
    return this.#pushTokens.run(spec, null, async () => {
      const command = { kind: "createCheck", projectId, spec, unique, at } as const;
      const result = await this.#shardFor(projectId).apply(uuid === undefined ? command : { ...command, uuid });
      if (result.ok) {
        this.#directory.addCheck(result.value.check.uuid, projectId, result.value.check.badgeKey);
        this.#directory.setPushToken(result.value.check.uuid, result.value.check.pushToken);
      }
      return result;
    });
  }

  async updateCheck(projectId: string, uuid: string, spec: CheckSpec, at: Millis): Promise<Outcome<Check>> {
    const owned = await this.#owned(projectId, { uuid });
    if (!owned.ok) return owned;
    return this.#pushTokens.run(spec, uuid, async () => {
      const result = await this.#shardFor(projectId).apply({ kind: "updateCheck", projectId, uuid, spec, at });
      if (result.ok) this.#directory.setPushToken(uuid, result.value.pushToken);
      return result;
    });
  }

  async importCheck(projectId: string, check: CheckImport, at: Millis): Promise<Outcome<{ check: Check; result: ImportResult }>> {
    const owner = await lookUp(this, () => this.#directory.projectIdOfCheck(check.uuid) ?? null);
    if (owner !== null && owner !== projectId) return fail({ code: "forbidden" });
    const result = await this.#shardFor(projectId).apply({ kind: "importCheck", projectId, check, at });
    if (result.ok && result.value.result === "created") this.#directory.addCheck(check.uuid, projectId, result.value.check.badgeKey);
    return result;
  }

  async importPings(projectId: string, uuid: string, pings: readonly ImportedPing[], at: Millis): Promise<Outcome<number>> {
    const owned = await this.#owned(projectId, { uuid });
    return owned.ok ? this.#shardFor(projectId).apply({ kind: "importPings", projectId, uuid, pings, at }) : owned;
  }

  async pauseCheck(projectId: string, uuid: string, at: Millis): Promise<Outcome<Check>> {
    const owned = await this.#owned(projectId, { uuid });
    return owned.ok ? this.#shardFor(projectId).apply({ kind: "pauseCheck", projectId, uuid, at }) : owned;
  }

  async resumeCheck(projectId: string, uuid: string, at: Millis): Promise<Outcome<Check>> {
    const owned = await this.#owned(projectId, { uuid });
    return owned.ok ? this.#shardFor(projectId).apply({ kind: "resumeCheck", projectId, uuid, at }) : owned;
  }

  async acknowledgeCheck(projectId: string, uuid: string, by: string, at: Millis): Promise<Outcome<Check>> {
    const owned = await this.#owned(projectId, { uuid });
    return owned.ok ? this.#shardFor(projectId).apply({ kind: "acknowledgeCheck", projectId, uuid, by, at }) : owned;
  }

  async deleteCheck(projectId: string, uuid: string, at: Millis): Promise<Outcome<Check>> {
    const owned = await this.#owned(projectId, { uuid });
    if (!owned.ok) return owned;
    const result = await this.#shardFor(projectId).apply({ kind: "deleteCheck", projectId, uuid, at });
    if (result.ok) this.#directory.deleteCheck(uuid);
    return result;
  }

  async listPings(
    projectId: string,
    uuid: string,
  ): Promise<Outcome<{ check: Check; pings: PingRecord[]; durationsMs: (Millis | null)[] }>> {
    const owned = await this.#owned(projectId, { uuid });
    const project = this.#directory.projectById(projectId);
    if (!owned.ok || !project) return owned.ok ? fail({ code: "not_found" }) : owned;
    return this.#shardFor(projectId).apply({ kind: "listPings", projectId, uuid, pingLogLimit: project.pingLogLimit });
  }

  async pingBody(projectId: string, uuid: string, n: number): Promise<Outcome<Uint8Array>> {
    const owned = await this.#owned(projectId, { uuid });
    const project = this.#directory.projectById(projectId);
    if (!owned.ok || !project) return owned.ok ? fail({ code: "not_found" }) : owned;
    return this.#shardFor(projectId).apply({ kind: "pingBody", projectId, uuid, n, pingLogLimit: project.pingLogLimit });
  }

  async listSent(projectId: string, uuid: string): Promise<Outcome<SentNotice[]>> {
    const owned = await this.#owned(projectId, { uuid });
    return owned.ok ? this.#shardFor(projectId).apply({ kind: "listSent", projectId, uuid }) : owned;
  }

  /** Where the stretches of unwatched time come from: set by the start-up (single node: DATA_DIR/unknown-time; cluster: its bucket). */
  useUnknownTime(source: (projectId: string | null) => Promise<readonly Downtime[]>): void {
    this.#unknownTime = source;
  }

  unknownTime(projectId: string | null): Promise<readonly Downtime[]> {
    return this.#unknownTime(projectId);
  }

  async listFlips(projectId: string, ref: CheckRef, query: FlipQuery): Promise<Outcome<Flip[]>> {
    const owned = await this.#owned(projectId, ref);
    return owned.ok ? this.#shardFor(projectId).apply({ kind: "listFlips", projectId, ref, query }) : owned;
  }

  // ---- pings ----

  async ping(projectId: string, command: PingCommand): Promise<Outcome<PingResult>> {
    if (this.#closed) throw new Error("the pool is closed");
    const index = shardOf(projectId, this.#shards.length);
    if (this.#intake !== null && "uuid" in command.target) {
      await this.#intake.send(index, projectId, command);
      return ok({ checkUuid: command.target.uuid, created: false });
    }
    const result = await this.#pings.send(index, command);
    if (!result.ok) return result;
    const { checkUuid, created, badgeKey } = result.value;
    if (created) this.#directory.addCheck(checkUuid, projectId, badgeKey); // auto-provisioned by a slug ping
    return ok({ checkUuid, created });
  }

  // ---- time (pool-deadlines.ts) and maintenance ----

  advance(now: Millis): Promise<void> {
    return this.#deadlines.advance(now);
  }

  /** Keeps in `mark` how far deadlines were judged, and with `clock` (a real one) judges them every second until the pool closes. */
  judgeFromNowOn(mark: ClockMark | null, clock: Clock | null): void {
    this.#deadlines.judgeFromNowOn(mark, clock);
  }

  judgeDeadlines(now: Millis): Promise<Millis> {
    return this.#deadlines.judgeDeadlines(now);
  }

  /** How far shard `index` may judge deadlines at `now`: just before the earliest stamp of a ping for it still on its way. */
  watermarkOf(index: number, now: Millis): Millis {
    return this.#deadlines.watermarkOf(index, now);
  }

  /** The earliest stamp of this process's pings for shard `index` not yet answered, or null. */
  earliestUnansweredPingAt(index: number): Millis | null {
    return this.#deadlines.earliestUnansweredPingAt(index);
  }

  /** Holds the checks whose deadline fell in `downtime` (if any), then applies every deadline due by `at`; returns how many it holds. */
  resumeAfter(downtime: Downtime | null, at: Millis): Promise<number> {
    return this.#deadlines.resumeAfter(downtime, at);
  }

  async probe(): Promise<void> {
    await this.#intake?.probe();
    await Promise.all(this.#shards.map((s) => s.apply({ kind: "probe" })));
  }

  async pruneFlips(beforeAt: Millis): Promise<number> {
    const counts = await Promise.all(this.#shards.map((s) => s.apply({ kind: "pruneFlips", beforeAt })));
    return counts.reduce((a, b) => a + b, 0);
  }

  async stats(at: Millis): Promise<PoolStats> {
    const shards = await Promise.all(this.#shards.map((s) => s.apply({ kind: "stats", at })));
    return { shards, queued: this.#pings.queued() };
  }

  backup(dir: string): Promise<void> {
    const run = this.#lastBackup.then(() => copyStore(this.#shards, dir));
    this.#lastBackup = run.catch(() => undefined); // one backup at a time
    return run;
  }

  async listOutbox(): Promise<OutboxEntry[]> {
    return (await Promise.all(this.#shards.map((s) => s.apply({ kind: "outbox" })))).flat();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#deadlines.stop();
    this.#pings.flush();
    await this.#intake?.close(); // after the shards commit what it handed them
    await Promise.all(this.#shards.map((s) => s.apply({ kind: "close" })));
    await this.#onClose();
  }

  // ---- internals ----

  #shardFor(projectId: string): ShardHandle {
    return this.#shards[shardOf(projectId, this.#shards.length)];
  }

  /** A check of another project → forbidden; unknown → not_found (unique_key refs: the shard decides). */
  async #owned(projectId: string, ref: CheckRef): Promise<Outcome<true>> {
    if (!("uuid" in ref)) return ok(true);
    const owner = await lookUp(this, () => this.#directory.projectIdOfCheck(ref.uuid) ?? null);
    if (owner !== null) return owner === projectId ? ok(true) : fail({ code: "forbidden" });
    // A check a slug ping just made: its shard lists it from the moment it applied the ping, and the
    // directory learns its uuid from the ping's answer, after the commit. The project's shard knows it.
    const made = await this.#shardFor(projectId).apply({ kind: "getCheck", projectId, ref });
    return made.ok ? ok(true) : fail({ code: "not_found", what: "check" });
  }
}
