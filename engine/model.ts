// The records the engine owns. Instants are epoch milliseconds (`...At`), durations milliseconds
// (`...Ms`). Records are readonly and replaced, never mutated. A project's channels are in channels.ts,
// what a client sets on a check in check-spec.ts; both are exported from here too.
import type { Millis } from "./units.ts";
import { HOUR, SECOND } from "./units.ts";

export type { Millis } from "./units.ts";
export { DAY, HOUR, MINUTE, SECOND } from "./units.ts";
export type { Channel, ChannelKind, ChannelValue, NtfySpec, ServiceFields, ServiceKind, WebhookSpec } from "./channels.ts";
export { CHANNEL_KINDS, SERVICE_KINDS } from "./channels.ts";
export type { CheckSpec, EscalationSpecStep, UniqueField } from "./check-spec.ts";
export { UNIQUE_FIELDS } from "./check-spec.ts";

/** Stored statuses; "grace" is derived on read by `statusAt` and never stored. */
export const STATUSES = ["new", "up", "down", "paused"] as const;
export type Status = (typeof STATUSES)[number];

/** What a ping meant once classified (the API's ping `type`). */
export const PING_KINDS = ["success", "start", "fail", "log", "ign"] as const;
export type PingKind = (typeof PING_KINDS)[number];

/** What the URL asked for, before methods, keywords and manual_resume are applied. */
export const PING_SIGNALS = ["success", "start", "fail", "log"] as const;
export type PingSignal = (typeof PING_SIGNALS)[number];

export const CHECK_KINDS = ["simple", "cron", "oncalendar"] as const;
export type CheckKind = (typeof CHECK_KINDS)[number];

/**
 * "duration": an open run outlived the check's max_duration; "too_fast": a run ended in success sooner than
 * its min_duration; "overlap": a run started or ended while another was open (alert_on_overlap);
 * "too_often": more successes in one period than max_runs_per_period.
 */
export const FLIP_REASONS = ["", "timeout", "fail", "duration", "too_fast", "overlap", "too_often"] as const;
export type FlipReason = (typeof FLIP_REASONS)[number];

export type Project = {
  readonly id: string; // uuid
  readonly name: string;
  readonly apiKey: string;
  readonly apiKeyReadonly: string;
  readonly pingKey: string;
  readonly badgeKey: string; // per-project key of the project's badge URLs (public: a badge URL is signed apart)
  readonly checkLimit: number;
  readonly pingLogLimit: number;
  readonly pingBodyLimit: number; // bytes
  readonly createdAt: Millis;
  /** Project-wide mute (maintenance window): no notification of its checks before this instant; absent = none. */
  readonly mutedUntilAt?: Millis | null;
  /** Recurring maintenance windows (CONTRACT "Alerting, second part"), in creation order; absent = none. */
  readonly maintenance?: readonly MaintenanceWindow[];
  /** Public status pages (CONTRACT "Status pages"), in creation order; absent = none. */
  readonly statusPages?: readonly StatusPage[];
  /** The escalation policy of the project's checks that have none of their own (engine/escalation.ts); absent = none. */
  readonly escalation?: readonly EscalationStep[];
  /** When the project was deleted: the record stays as a tombstone with no keys, and names nothing. */
  readonly deletedAt?: Millis;
  /** API keys brought over from Healthchecks in its hashed form (host/project-keys.ts verifies them); absent = none. */
  readonly hashedApiKeys?: HashedApiKeys;
};

/**
 * API keys as Healthchecks stores them since v3.11: "<first 8 characters after the prefix>.<hex HMAC-SHA256
 * of the whole key, keyed by its SECRET_KEY>" (null: that key is not one of these), with the secret that
 * verifies them. A key created anew or revoked in hcd drops its hash.
 */
export type HashedApiKeys = { readonly secretKey: string; readonly apiKey: string | null; readonly apiKeyReadonly: string | null };

/** A public status page: chosen checks of the project shown at /status/<slug> without sign-in. */
export type StatusPage = {
  readonly slug: string; // unique over every project
  readonly title: string;
  /** A few lines under the title (plain text, line breaks kept); absent = none. */
  readonly description?: string;
  readonly checks: readonly string[]; // check uuids of the project, in the order shown
  /** Headings over some of `checks` (each in one group at most), in the order shown; the others come first, ungrouped. */
  readonly groups?: readonly StatusGroup[];
  /** An https address of an image shown above the title (the viewer's browser loads it, hcd never does); absent = none. */
  readonly logo?: string;
  readonly createdAt: Millis;
};

