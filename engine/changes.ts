// What a shard produced and the host must store, in one commit, before it answers anyone.
import type { Channel, Check, Downtime, Flip, Millis, PingRecord, Project } from "./model.ts";
import type { RunFacts } from "./runs.ts";

/** One ping to append to a check's log; `keep` = the project's ping_log_limit (older entries go). */
export type PingWrite = {
  readonly projectId: string;
  readonly checkUuid: string;
  readonly record: PingRecord;
  readonly body: Uint8Array | null; // already cut to ping_body_limit; null or empty = none
  readonly keep: number;
};

/**
 * What a notification shows of its check (notify/render.ts: name, tags, description, period or schedule,
 * ping count, links), as it was at the flip. An entry carries this much, not the whole check: the whole
 * record is most of an entry's bytes, and at the top of the hour a shard journals tens of thousands of
 * entries at once. Only a channel that sends the check's API JSON (rendersCheckJson) gets the whole check.
 */
export type NoticeCheck = Pick<
  Check,
  "uuid" | "name" | "slug" | "tags" | "desc" | "kind" | "timeoutMs" | "schedule" | "tz" | "nPings" | "createdAt"
>;

/** What an entry keeps of its channel: all but what the entry has already (its project) or never shows (when it was made). */
export type NoticeChannel = Pick<Channel, "id" | "name" | "kind" | "value" | "needsSettings">;

/** A notification waiting in the durable outbox: the check (what it shows of it) and channel as they were at the flip. */
export type OutboxEntry = {
  readonly id: string; // sortable: zero-padded flip time, check uuid, flip n, channel id
  readonly projectId: string;
  /** The whole check for a channel that sends its API JSON, else its NoticeCheck (entries stored before this: always whole). */
  readonly check: NoticeCheck | Check;
  readonly flip: Flip;
  readonly channel: NoticeChannel; // entries stored before this: the whole channel
  readonly lastPing: PingRecord | null;
  readonly lastPingBody: Uint8Array | null;
  readonly projectName: string;
  readonly downSinceAt: Millis | null; // for an up flip or a reminder: when the check went down, if known
  /** A reminder: the outage's n-th (its flip is then the down state at the reminder's instant); absent = a flip's notification. */
  readonly reminder?: number;
  /** A down flip whose deadline fell in hcd's own downtime: that downtime, which the message names; absent = none. */
  readonly downtime?: Downtime;
  /** A down flip of an open run that outlived max_duration ("duration"): when that run started, which the message names; absent = none. */
  readonly runStartedAt?: Millis;
  /** A down flip or a failure by a run rule (too fast, too often, an overlap): what the message says of the run; absent = none. */
  readonly run?: RunFacts;
  /** An escalation step's notification: its number (1 = the policy's first), its flip the down state at its instant; absent = none. */
  readonly escalation?: number;
  /** A failure that found the check down (every_failure): the n of its ping, its flip the down state at the ping; absent = none. */
  readonly failedAgain?: number;
  readonly attempts: number;
  readonly nextAttemptAt: Millis;
  readonly lastError: string | null;
  /** When the last failed attempt was made (absent: none yet, or stored before this was kept). */
  readonly lastAttemptAt?: Millis;
};

/** Returns the part of the check a notification shows (a new object: the check's other fields are not kept alive). */
export function noticeCheckOf(check: Check): NoticeCheck {
  return {
    uuid: check.uuid,
    name: check.name,
    slug: check.slug,
    tags: check.tags,
    desc: check.desc,
    kind: check.kind,
    timeoutMs: check.timeoutMs,
    schedule: check.schedule,
    tz: check.tz,
    nPings: check.nPings,
    createdAt: check.createdAt,
  };
}

/** What an outbox entry of `channel` carries of the check (as the shard queues it): the whole check when its channel needs it. */
export function entryCheckOf(channel: NoticeChannel, check: Check): NoticeCheck | Check {
  return rendersCheckJson(channel) ? check : noticeCheckOf(check);
}

