// What the front ends ask of a shard, as plain data: pings as received, check list filters, and every
// change a shard applies.
import type { Channel, Check, CheckSpec, Downtime, MaintenanceWindow, Millis, PingSignal, Project, UniqueField } from "./model.ts";
import type { Outcome } from "./outcome.ts";
import type { ProjectChange } from "./project-changes.ts";
import type { CheckImport, ImportedPing, ImportResult } from "./check-import.ts";

/** How a ping names its check. */
export type PingTarget = { readonly uuid: string } | { readonly pingKey: string; readonly slug: string; readonly create: boolean };

/** A ping as the front end received it; the shard classifies it (URL signal, method, keywords). */
export type PingCommand = {
  readonly target: PingTarget;
  readonly signal: PingSignal;
  readonly exitStatus: number | null; // 0-255 from /<exit-status>; already validated
  readonly method: string;
  readonly scheme: string;
  readonly remoteAddr: string;
  readonly ua: string;
  readonly rid: string | null; // lower-case canonical uuid, already validated
  // cut to the larger of ping_body_limit and KEYWORD_BODY_BYTES: the shard stores the first and classifies on the second
  readonly body: Uint8Array | null;
  /** Email pings: subject and plain text, classified with the email keyword rules. */
  readonly email?: { readonly subject: string; readonly text: string };
  readonly at: Millis;
};

export type CheckQuery = { readonly slug?: string; readonly tags: readonly string[] };

/**
 * Every change a shard applies, as data: the host, the worker boundary, replays and scenarios all carry
 * these, and `Shard.apply` is their one entry. Each carries its instant (`at`, or the ping's own).
 */
export type ShardCommand =
  | { readonly kind: "createProject"; readonly project: Project; readonly at: Millis }
  | { readonly kind: "muteProject"; readonly projectId: string; readonly untilAt: Millis | null; readonly at: Millis }
  /** A change to the project record alone: its name, a key, its status pages (engine/project-changes.ts). */
  | { readonly kind: "changeProject"; readonly projectId: string; readonly change: ProjectChange; readonly at: Millis }
  /** Adds a window, or replaces the project's window of the same id in place. */
  | { readonly kind: "addMaintenance"; readonly projectId: string; readonly window: MaintenanceWindow; readonly at: Millis }
  | { readonly kind: "removeMaintenance"; readonly projectId: string; readonly windowId: string; readonly at: Millis }
  | { readonly kind: "addChannel"; readonly channel: Channel; readonly at: Millis }
  | { readonly kind: "removeChannel"; readonly projectId: string; readonly channelId: string; readonly at: Millis }
  /** Replaces a channel's name and value; its kind stays (a value of another kind is refused). */
  | {
      readonly kind: "updateChannel";
      readonly projectId: string;
      readonly channelId: string;
      readonly name: string;
      readonly value: Channel["value"];
      readonly newChecks?: boolean;
      readonly everyFailure?: boolean;
      readonly at: Millis;
    }
  /** `uuid`: the new check's, given (a check brought from elsewhere keeps its ping URL); absent: a fresh one. */
  | {
      readonly kind: "createCheck";
      readonly projectId: string;
      readonly spec: CheckSpec;
      readonly unique: readonly UniqueField[];
      readonly at: Millis;
      readonly uuid?: string;
    }
  | { readonly kind: "updateCheck"; readonly projectId: string; readonly uuid: string; readonly spec: CheckSpec; readonly at: Millis }
  | { readonly kind: "pauseCheck" | "resumeCheck" | "deleteCheck"; readonly projectId: string; readonly uuid: string; readonly at: Millis }
  /** Acknowledges a down check's outage (CONTRACT "Alerting, second part"); `by` names who ("api", "dashboard"). */
  | { readonly kind: "acknowledgeCheck"; readonly projectId: string; readonly uuid: string; readonly by: string; readonly at: Millis }
  | { readonly kind: "ping"; readonly ping: PingCommand }
  /** A check brought over whole (engine/check-import.ts): made with its uuid, state and flips, or its settings brought up to date. */
  | { readonly kind: "importCheck"; readonly projectId: string; readonly check: CheckImport; readonly at: Millis }
  /** Past pings of an imported check, each numbered as it was (at most its n_pings); one already logged is written again as it is. */
  | {
      readonly kind: "importPings";
      readonly projectId: string;
      readonly uuid: string;
      readonly pings: readonly ImportedPing[];
      readonly at: Millis;
    }
  | { readonly kind: "advance"; readonly at: Millis }
  /** hcd judged no deadline during `downtime` (it was stopped): hold the checks whose deadline fell in it. */
  | { readonly kind: "holdForDowntime"; readonly downtime: Downtime; readonly at: Millis };

/** The result of a ping inside the shard: enough for the pool to keep its directory. */
export type ShardPingResult = { readonly checkUuid: string; readonly created: boolean; readonly badgeKey: string };

/** What each command answers. */
export type ShardResults = {
  readonly createProject: Project;
  readonly muteProject: Outcome<Project>;
  readonly changeProject: Outcome<Project>;
  readonly addMaintenance: Outcome<Project>;
  readonly removeMaintenance: Outcome<Project>;
  readonly addChannel: Outcome<Channel>;
  readonly removeChannel: Outcome<Channel>;
  readonly updateChannel: Outcome<Channel>;
  readonly createCheck: Outcome<{ check: Check; created: boolean }>;
  readonly updateCheck: Outcome<Check>;
  readonly pauseCheck: Outcome<Check>;
  readonly resumeCheck: Outcome<Check>;
  readonly deleteCheck: Outcome<Check>;
  readonly acknowledgeCheck: Outcome<Check>;
  readonly ping: Outcome<ShardPingResult>;
  readonly importCheck: Outcome<{ check: Check; result: ImportResult }>;
  readonly importPings: Outcome<number>;
  readonly advance: void;
  readonly holdForDowntime: number; // how many checks it holds
};

export type ShardResultOf<C extends ShardCommand> = ShardResults[C["kind"]];