/** A heading on a status page and its checks (uuids among the page's `checks`), in the order shown. */
export type StatusGroup = { readonly name: string; readonly checks: readonly string[] };

/** A recurring maintenance window: each time `schedule` fires in `tz`, the project is muted for `durationMs`. */
export type MaintenanceWindow = {
  readonly id: string; // uuid
  readonly name: string;
  readonly schedule: string; // cron or OnCalendar
  readonly tz: string;
  readonly durationMs: Millis;
  readonly createdAt: Millis;
};

/**
 * A step of an escalation policy: once a check has been down `afterMs` since its down flip and its outage
 * is not acknowledged, `channels` (ids of the project's channels, sorted) are notified too.
 */
export type EscalationStep = { readonly afterMs: Millis; readonly channels: readonly string[] };

export type Check = {
  readonly uuid: string;
  readonly projectId: string;
  readonly badgeKey: string; // per-check random uuid, distinct from `uuid`
  readonly name: string;
  readonly slug: string;
  readonly tags: string;
  readonly desc: string;
  readonly kind: CheckKind;
  readonly timeoutMs: Millis; // kept (hidden) while the check has a schedule
  readonly graceMs: Millis;
  readonly schedule: string; // kept (hidden) while the check is simple
  readonly tz: string;
  readonly manualResume: boolean;
  readonly methods: "" | "POST";
  readonly startKw: string;
  readonly successKw: string;
  readonly failureKw: string;
  readonly filterSubject: boolean;
  readonly filterBody: boolean;
  readonly filterHttpBody: boolean;
  readonly filterDefaultFail: boolean;
  readonly channels: readonly string[]; // channel ids, sorted
  readonly createdAt: Millis;
  // State
  readonly status: Status;
  readonly nPings: number;
  readonly nFlips: number;
  readonly lastPingAt: Millis | null;
  readonly lastStartAt: Millis | null; // an open run ("started")
  readonly lastStartRid: string | null;
  readonly lastDurationMs: Millis | null;
  // Alerting (CONTRACT "Alerting fields of a check"). Undefined (or absent, in older stored records) =
  // the default.
  readonly failureThreshold?: number; // 1-100; absent = 1
  readonly reminderIntervalMs?: Millis; // 0 = off; absent = 0
  readonly mutedUntilAt?: Millis | null; // absent = null
  /** CONTRACT "Alerting, second part": an open run is down this long after its start (instead of its grace); 0 = off; absent = 0. */
  readonly maxDurationMs?: Millis;
  /** Uuids of checks of the same project this one depends on, sorted: while one is down its down notifications wait; absent = none. */
  readonly dependsOn?: readonly string[];
  /** A run that ends in success sooner than this after its start counts as a failure (too fast); 0 = off; absent = 0. */
  readonly minDurationMs?: Millis;
  /** A start or another run's success while a run is open (an overlap) counts as a failure; absent = false (the overlap is only noted). */
  readonly alertOnOverlap?: boolean;
  /** More success signals than this in one period (engine/runs.ts) count as a failure; 0 = off; absent = 0. */
  readonly maxRunsPerPeriod?: number;
  /** The check's own escalation policy ([] = none); absent = its project's. */
  readonly escalation?: readonly EscalationStep[];
  /** The alerting state (engine/alerting.ts); absent = nothing counted and no outage notice pending. */
  readonly alert?: AlertState;
  /** An Uptime Kuma push monitor's token: GET /api/push/<token> pings this check (http/routes/kuma-push.ts); unique over every project; absent = none. */
  readonly pushToken?: string;
};

export type Writable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * Returns a copy of `check` with `changes` applied. Every check record of the engine is made here, as one
 * object literal of every field in one order (the alerting fields undefined when unset), so all of a
 * shard's checks share one V8 shape with their fields inside the object. A spread copy is built field by
 * field into a shape whose fields sit in a separate array, and the readers of such checks meet many shapes:
 * measured, a copy took 3-5 times longer, and 100,000 reminders took 1.3 s instead of 0.9 s.
 */
