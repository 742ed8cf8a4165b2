// What a shard produced and the host must store, in one commit, before it answers anyone.
import type { Channel, Check, Flip, Millis, PingRecord, Project } from "./model.ts";

/** One ping to append to a check's log; `keep` = the project's ping_log_limit (older entries go). */
export type PingWrite = {
  readonly projectId: string;
  readonly checkUuid: string;
  readonly record: PingRecord;
  readonly body: Uint8Array | null; // already cut to ping_body_limit; null or empty = none
  readonly keep: number;
};

/** A notification waiting in the durable outbox: the check and channel as they were at the flip. */
export type OutboxEntry = {
  readonly id: string; // sortable: zero-padded flip time, check uuid, flip n, channel id
  readonly projectId: string;
  readonly check: Check;
  readonly flip: Flip;
  readonly channel: Channel;
  readonly lastPing: PingRecord | null;
  readonly lastPingBody: Uint8Array | null;
  readonly projectName: string;
  readonly downSinceAt: Millis | null; // for an up flip or a reminder: when the check went down, if known
  /** A reminder: the outage's n-th (its flip is then the down state at the reminder's instant); absent = a flip's notification. */
  readonly reminder?: number;
  readonly attempts: number;
  readonly nextAttemptAt: Millis;
  readonly lastError: string | null;
};

/** Everything to write after one or more commands; applied atomically by the store. */
export type Changes = {
  readonly projects: Project[];
  readonly channels: Channel[];
  readonly checks: Check[]; // upserted, keyed by [projectId, uuid]
  readonly deletedChecks: { readonly projectId: string; readonly uuid: string }[]; // with their pings, bodies, flips
  /** Removed channels, with their outbox entries still to send (absent in records written before removal existed). */
  readonly deletedChannels?: { readonly projectId: string; readonly id: string }[];
  readonly pings: PingWrite[];
  readonly flips: Flip[];
  readonly outbox: OutboxEntry[];
  /** Set when each check here differs from its last committed state only in status and nFlips (deadline flips). */
  readonly statusOnly?: boolean;
  /**
   * Set (and statusOnly not) when each check here differs from its last committed state only in its state
   * fields: status, nPings, nFlips, lastPingAt, lastStartAt, lastStartRid, lastDurationMs, alert (pings).
   */
  readonly stateOnly?: boolean;
};

/** Changes as a shard gathers them: every list present. */
export type GatheredChanges = Changes & { readonly deletedChannels: NonNullable<Changes["deletedChannels"]> };

/** Returns an empty Changes. */
export function noChanges(): GatheredChanges {
  return { projects: [], channels: [], checks: [], deletedChecks: [], deletedChannels: [], pings: [], flips: [], outbox: [] };
}

/** Returns true when there is nothing to write. */
export function isEmpty(changes: Changes): boolean {
  return Object.values(changes).every((value: unknown) => !Array.isArray(value) || value.length === 0);
}

/** nextAttemptAt of an entry that will never be tried again; its lastError says why. */
export const GAVE_UP_AT: Millis = Number.MAX_SAFE_INTEGER;

/** Returns true when delivery of the entry was abandoned (max attempts or a permanent error). */
export function hasGivenUp(entry: OutboxEntry): boolean {
  return entry.nextAttemptAt >= GAVE_UP_AT;
}
