// The command log's record format: a commit's Changes as one msgpack record (checks a deadline flipped as
// status patches, pings and notices as rows), read back against the last state of each check.
import { Packr } from "msgpackr";
import type { Changes, NoticeCheck, OutboxEntry, PingWrite } from "../engine/changes.ts";
import type { Check, Millis, PingRecord } from "../engine/model.ts";
import { outboxEntryId } from "../engine/model.ts";

// The journal's own encoder: msgpack with record definitions inside each record (self-describing, so
// nothing shared to keep in sync), from our msgpackr rather than the copy inside lmdb. Measured: once
// lmdb's copy has encoded the tables' shared-structure records, it packs a journal record 4x slower
// (about 32 us a ping instead of 8), the largest single cost of an acknowledged ping.
const journalPackr = new Packr({ copyBuffers: true }); // bodies must not point into LMDB's pages

/**
 * A check's change that is only its status and flip count ([projectId, uuid, status, nFlips]), as a
 * deadline's flip makes it. Logged instead of the whole check: at the top of the hour a shard logs
 * tens of thousands of them at once, and a whole check costs 2-4 us to encode (measured).
 */
type StatusPatch = readonly [projectId: string, uuid: string, status: Check["status"], nFlips: number];

/**
 * A check's change that is only its state fields, as a ping makes it (alert last, absent when the check
 * has none). Logged instead of the whole check: a ping's record then holds about what the ping itself
 * brought, a third of its size with the whole check.
 */
type StatePatch = readonly [
  projectId: string,
  uuid: string,
  status: Check["status"],
  nPings: number,
  nFlips: number,
  lastPingAt: Check["lastPingAt"],
  lastStartAt: Check["lastStartAt"],
  lastStartRid: Check["lastStartRid"],
  lastDurationMs: Check["lastDurationMs"],
  alert?: Check["alert"],
];

/**
 * A check's change that is only its alerting state ([projectId, uuid, alert], alert absent when the
 * check has none left), as an outage's notice (a reminder) makes it. At the top of the hour a shard logs
 * tens of thousands of them at once.
 */
type AlertPatch = readonly [projectId: string, uuid: string, alert?: Check["alert"]];

/**
 * An outbox entry of a notice (a reminder, or the down notification a mute held) in a state-only or
 * alert-only record, stored as what it adds to its check's patch in the same record: everything else of the entry
 * (its id, projectId, flip, what it shows of the check, its retry state) follows from the check and
 * these. Logged instead of the whole entry: at the top of the hour a shard logs tens of thousands of
 * reminders at once, and a whole entry is about 390 bytes, most of it repeating its check and channel.
 * reminder: its number, 0 for a held down notification; channel: an index into the record's channels.
 */
type NoticeRow = readonly [
  patch: number,
  channel: number,
  flipN: number,
  flipAt: Millis,
  reminder: number,
  nPings: number,
  lastPing: OutboxEntry["lastPing"],
  lastPingBody: OutboxEntry["lastPingBody"],
  downSinceAt: Millis | null,
  projectName: string,
];

/**
 * A ping in a state-only record, stored as what it adds to its check's patch in the same record (the
 * patch's index; its project and check come from there) and its record's fields by position: no field
 * names, no ids twice. A ping's record is about 220 bytes this way instead of 390, and a synced group of
 * 20 of them fills one 4 kB page of the log instead of two.
 */
type PingRow = readonly [
  patch: number,
  keep: number,
  body: Uint8Array | null,
  n: number,
  at: Millis,
  kind: PingRecord["kind"],
  scheme: string,
  remoteAddr: string,
  method: string,
  ua: string,
  rid: string | null,
  exitStatus: number | null,
  bodySize: number,
];

const LISTS = ["projects", "channels", "checks", "deletedChecks", "deletedChannels", "pings", "flips", "outbox", "intake"] as const;

/** One record as stored: the non-empty lists of Changes, with state-only check changes as patches. */
type JournalRecord = Omit<Partial<Changes>, "outbox" | "pings"> & {
  /** Pings, each whole or (in a state-only record) a PingRow. */
  readonly pings?: readonly (PingWrite | PingRow)[];
  readonly patches?: readonly StatusPatch[];
  readonly states?: readonly StatePatch[];
  readonly alerts?: readonly AlertPatch[];
  /** Entries, each whole or (in a state-only or alert-only record) a NoticeRow. */
  readonly outbox?: readonly (OutboxEntry | NoticeRow)[];
  /** The channels of the outbox's NoticeRows, each once. */
  readonly noticeChannels?: readonly OutboxEntry["channel"][];
};

