// The write-ahead journal. A commit appends its whole Changes as ONE record ([writer, seq] → Changes)
// in the journal's own env, so an acknowledged ping costs one small write that never waits for the
// tables; checks that deadlines flipped are recorded as status patches, not whole. A checkpoint later
// applies many journaled commits to the tables, merged (each check's row written once, pings that the
// same checkpoint would trim never written) and split into short transactions, the last of which marks
// the writer's last seq applied; the journal records go once the tables are on disk. On open, whatever
// the journal still holds past those marks (a crash, a kill -9) is applied before anything is read.
import type { Key } from "lmdb";
import { Packr } from "msgpackr";
import type { Changes } from "../engine/changes.ts";
import type { Check } from "../engine/model.ts";
import { flipPut, removeFlips } from "./flip-log.ts";
import { outboxPut, removeChannelEntries } from "./outbox.ts";
import { pingPuts, removePings, trimPings, trimsOf } from "./ping-log.ts";
import { removeChannel, removeCheck, snapshotPuts } from "./snapshots.ts";
import { ALL, under } from "./tables.ts";
import type { Put, Tables } from "./tables.ts";

// The journal's own encoder: msgpack with record definitions inside each record (self-describing, so
// nothing shared to keep in sync), from our msgpackr rather than the copy inside lmdb. Measured: once
// lmdb's copy has encoded the tables' shared-structure records, it packs a journal record 4x slower
// (about 32 us a ping instead of 8), the largest single cost of an acknowledged ping.
const journalPackr = new Packr({ copyBuffers: true }); // bodies must not point into LMDB's pages

/**
 * A check's change that is only its status and flip count ([projectId, uuid, status, nFlips]), as a
 * deadline's flip makes it. Journaled instead of the whole check: at the top of the hour a shard
 * journals tens of thousands of them at once, and a whole check costs 2-4 us to encode (measured).
 */
type StatusPatch = readonly [projectId: string, uuid: string, status: Check["status"], nFlips: number];

/** One journal record as stored: Changes, with status-only check changes as patches. */
type JournalRecord = Changes & { readonly patches?: readonly StatusPatch[] };

/**
 * Returns the bytes of one journal record. Checks of `statusOnly` changes (deadline flips) are stored as
 * patches, which a replay applies to the check's last committed state.
 */
export function encodeJournal(changes: Changes): Uint8Array {
  const { statusOnly, ...stored } = changes;
  if (statusOnly !== true || changes.checks.length === 0) return journalPackr.pack(stored);
  const patches = changes.checks.map((c): StatusPatch => [c.projectId, c.uuid, c.status, c.nFlips]);
  return journalPackr.pack({ ...stored, checks: [], patches } satisfies JournalRecord);
}

/**
 * Returns the bytes of a record that changes nothing and weighs about `bytes`: written and removed again
 * to learn whether the store accepts a write as large as one that failed (a replay applies nothing).
 */
export function encodeProbe(bytes: number): Uint8Array {
  const nothing: Changes = { projects: [], channels: [], checks: [], deletedChecks: [], pings: [], flips: [], outbox: [] };
  return journalPackr.pack({ ...nothing, padding: new Uint8Array(bytes) });
}

/**
 * Returns the Changes of one journal record; a patch becomes the whole check, applied to the check as
 * `lastState` returns it (the newest earlier record's, else the tables'); one whose check is unknown is
 * dropped. (A deletion in the same replay still wins: merged changes delete after they upsert.)
 */
export function decodeJournal(bytes: Uint8Array, lastState: (projectId: string, uuid: string) => Check | undefined): Changes {
  const { patches, ...changes } = journalPackr.unpack(bytes) as JournalRecord;
  if (patches === undefined || patches.length === 0) return changes;
  const patched: Check[] = [];
  for (const [projectId, uuid, status, nFlips] of patches) {
    const base = lastState(projectId, uuid);
    if (base !== undefined) patched.push({ ...base, status, nFlips });
  }
  return { ...changes, checks: [...changes.checks, ...patched] };
}

/** Returns one Changes equal in effect to applying `list` in order (each check keeps its last state). */
export function mergeChanges(list: readonly Changes[]): Changes {
  if (list.length === 1) return list[0];
  const checks = new Map<string, Check>();
  const merged = { projects: [], channels: [], checks: [], deletedChecks: [], deletedChannels: [], pings: [], flips: [], outbox: [] } satisfies Changes;
  const append = <T>(to: T[], from: readonly T[]) => { for (const item of from) to.push(item); }; // no spread: lists may be huge
  for (const changes of list) {
    append(merged.projects, changes.projects);
    append(merged.channels, changes.channels);
    for (const check of changes.checks) {
      checks.delete(check.uuid); // re-insert: Map order follows the last write
      checks.set(check.uuid, check);
    }
    append(merged.deletedChecks, changes.deletedChecks);
    append(merged.deletedChannels, changes.deletedChannels ?? []);
    append(merged.pings, changes.pings);
    append(merged.flips, changes.flips);
    append(merged.outbox, changes.outbox);
  }
  append(merged.checks, [...checks.values()]);
  return merged;
}