export function checkWith(check: Check, changes?: Partial<Check>): Check {
  const copy: Writable<Check> = {
    uuid: check.uuid,
    projectId: check.projectId,
    badgeKey: check.badgeKey,
    name: check.name,
    slug: check.slug,
    tags: check.tags,
    desc: check.desc,
    kind: check.kind,
    timeoutMs: check.timeoutMs,
    graceMs: check.graceMs,
    schedule: check.schedule,
    tz: check.tz,
    manualResume: check.manualResume,
    methods: check.methods,
    startKw: check.startKw,
    successKw: check.successKw,
    failureKw: check.failureKw,
    filterSubject: check.filterSubject,
    filterBody: check.filterBody,
    filterHttpBody: check.filterHttpBody,
    filterDefaultFail: check.filterDefaultFail,
    channels: check.channels,
    createdAt: check.createdAt,
    status: check.status,
    nPings: check.nPings,
    nFlips: check.nFlips,
    lastPingAt: check.lastPingAt,
    lastStartAt: check.lastStartAt,
    lastStartRid: check.lastStartRid,
    lastDurationMs: check.lastDurationMs,
    failureThreshold: check.failureThreshold,
    reminderIntervalMs: check.reminderIntervalMs,
    mutedUntilAt: check.mutedUntilAt,
    maxDurationMs: check.maxDurationMs,
    dependsOn: check.dependsOn,
    minDurationMs: check.minDurationMs,
    alertOnOverlap: check.alertOnOverlap,
    maxRunsPerPeriod: check.maxRunsPerPeriod,
    escalation: check.escalation,
    alert: check.alert,
    pushToken: check.pushToken,
  };
  if (changes !== undefined) Object.assign(copy, changes);
  return copy;
}

/** Returns a new check of the project with its ids: simple, timeout 1 day, grace 1 hour, never pinged. */
export function freshCheck(ids: { readonly uuid: string; readonly badgeKey: string; readonly projectId: string }, at: Millis): Check {
  return checkWith({
    uuid: ids.uuid,
    projectId: ids.projectId,
    badgeKey: ids.badgeKey,
    name: "",
    slug: "",
    tags: "",
    desc: "",
    kind: "simple",
    timeoutMs: LIMITS.defaultTimeoutMs,
    graceMs: LIMITS.defaultGraceMs,
    schedule: "* * * * *",
    tz: "UTC",
    manualResume: false,
    methods: "",
    startKw: "",
    successKw: "",
    failureKw: "",
    filterSubject: false,
    filterBody: false,
    filterHttpBody: false,
    filterDefaultFail: false,
    channels: [],
    createdAt: at,
    status: "new",
    nPings: 0,
    nFlips: 0,
    lastPingAt: null,
    lastStartAt: null,
    lastStartRid: null,
    lastDurationMs: null,
  });
}

/**
 * What alerting keeps between events: the failure signals counted since the last success, and while the
 * check is down, the one notice of the outage still to come (a reminder, or the down notification a mute
 * held back) with its due time. One record, replaced whole, so "did alerting change?" is one comparison.
 */
export type AlertState = {
  readonly failures: number; // consecutive failure signals since the last success signal
  readonly downSinceAt: Millis | null; // the down flip of the current outage; null when up
  readonly dueAt: Millis | null; // when the next notice of the outage is due; null = none
  readonly held: boolean; // the notice at dueAt is the down notification a mute held back (else a reminder)
  readonly reminders: number; // reminders sent in the current outage
  /** hcd's own downtime that the check's deadline fell in: not judged down before its end plus the grace; absent = none. */
  readonly downtime?: Downtime;
  /** A dependency of the check that is down (depends_on): its down notifications and reminders wait for it; absent = none. */
  readonly heldBy?: string;
  /** The current outage was acknowledged (CONTRACT "Alerting, second part"): no more reminders for it; absent = not. */
  readonly acknowledged?: Acknowledgement;
  /** How many steps of the escalation policy the current outage reached; absent = none. */
  readonly escalated?: number;
  /** When the outage's next escalation step is due; absent = none planned. */
  readonly escalateAt?: Millis;
  /** The success signals counted in the current period under max_runs_per_period (engine/runs.ts); absent = none counted. */
  readonly period?: RunPeriod;
};

/** A period of max_runs_per_period: it lasts until `endAt` (exclusive) and has seen `runs` success signals. */
export type RunPeriod = { readonly endAt: Millis; readonly runs: number };

/** Who acknowledged an outage, and when: "api" for the management API; from the dashboard, who as the audit log names them (a user's email, "admin token", a key's session; "dashboard" in older records). */
export type Acknowledgement = { readonly at: Millis; readonly by: string };

/**
 * A stretch of time in which hcd did not judge deadlines (stopped, or starting again): a check whose
 * deadline fell inside is judged only once its own grace has passed since `toAt` (CONTRACT "hcd's own
 * downtime and clock"), and its down notification names the stretch.
 */
export type Downtime = { readonly fromAt: Millis; readonly toAt: Millis };