/**
 * Returns the bytes of one record: the non-empty lists of `changes`. Checks of `statusOnly` changes
 * (deadline flips), `stateOnly` changes (pings) and `alertOnly` changes (reminders) are stored as
 * patches, which a replay applies to the check's last committed state; the outbox entries of notices
 * in the last two, as NoticeRows of those patches.
 */
export function encodeJournal(changes: Changes): Uint8Array {
  const stored: Record<string, unknown> = {};
  for (const list of LISTS) if ((changes[list]?.length ?? 0) > 0) stored[list] = changes[list];
  if (changes.checks.length === 0) return journalPackr.pack(stored);
  if (changes.statusOnly === true) {
    delete stored.checks;
    stored.patches = changes.checks.map((c): StatusPatch => [c.projectId, c.uuid, c.status, c.nFlips]);
  } else if (changes.stateOnly === true) {
    delete stored.checks;
    stored.states = changes.checks.map((c): StatePatch => {
      const fields = [
        c.projectId,
        c.uuid,
        c.status,
        c.nPings,
        c.nFlips,
        c.lastPingAt,
        c.lastStartAt,
        c.lastStartRid,
        c.lastDurationMs,
      ] as const;
      return c.alert === undefined ? fields : [...fields, c.alert];
    });
    withNoticeRows(stored, changes);
    withPingRows(stored, changes);
  } else if (changes.alertOnly === true) {
    delete stored.checks;
    stored.alerts = changes.checks.map((c): AlertPatch => (c.alert === undefined ? [c.projectId, c.uuid] : [c.projectId, c.uuid, c.alert]));
    withNoticeRows(stored, changes);
  }
  return journalPackr.pack(stored);
}

const RECORD_FIELDS = 10; // a PingRecord's

/** Stores the pings of a state-only record as PingRows of their checks' patches (a ping that is not exactly what a row rebuilds stays whole). */
function withPingRows(stored: Record<string, unknown>, changes: Changes): void {
  if (changes.pings.length === 0) return;
  const checks = changes.checks;
  let patchIndex: Map<string, number> | null = null;
  stored.pings = changes.pings.map((write, i): PingWrite | PingRow => {
    // a ping's check is nearly always the patch at its own index (one ping, one check): a map finds the rest
    let patch: number | undefined = i < checks.length && checks[i].uuid === write.checkUuid ? i : undefined;
    if (patch === undefined) {
      if (patchIndex === null) {
        const index = (patchIndex = new Map<string, number>());
        checks.forEach((check, at) => index.set(check.uuid, at));
      }
      patch = patchIndex.get(write.checkUuid);
    }
    const r = write.record;
    if (patch === undefined || checks[patch].projectId !== write.projectId) return write;
    let fields = 0;
    for (const _key in r) fields++;
    if (fields !== RECORD_FIELDS) return write; // a record of another shape is stored as it is
    return [patch, write.keep, write.body, r.n, r.at, r.kind, r.scheme, r.remoteAddr, r.method, r.ua, r.rid, r.exitStatus, r.bodySize];
  });
}

/** Returns the ping a PingRow stands for, its check the row's patch's (`states`, the record's patches). */
function decodePingRow(row: PingRow, states: readonly StatePatch[]): PingWrite {
  const [patch, keep, body, n, at, kind, scheme, remoteAddr, method, ua, rid, exitStatus, bodySize] = row;
  const [projectId, checkUuid] = states[patch];
  // as engine/shard.ts makes it, in the same field order
  return { projectId, checkUuid, record: { n, at, kind, scheme, remoteAddr, method, ua, rid, exitStatus, bodySize }, body, keep };
}

