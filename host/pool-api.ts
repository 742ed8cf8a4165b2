// The pool as the front ends (HTTP, SMTP, CLI) see it. Two implementations keep this contract:
// the worker pool (SHARDS worker threads, production) and the in-process pool (tests).
import type { CheckView } from "./check-json.ts";
import type {
  Channel,
  ChannelKind,
  ChannelValue,
  Check,
  CheckSpec,
  Downtime,
  Flip,
  HashedApiKeys,
  MaintenanceWindow,
  Millis,
  PingRecord,
  Project,
  UniqueField,
} from "../engine/model.ts";
import type { CheckImport, ImportedPing, ImportResult } from "../engine/check-import.ts";
import type { ProjectChange } from "../engine/project-changes.ts";
import type { Outcome } from "../engine/outcome.ts";
import type { OutboxEntry, SentNotice } from "../engine/changes.ts";
import type { CheckQuery, PingCommand } from "../engine/commands.ts";
import type { ShardStats } from "./shard-stats.ts";

export type { CheckQuery, PingCommand, PingTarget } from "../engine/commands.ts";

/** A maintenance window to add, validated (CONTRACT "Alerting, second part"). */
export type MaintenanceInput = { readonly name: string; readonly schedule: string; readonly tz: string; readonly durationMs: Millis };

export type ProjectInput = {
  readonly name: string;
  readonly checkLimit: number;
  readonly pingLogLimit: number;
  readonly pingBodyLimit: number;
  /** A project brought over from elsewhere keeps its id and keys (validated and unused elsewhere); absent = new ones. */
  readonly kept?: KeptProjectIds;
};

/** The ids and keys a project brought over keeps; each absent one is made new. */
export type KeptProjectIds = {
  readonly id?: string;
  readonly apiKey?: string;
  readonly apiKeyReadonly?: string;
  readonly pingKey?: string;
  readonly badgeKey?: string;
  readonly hashedApiKeys?: HashedApiKeys;
};

/**
 * A channel to add or edit; `id` keeps the id it had where it was imported from, `needsSettings` marks a
 * stub (engine/model.ts Channel); `newChecks` absent: true when added, unchanged when edited.
 */
export type ChannelInput = {
  readonly kind: ChannelKind;
  readonly name: string;
  readonly value: ChannelValue;
  readonly id?: string;
  readonly needsSettings?: true;
  readonly newChecks?: boolean;
  /** every_failure (CONTRACT "Alerting, third part"): absent = false when added, unchanged when edited. */
  readonly everyFailure?: boolean;
};

/** A project's checks since a version (Pool.checksSince). */
export type ChecksSince = {
  readonly version: string;
  readonly whole: boolean;
  readonly checks: readonly Check[];
  readonly removed: readonly string[];
};

/** Who is calling the management API: the key's project, and whether the key is the read-only one. */
export type Caller = { readonly project: Project; readonly readonly: boolean };

export type PingResult = { readonly checkUuid: string; readonly created: boolean };

export type FlipQuery = { readonly fromAt?: Millis; readonly toAt?: Millis };

/** What /metrics reads of the pool: each shard's stats and the pings waiting for each shard's batch. */
export type PoolStats = { readonly shards: readonly ShardStats[]; readonly queued: readonly number[] };

/** A check addressed by the caller: by uuid, or (read endpoints) by unique_key. */
export type CheckRef = { readonly uuid: string } | { readonly uniqueKey: string };

/** Runs a directory lookup; on a miss, once more after the directory caught up (a key or check another node has just created). */
export async function lookUp<T>(pool: Pick<Pool, "catchUp">, find: () => T | null): Promise<T | null> {
  const found = find();
  if (found !== null) return found;
  await pool.catchUp();
  return find();
}

