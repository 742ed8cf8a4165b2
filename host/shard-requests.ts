// What the pool sends a shard host and what each request answers, as data: the same in a worker thread,
// in-process, and over the cluster's partition requests.
import type { OutboxEntry, SentNotice } from "../engine/changes.ts";
import type { ShardCommand, ShardPingResult, ShardResults } from "../engine/commands.ts";
import type { Channel, Check, Flip, Millis, PingRecord, Project } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import type { ChecksSince, CheckQuery, CheckRef, FlipQuery, PingCommand } from "./pool-api.ts";
import type { CheckView } from "./check-json.ts";
import type { PackedChecks } from "./check-directory.ts";
import type { ShardStats } from "./shard-stats.ts";
/**
 * Pings of an intake log, as the front end hands them to their shard once they are durable there: their
 * positions, and their records as written (persistence/intake.ts) one after the other in `bytes`, the
 * i-th ending at ends[i]. One buffer crosses to the shard's thread as one copy; objects would be cloned
 * field by field, which at the peak rate was a tenth of the front end's thread.
 */
export type IntakeBatch = { readonly positions: readonly number[]; readonly ends: readonly number[]; readonly bytes: Uint8Array };

/** What the pool needs to route requests to this shard. */
export type ShardDirectory = {
  readonly projects: Project[];
  /** uuid, project and badge key of every check, packed (one typed array to copy, not a million arrays). */
  readonly checks: PackedChecks;
  /** [uuid, push token] of the checks that have one (few). */
  readonly pushTokens: [string, string][];
};

/** A check's ping log page: newest first, with each ping's run duration. */
export type PingPage = { check: Check; pings: PingRecord[]; durationsMs: (Millis | null)[] };

/** Every request the pool sends a shard host, as data (the same in a worker thread and in-process). */
export type HostRequest =
  | Exclude<ShardCommand, { kind: "ping" }>
  | { readonly kind: "pingBatch"; readonly pings: readonly PingCommand[] }
  | { readonly kind: "intakePings"; readonly writer: string; readonly batch: IntakeBatch }
  | { readonly kind: "commitIntake"; readonly writer: string }
  /** The deadline ticker's (host/deadline-ticker.ts): deadlines up to `at`, then a checkpoint when due. */
  | { readonly kind: "tick"; readonly at: Millis }
  | { readonly kind: "directory" | "probe" | "outbox" | "close" }
  | { readonly kind: "channels"; readonly projectId: string }
  | { readonly kind: "projectVersion"; readonly projectId: string }
  | { readonly kind: "checksSince"; readonly projectId: string; readonly since: string | null }
  | { readonly kind: "listChecks"; readonly projectId: string; readonly query: CheckQuery }
  | { readonly kind: "listChecksJson"; readonly projectId: string; readonly query: CheckQuery; readonly view: CheckView }
  | { readonly kind: "getCheck"; readonly projectId: string; readonly ref: CheckRef }
  | { readonly kind: "listPings"; readonly projectId: string; readonly uuid: string; readonly pingLogLimit: number }
  | { readonly kind: "pingBody"; readonly projectId: string; readonly uuid: string; readonly n: number; readonly pingLogLimit: number }
  | { readonly kind: "listFlips"; readonly projectId: string; readonly ref: CheckRef; readonly query: FlipQuery }
  | { readonly kind: "listSent"; readonly projectId: string; readonly uuid: string }
  | { readonly kind: "pruneFlips"; readonly beforeAt: Millis }
  | { readonly kind: "stats"; readonly at: Millis }
  | { readonly kind: "holdCheckpoints" | "releaseCheckpoints" }
  | { readonly kind: "copyStore"; readonly dir: string };

/** What each request answers. */
type HostResults = Omit<ShardResults, "ping"> & {
  readonly pingBatch: Outcome<ShardPingResult>[];
  readonly intakePings: void;
  readonly commitIntake: number | null;
  readonly tick: void;
  readonly directory: ShardDirectory;
  readonly probe: void;
  readonly outbox: OutboxEntry[];
  readonly listSent: Outcome<SentNotice[]>;
  readonly close: void;
  readonly channels: Channel[];
  readonly projectVersion: string;
  readonly checksSince: ChecksSince;
  readonly listChecks: Check[];
  readonly listChecksJson: Uint8Array;
  readonly getCheck: Outcome<Check>;
  readonly listPings: Outcome<PingPage>;
  readonly pingBody: Outcome<Uint8Array>;
  readonly listFlips: Outcome<Flip[]>;
  readonly pruneFlips: number;
  readonly stats: ShardStats;
  readonly holdCheckpoints: void;
  readonly releaseCheckpoints: void;
  readonly copyStore: void;
};

export type HostResultOf<R extends HostRequest> = HostResults[R["kind"]];

/** A shard host as the pool reaches it: one `apply` of requests as data (a worker hop or not). */
export type ShardHandle = { apply<R extends HostRequest>(request: R): Promise<HostResultOf<R>> };