/**
 * Writes `changes` to the tables; call inside a write transaction. Upserts first, then ping appends
 * (skipping pings the trim below would remove at once), trims, and deleted checks and channels last
 * (a removed channel's outbox entries go with it, those upserted here included).
 */
export function applyChanges(tables: Tables, changes: Changes): void {
  const trims = trimsOf(changes.pings);
  const puts: Put[] = [
    ...snapshotPuts(tables, changes),
    ...changes.pings.flatMap((write) => {
      const trim = trims.get(write.checkUuid);
      const kept = trim === undefined || write.record.n > trim.newestN - Math.max(0, trim.keep);
      return kept ? pingPuts(tables, write) : [];
    }),
    ...changes.flips.map((flip) => flipPut(tables, flip)),
    ...changes.outbox.map((entry) => outboxPut(tables, entry)),
  ];
  for (const put of puts) put.table.putSync(put.key, put.value);
  for (const [checkUuid, trim] of trims) trimPings(tables, checkUuid, trim);
  for (const { projectId, uuid } of changes.deletedChecks) {
    removeCheck(tables, projectId, uuid);
    removePings(tables, uuid);
    removeFlips(tables, uuid);
  }
  for (const { projectId, id } of changes.deletedChannels ?? []) {
    removeChannel(tables, projectId, id);
    removeChannelEntries(tables, projectId, id);
  }
}

/**
 * Splits `changes` into pieces with at most `size` checks and pings each; applying them one after another
 * has the effect of applying `changes` (a check's pings keep their order, and each piece trims what it
 * appends). The last piece holds everything else, deletions included.
 */
export function splitChanges(changes: Changes, size: number): Changes[] {
  const pieces: Changes[] = [];
  for (let i = 0; i < Math.max(changes.checks.length, changes.pings.length); i += size) {
    pieces.push({
      projects: [], channels: [], deletedChecks: [], deletedChannels: [], flips: [], outbox: [],
      checks: changes.checks.slice(i, i + size), pings: changes.pings.slice(i, i + size),
    });
  }
  pieces.push({ ...changes, checks: [], pings: [] });
  return pieces;
}

/** Returns the seq of `writer`'s last commit already in the tables (0 = none); read it inside the write transaction. */
export function checkpointedSeq(tables: Tables, writer: string): number {
  const seq = tables.meta.get(["checkpointed", writer]);
  return typeof seq === "number" ? seq : 0;
}

/** Records that `writer`'s commits up to `seq` are in the tables; call inside the write transaction that applied them. */
export function markCheckpointed(tables: Tables, writer: string, seq: number): void {
  if (seq > checkpointedSeq(tables, writer)) tables.meta.putSync(["checkpointed", writer], seq);
}

/**
 * Applies every journal record (any writer) that the tables don't hold yet, oldest first. Safe while
 * other threads write: the tables' marks decide what is applied. Returns the keys of every record read,
 * for the caller to drop from the journal once the tables are on disk (until then a crash replays them).
 */
export async function replayJournal(tables: Tables): Promise<Key[]> {
  const records: { writer: string; seq: number; key: Key; bytes: Uint8Array }[] = [];
  for (const { key, value } of tables.journal.getRange(ALL)) {
    const [writer, seq] = key as [string, number];
    records.push({ writer, seq, key, bytes: value as Uint8Array });
  }
  if (records.length === 0) return [];
  // asynchronous like every write here: a synchronous transaction would wait for the write lock, which
  // a checkpoint of another store in this thread may hold while it waits for this thread (a deadlock)
  await tables.env.childTransaction(() => {
    const fresh = records.filter((r) => r.seq > checkpointedSeq(tables, r.writer));
    // a patch applies to its check's newest state: an earlier fresh record's, else the tables'
    const latest = new Map<string, Check>();
    const lastState = (projectId: string, uuid: string) => latest.get(uuid) ?? tables.checks.get([projectId, uuid]) as Check | undefined;
    const decoded = fresh.map((r) => {
      const changes = decodeJournal(r.bytes, lastState);
      for (const check of changes.checks) latest.set(check.uuid, check);
      return changes;
    });
    applyChanges(tables, mergeChanges(decoded));
    for (const r of fresh) markCheckpointed(tables, r.writer, r.seq);
  });
  // The marks stay: a live writer (another shard) still checkpoints these records and must skip them.
  // Each writer drops its own mark when it closes; a crashed writer's mark (a few bytes) remains.
  return records.map((r) => r.key);
}

/** Removes `writer`'s mark once the journal holds nothing of it; the writer calls this as it closes. */
export async function dropMark(tables: Tables, writer: string): Promise<void> {
  for (const _ of tables.journal.getKeys({ ...under(writer), limit: 1 })) return;
  await tables.meta.remove(["checkpointed", writer]);
}