/** Stores the notices' outbox entries of a record whose checks are patches as NoticeRows of their checks' patches. */
function withNoticeRows(stored: Record<string, unknown>, changes: Changes): void {
  if (changes.outbox.length === 0) return;
  const channels: OutboxEntry["channel"][] = [];
  const channelIndex = new Map<OutboxEntry["channel"], number>();
  const checks = changes.checks;
  // a notice's entries follow its check's change, in the same order: a cursor finds them, a map the rest
  let patchIndex: Map<string, number> | null = null;
  let cursor = 0,
    rows = 0;
  const outbox = changes.outbox.map((entry) => {
    const uuid = entry.flip.checkUuid;
    let patch: number | undefined =
      cursor < checks.length && checks[cursor].uuid === uuid
        ? cursor
        : cursor + 1 < checks.length && checks[cursor + 1].uuid === uuid
          ? cursor + 1
          : undefined;
    if (patch === undefined) {
      if (patchIndex === null) {
        const index = (patchIndex = new Map<string, number>());
        checks.forEach((check, i) => index.set(check.uuid, i));
      }
      patch = patchIndex.get(uuid);
    }
    if (patch !== undefined) cursor = patch;
    const row = patch === undefined ? null : noticeRowOf(entry, checks[patch], patch, channelIndex, channels);
    if (row === null) return entry;
    rows++;
    return row;
  });
  if (rows === 0) return;
  stored.outbox = outbox;
  stored.noticeChannels = channels;
}

/**
 * Returns the entry as a NoticeRow of its check's patch (`check`, the record's state of it, at
 * `patch`), or null when the entry is not exactly what decodeNoticeRow rebuilds from one (then it is
 * stored whole): a notice's entry as the shard queues it, never tried yet, showing its check's config.
 */
function noticeRowOf(
  entry: OutboxEntry,
  check: Check,
  patch: number,
  channelIndex: Map<OutboxEntry["channel"], number>,
  channels: OutboxEntry["channel"][],
): NoticeRow | null {
  const { flip, check: shown } = entry;
  if (flip.from !== "down" || flip.to !== "down" || flip.reason !== "" || !flip.notify || flip.checkUuid !== check.uuid) return null;
  if (entry.attempts !== 0 || entry.nextAttemptAt !== flip.at || entry.lastError !== null || entry.projectId !== check.projectId)
    return null;
  if ("status" in shown || !showsConfigOf(shown, check)) return null; // a whole check (a JSON channel's) is stored whole
  const reminder = entry.reminder ?? 0;
  if (entry.id !== outboxEntryId(flip.at, check.uuid, flip.n, entry.channel.id, reminder)) return null;
  let channel = channelIndex.get(entry.channel);
  if (channel === undefined) {
    channel = channels.push(entry.channel) - 1;
    channelIndex.set(entry.channel, channel);
  }
  return [
    patch,
    channel,
    flip.n,
    flip.at,
    reminder,
    shown.nPings,
    entry.lastPing,
    entry.lastPingBody,
    entry.downSinceAt,
    entry.projectName,
  ];
}

const SHOWN_FIELDS = 11; // a NoticeCheck's

/** Returns true when `shown` has exactly a NoticeCheck's fields, each but nPings (state) the check's (config, which a patch leaves as it was). */
function showsConfigOf(shown: NoticeCheck, check: Check): boolean {
  if (
    shown.uuid !== check.uuid ||
    shown.name !== check.name ||
    shown.slug !== check.slug ||
    shown.tags !== check.tags ||
    shown.desc !== check.desc ||
    shown.kind !== check.kind ||
    shown.timeoutMs !== check.timeoutMs ||
    shown.schedule !== check.schedule ||
    shown.tz !== check.tz ||
    shown.createdAt !== check.createdAt
  )
    return false;
  let fields = 0;
  for (const _key in shown) fields++;
  return fields === SHOWN_FIELDS;
}