export type Pool = {
  // Directory: answered from the main thread's memory, no hop.
  /** Returns the caller for an API key (read-write or read-only), or null. Constant-time comparison. */
  authenticate(apiKey: string): Caller | null;
  /** Returns the project owning a ping key, or null. */
  projectByPingKey(pingKey: string): Project | null;
  /** Returns the project owning a check uuid, or null. */
  projectOfCheck(uuid: string): Project | null;
  /** Returns the project whose badge key this is, or null. */
  projectByBadgeKey(badgeKey: string): Project | null;
  /** Returns the check uuid and project for a check badge key, or null. */
  checkByBadgeKey(badgeKey: string): { readonly uuid: string; readonly project: Project } | null;
  /** Returns the check uuid and project for an Uptime Kuma push token (a check's push_token), or null. */
  checkByPushToken(token: string): { readonly uuid: string; readonly project: Project } | null;
  /** Returns every project. */
  listProjects(): Project[];
  /**
   * Resolves once the directory holds every project, key and check written before the call. Single-node:
   * at once (the directory is this process's); cluster mode: another node may have written it a moment ago.
   */
  catchUp(): Promise<void>;

  // Admin
  createProject(input: ProjectInput, at: Millis): Promise<Project>;
  addChannel(projectId: string, input: ChannelInput, at: Millis): Promise<Outcome<Channel>>;
  /**
   * Removes an integration: no check notifies it any more and its waiting notifications are dropped
   * (none is sent once this resolves); not_found for an unknown project or channel.
   */
  removeChannel(projectId: string, channelId: string, at: Millis): Promise<Outcome<Channel>>;
  /**
   * Replaces an integration's name and value (the kind stays: invalid when `input.kind` differs); checks
   * keep notifying it. not_found for an unknown project or channel.
   */
  updateChannel(projectId: string, channelId: string, input: ChannelInput, at: Millis): Promise<Outcome<Channel>>;
  listChannels(projectId: string): Promise<Channel[]>;
  /** Adds a recurring maintenance window to the project (its id chosen here); not_found for an unknown project. */
  addMaintenance(projectId: string, input: MaintenanceInput, at: Millis): Promise<Outcome<MaintenanceWindow>>;
  /** Replaces a maintenance window's name, schedule, zone and duration (its id stays); not_found for an unknown project or window. */
  updateMaintenance(projectId: string, windowId: string, input: MaintenanceInput, at: Millis): Promise<Outcome<MaintenanceWindow>>;
  /** Removes a maintenance window; not_found for an unknown project or window. */
  removeMaintenance(projectId: string, windowId: string, at: Millis): Promise<Outcome<Project>>;
  /** Changes the project record alone: its name, an API key, its status pages; not_found for an unknown project. */
  changeProject(projectId: string, change: ProjectChange, at: Millis): Promise<Outcome<Project>>;
  /** Mutes the project's notifications until `untilAt` (null = unmuted); not_found for an unknown project. */
  muteProject(projectId: string, untilAt: Millis | null, at: Millis): Promise<Outcome<Project>>;

  // Checks (projectId = the caller's project; a check of another project → forbidden)
  listChecks(projectId: string, query: CheckQuery): Promise<Check[]>;
  /**
   * The project's version: changes with every change to any of its checks (pings, edits, flips, pauses),
   * and after a restart. Read it before listing: a list read after it shows at least that version.
   */
  projectVersion(projectId: string): Promise<string>;
  /**
   * The project's checks as changed since version `since` of an earlier answer (null: none held): either
   * all of them (`whole`), or those changed since and the ids of those deleted since. For a reader that
   * keeps a copy of a project's checks and refreshes it often (the dashboard's table).
   */
  checksSince(projectId: string, since: string | null): Promise<ChecksSince>;
  /**
   * The API's list document of listChecks, {"checks": [...]} in UTF-8, built by the owning shard: a long
   * list then crosses threads as one block of bytes (moved, not copied) and goes to the socket as it is,
   * and its per-check work stays off the HTTP thread.
   */
  listChecksJson(projectId: string, query: CheckQuery, view: CheckView): Promise<Uint8Array>;
  getCheck(projectId: string, ref: CheckRef): Promise<Outcome<Check>>;
  /**
   * Creates, or with `unique` updates the first matching check (created: false). `uuid`: the new check's
   * own (a check moved from another host keeps its ping URL); invalid when any check has it.
   */
  createCheck(
    projectId: string,
    spec: CheckSpec,
    unique: readonly UniqueField[],
    at: Millis,
    uuid?: string,
  ): Promise<Outcome<{ check: Check; created: boolean }>>;
  updateCheck(projectId: string, uuid: string, spec: CheckSpec, at: Millis): Promise<Outcome<Check>>;
  /** Brings a check over (engine/check-import.ts): made whole with its uuid, state and flips, or its settings updated; forbidden when another project has its uuid. */
  importCheck(projectId: string, check: CheckImport, at: Millis): Promise<Outcome<{ check: Check; result: ImportResult }>>;
  /** Logs past pings of a check of the project (numbered as they were, at most its n_pings); returns how many. */
  importPings(projectId: string, uuid: string, pings: readonly ImportedPing[], at: Millis): Promise<Outcome<number>>;
  pauseCheck(projectId: string, uuid: string, at: Millis): Promise<Outcome<Check>>;
  resumeCheck(projectId: string, uuid: string, at: Millis): Promise<Outcome<Check>>;
  /** Acknowledges a down check's outage (`by`: "api", "dashboard"): reminders stop until it ends; not_down when it is not down. */
  acknowledgeCheck(projectId: string, uuid: string, by: string, at: Millis): Promise<Outcome<Check>>;
  /** Deletes the check with its log; returns it as it was just before. */
  deleteCheck(projectId: string, uuid: string, at: Millis): Promise<Outcome<Check>>;
  /** Returns the newest pings first, at most min(ping_log_limit, 1000), with their run durations. */
  listPings(projectId: string, uuid: string): Promise<Outcome<{ check: Check; pings: PingRecord[]; durationsMs: (Millis | null)[] }>>;
  /** Returns a stored ping body; not_found when the ping or its body does not exist. */
  pingBody(projectId: string, uuid: string, n: number): Promise<Outcome<Uint8Array>>;
  /** Returns flips newest first; fromAt inclusive, toAt exclusive. */
  listFlips(projectId: string, ref: CheckRef, query: FlipQuery): Promise<Outcome<Flip[]>>;
  /** A check's delivered notifications, newest first (the newest 100; none in cluster mode, whose deliveries keep no record). */
  listSent(projectId: string, uuid: string): Promise<Outcome<SentNotice[]>>;
  /**
   * The stretches of time the project's checks were not watched (CONTRACT "Alerting, third part"): hcd was
   * not running (single node), or the project's partition had no owner (cluster); oldest first, merged.
   * null: every project's (cluster: every partition's, merged).
   */
  unknownTime(projectId: string | null): Promise<readonly Downtime[]>;

  // Pings: answered once the ping is durable. The edge resolves the owning project once (its key or the
  // check's uuid, through projectOfCheck / projectByPingKey) and passes it along.
  ping(projectId: string, command: PingCommand): Promise<Outcome<PingResult>>;

  // Time and maintenance
  /** Applies every deadline due at or before `now`, in order, and stores the result. */
  advance(now: Millis): Promise<void>;
  /** Performs a real store read on every shard; rejects when one fails. */
  probe(): Promise<void>;
  /** Removes flips older than `beforeAt`; returns how many. */
  pruneFlips(beforeAt: Millis): Promise<number>;
  /** Returns the counters and backlogs of every shard (one message per shard: read when /metrics is scraped). */
  stats(at: Millis): Promise<PoolStats>;
  /**
   * Writes a consistent, compacted copy of the whole store into the empty directory `dir` while pings
   * keep being served: everything acknowledged before the call is in it. One backup at a time.
   */
  backup(dir: string): Promise<void>;
  /** Returns the pending notifications (outbox) with their attempts and last errors. */
  listOutbox(): Promise<OutboxEntry[]>;
  /** Stops the shards after their pending writes are stored. */
  close(): Promise<void>;
};