/** One entry of a check's ping log. `n` is the check's nPings after this ping. */
export type PingRecord = {
  readonly n: number;
  readonly at: Millis;
  readonly kind: PingKind;
  readonly scheme: string; // "http", "https", "email"
  readonly remoteAddr: string;
  readonly method: string;
  readonly ua: string; // cut to 200 characters
  readonly rid: string | null; // lower-case canonical uuid
  readonly exitStatus: number | null;
  readonly bodySize: number; // bytes stored separately; 0 = no body
  /** What the run rules made of the ping (engine/runs.ts), shown with it; absent = nothing. */
  readonly note?: PingNote;
};

/**
 * A ping's note: "overlap" (a start, or another run's success, while a run was open), "too_fast" (its run
 * ended sooner than min_duration), "too_often" (more successes in its period than max_runs_per_period).
 */
export const PING_NOTES = ["overlap", "too_fast", "too_often"] as const;
export type PingNote = (typeof PING_NOTES)[number];

/** A recorded status change. Pause and resume flips are recorded too (the API shows them as up: 0). */
export type Flip = {
  readonly checkUuid: string;
  readonly n: number; // the check's nFlips after this flip
  readonly at: Millis;
  readonly from: Status;
  readonly to: Status;
  readonly reason: FlipReason;
  readonly notify: boolean; // whether integrations hear of it (not for new→up, paused→up, pause, resume)
};

/** Defaults and limits from the spec (section 4.2, 8) and the contract. */
export const LIMITS = {
  timeoutMinMs: 60 * SECOND,
  timeoutMaxMs: 31_536_000 * SECOND,
  defaultTimeoutMs: 86_400 * SECOND,
  defaultGraceMs: 3_600 * SECOND,
  defaultCheckLimit: 20,
  defaultPingLogLimit: 100,
  defaultPingBodyLimit: 10_000,
  maxPingsListed: 1000,
  nameMaxChars: 100,
  tagsMaxChars: 500, // the reference's API schema (desc has no limit there, only the request body's)
  slugMaxChars: 100,
  scheduleMaxChars: 100,
  keywordsMaxChars: 200,
  uaMaxChars: 200,
  maxRunDurationMs: 72 * HOUR, // ping-log durations beyond this are not shown
  failureThresholdMin: 1,
  failureThresholdMax: 100,
  reminderIntervalMinMs: 300 * SECOND,
  reminderIntervalMaxMs: 31_536_000 * SECOND,
  maintenanceMinMs: 60 * SECOND,
  maintenanceMaxMs: 604_800 * SECOND,
  maxDurationMinMs: 60 * SECOND,
  maxDurationMaxMs: 604_800 * SECOND,
  minDurationMaxMs: 604_800 * SECOND, // min_duration: 0 (off), or 1 s and more
  maxRunsPerPeriodMax: 1_000,
  escalationStepsMax: 2, // a second and a third set of integrations
  escalationAfterMinMs: 60 * SECOND,
  escalationAfterMaxMs: 604_800 * SECOND,
} as const;

/**
 * Returns an outbox entry's id: the zero-padded flip time, check uuid, flip n and channel id, then for a
 * notice "-r<n>" (the n-th reminder) or "-m" (the down notification a mute held; notice 0), or a text
 * notice as it is after a "-" ("e2": the second escalation step, "f17": the failure of the 17th ping);
 * null = a flip's.
 */
export function outboxEntryId(flipAt: Millis, checkUuid: string, flipN: number, channelId: string, notice: number | string | null): string {
  const suffix = notice === null ? "" : typeof notice === "string" ? `-${notice}` : notice === 0 ? "-m" : `-r${notice}`;
  // the flip time's text once per instant: a burst's entries (100,000 at the top of the hour) share it
  if (flipAt !== lastIdAt) {
    lastIdAt = flipAt;
    lastIdAtText = String(flipAt).padStart(15, "0");
  }
  // joined, not concatenated: one flat string, where `+` builds a tree of pieces the encoder flattens again
  return [lastIdAtText, checkUuid, String(flipN).padStart(9, "0"), channelId + suffix].join("-");
}
let lastIdAt = Number.NaN;
let lastIdAtText = "";

/** Returns nothing; makes a `switch` exhaustive at compile time. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}

/** Returns the tags of a check: split on spaces, trimmed, empties dropped (reference tags_list). */
export function tagsOf(tags: string): string[] {
  return tags
    .split(" ")
    .map((t) => t.trim())
    .filter((t) => t !== "");
}