/** Returns the entry a NoticeRow stands for, its check the row's check as the record leaves it (see noticeRowOf). */
function decodeNoticeRow(row: NoticeRow, check: Check, channels: readonly OutboxEntry["channel"][]): OutboxEntry {
  const [, channelAt, n, at, reminder, nPings, lastPing, lastPingBody, downSinceAt, projectName] = row;
  const channel = channels[channelAt];
  const flip = { checkUuid: check.uuid, n, at, from: "down", to: "down", reason: "", notify: true } as const;
  const id = outboxEntryId(at, check.uuid, n, channel.id, reminder);
  // as engine/changes.ts noticeCheckOf makes it (noticeRowOf stores no other shape)
  const shown: NoticeCheck = {
    uuid: check.uuid,
    name: check.name,
    slug: check.slug,
    tags: check.tags,
    desc: check.desc,
    kind: check.kind,
    timeoutMs: check.timeoutMs,
    schedule: check.schedule,
    tz: check.tz,
    nPings,
    createdAt: check.createdAt,
  };
  const entry: OutboxEntry = {
    id,
    projectId: check.projectId,
    check: shown,
    flip,
    channel,
    lastPing,
    lastPingBody,
    projectName,
    downSinceAt,
    attempts: 0,
    nextAttemptAt: at,
    lastError: null,
  };
  return reminder === 0 ? entry : { ...entry, reminder }; // a flip's notification has no "reminder" key
}

/**
 * Returns the bytes of a record that changes nothing and weighs about `bytes`: appended to learn whether
 * the store accepts a write as large as one that failed (a replay applies nothing from it).
 */
export function encodeProbe(bytes: number): Uint8Array {
  return journalPackr.pack({ padding: new Uint8Array(bytes) });
}

/**
 * Returns the Changes of one record; a patch becomes the whole check, applied to the check as
 * `lastState` returns it (the newest earlier record's, else the tables'); one whose check is unknown is
 * dropped. (A deletion in the same replay still wins: merged changes delete after they upsert.)
 */
export function decodeJournal(bytes: Uint8Array, lastState: (projectId: string, uuid: string) => Check | undefined): Changes {
  const record = journalPackr.unpack(bytes) as JournalRecord;
  const patched: Check[] = [];
  for (const [projectId, uuid, status, nFlips] of record.patches ?? []) {
    const base = lastState(projectId, uuid);
    if (base !== undefined) patched.push({ ...base, status, nFlips });
  }
  const byPatch: (Check | undefined)[] = []; // the checks of a state-only or alert-only record by their patches' index (a NoticeRow's)
  for (const [projectId, uuid, status, nPings, nFlips, lastPingAt, lastStartAt, lastStartRid, lastDurationMs, alert] of record.states ??
    []) {
    const base = lastState(projectId, uuid);
    if (base === undefined) {
      byPatch.push(undefined);
      continue;
    }
    const { alert: _before, ...config } = base;
    const state = { status, nPings, nFlips, lastPingAt, lastStartAt, lastStartRid, lastDurationMs };
    const check: Check = alert === undefined ? { ...config, ...state } : { ...config, ...state, alert };
    byPatch.push(check);
    patched.push(check);
  }
  for (const [projectId, uuid, alert] of record.alerts ?? []) {
    const base = lastState(projectId, uuid);
    if (base === undefined) {
      byPatch.push(undefined);
      continue;
    }
    const check: Check = alert !== undefined ? { ...base, alert } : base.alert === undefined ? base : withoutAlert(base);
    byPatch.push(check);
    patched.push(check);
  }
  const channels = record.noticeChannels;
  // a NoticeRow goes with its check's patch (whose check is unknown: the entry can't be shown, as the check is gone)
  const outbox =
    channels === undefined
      ? (record.outbox as OutboxEntry[] | undefined)
      : record.outbox?.flatMap((entry) => {
          if (!Array.isArray(entry)) return [entry as OutboxEntry];
          const row = entry as NoticeRow,
            check = byPatch[row[0]];
          return check === undefined ? [] : [decodeNoticeRow(row, check, channels)];
        });
  const changes: Changes = {
    projects: record.projects ?? [],
    channels: record.channels ?? [],
    checks: record.checks ?? [],
    deletedChecks: record.deletedChecks ?? [],
    deletedChannels: record.deletedChannels ?? [],
    flips: record.flips ?? [],
    outbox: outbox ?? [],
    pings:
      record.pings?.map((ping) => (Array.isArray(ping) ? decodePingRow(ping as PingRow, record.states ?? []) : (ping as PingWrite))) ?? [],
    ...(record.intake === undefined ? {} : { intake: record.intake }),
  };
  return patched.length === 0 ? changes : { ...changes, checks: [...changes.checks, ...patched] };
}

/** Returns the check without its alerting state. */
function withoutAlert(check: Check): Check {
  const { alert: _dropped, ...rest } = check;
  return rest;
}