/** Returns the part of the channel an entry keeps. */
export function noticeChannelOf(channel: Channel): NoticeChannel {
  const kept = { id: channel.id, name: channel.name, kind: channel.kind, value: channel.value };
  return channel.needsSettings === true ? { ...kept, needsSettings: true } : kept;
}

/** Returns true when the entry carries the whole check (not just its NoticeCheck). */
export function isWholeCheck(check: NoticeCheck | Check): check is Check {
  return "status" in check;
}

/**
 * Returns true when the channel's notifications may contain the check's API JSON, which needs the whole
 * check: a JSON webhook, a webhook with $JSON in any of its templates (URLs, bodies, header values), or a
 * group (its members are read when it is delivered, and any of them may be such a webhook by then).
 */
export function rendersCheckJson(channel: NoticeChannel): boolean {
  const value = channel.value;
  if (value.kind === "group") return true;
  if (value.kind !== "webhook") return false;
  if (value.json) return true;
  const spec = value.spec;
  const templates = [
    spec.url_down,
    spec.body_down,
    spec.url_up,
    spec.body_up,
    ...Object.values(spec.headers_down),
    ...Object.values(spec.headers_up),
  ];
  return templates.some((template) => template.includes("$JSON"));
}

/**
 * How far a front end's intake log is reflected in a commit: every ping of intake log `writer` routed
 * to shard `shard` ("<index>/<count>") at `position` or before. Pings the front end acknowledged from its
 * own log and a shard applied later reach the shard's commits lazily; a restart replays the rest.
 */
export type IntakeMark = { readonly writer: string; readonly shard: string; readonly position: number };

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
  /** Intake marks this commit reaches (absent in records that carry none). */
  readonly intake?: IntakeMark[];
  /** Set when each check here differs from its last committed state only in status and nFlips (deadline flips). */
  readonly statusOnly?: boolean;
  /**
   * Set (and statusOnly not) when each check here differs from its last committed state only in its state
   * fields: status, nPings, nFlips, lastPingAt, lastStartAt, lastStartRid, lastDurationMs, alert (pings).
   */
  readonly stateOnly?: boolean;
  /**
   * Set (and neither statusOnly nor stateOnly) when each check here differs from its last committed
   * state only in its alerting state (alert): an outage's notices, reminders at the top of the hour.
   */
  readonly alertOnly?: boolean;
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

/**
 * A notification that reached its channel, kept for the check's events once it left the outbox: what was
 * sent (the flip's status, or the n-th reminder), through which channel, and when. No channel value: a
 * webhook URL or an address may hold a secret.
 */
export type SentNotice = {
  readonly id: string; // the outbox entry's
  readonly checkUuid: string;
  readonly sentAt: Millis;
  readonly flipAt: Millis;
  readonly to: Flip["to"];
  readonly reminder?: number;
  /** An escalation step's (its number) or a failure's while down (its ping's n): absent for the others. */
  readonly escalation?: number;
  readonly failedAgain?: number;
  readonly channel: { readonly id: string; readonly name: string; readonly kind: string };
};

/** Returns the record of `entry` delivered at `sentAt`. */
export function sentNoticeOf(entry: OutboxEntry, sentAt: Millis): SentNotice {
  const { id, name, kind } = entry.channel;
  return {
    id: entry.id,
    checkUuid: entry.check.uuid,
    sentAt,
    flipAt: entry.flip.at,
    to: entry.flip.to,
    ...(entry.reminder === undefined ? {} : { reminder: entry.reminder }),
    ...(entry.escalation === undefined ? {} : { escalation: entry.escalation }),
    ...(entry.failedAgain === undefined ? {} : { failedAgain: entry.failedAgain }),
    channel: { id, name, kind },
  };
}

/** Returns true when delivery of the entry was abandoned (max attempts or a permanent error). */
export function hasGivenUp(entry: OutboxEntry): boolean {
  return entry.nextAttemptAt >= GAVE_UP_AT;
}
