// The write-ahead journal. A commit appends its whole Changes as ONE record ([writer, seq] → Changes),
// so an acknowledged ping costs one small LMDB write. A checkpoint later applies many journaled
// commits to the tables in one transaction (each check's row written once, pings that the same
// checkpoint would trim never written) and removes those journal records in that same transaction.
// On open, whatever the journal still holds (a crash, a kill -9) is applied before anything is read.
import type { Key } from "lmdb";
import { Packr } from "msgpackr";
import type { Changes } from "../engine/changes.ts";
import type { Check } from "../engine/model.ts";
import { flipPut, removeFlips } from "./flip-log.ts";
import { outboxPut } from "./outbox.ts";
import { pingPuts, removePings, trimPings, trimsOf } from "./ping-log.ts";
import { removeCheck, snapshotPuts } from "./snapshots.ts";
import { ALL } from "./tables.ts";
import type { Put, Tables } from "./tables.ts";

// The journal's own encoder: msgpack with record definitions inside each record (self-describing, so
// nothing shared to keep in sync), from our msgpackr rather than the copy inside lmdb. Measured: once
// lmdb's copy has encoded the tables' shared-structure records, it packs a journal record 4x slower
// (about 32 us a ping instead of 8), the largest single cost of an acknowledged ping.
const journalPackr = new Packr({ copyBuffers: true }); // bodies must not point into LMDB's pages

/** Returns the bytes of one journal record. */
export function encodeJournal(changes: Changes): Uint8Array {
  return journalPackr.pack(changes);
}

/** Returns the Changes of one journal record. */
export function decodeJournal(bytes: Uint8Array): Changes {
  return journalPackr.unpack(bytes) as Changes;
}

/** Returns one Changes equal in effect to applying `list` in order (each check keeps its last state). */
export function mergeChanges(list: readonly Changes[]): Changes {
  if (list.length === 1) return list[0];
  const checks = new Map<string, Check>();
  const merged: Changes = { projects: [], channels: [], checks: [], deletedChecks: [], pings: [], flips: [], outbox: [] };
  const append = <T>(to: T[], from: readonly T[]) => { for (const item of from) to.push(item); }; // no spread: lists may be huge
  for (const changes of list) {
    append(merged.projects, changes.projects);
    append(merged.channels, changes.channels);
    for (const check of changes.checks) {
      checks.delete(check.uuid); // re-insert: Map order follows the last write
      checks.set(check.uuid, check);
    }
    append(merged.deletedChecks, changes.deletedChecks);
    append(merged.pings, changes.pings);
    append(merged.flips, changes.flips);
    append(merged.outbox, changes.outbox);
  }
  append(merged.checks, [...checks.values()]);
  return merged;
}

/**
 * Writes `changes` to the tables; call inside a write transaction. Upserts first, then ping appends
 * (skipping pings the trim below would remove at once), trims, and deleted checks last.
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
}

/** Applies and removes every journal record (any writer), oldest first; call inside a write transaction. */
export function replayJournal(tables: Tables): number {
  const records: { key: Key; changes: Changes }[] = [];
  for (const { key, value } of tables.journal.getRange(ALL)) records.push({ key, changes: decodeJournal(value as Uint8Array) });
  if (records.length === 0) return 0;
  applyChanges(tables, mergeChanges(records.map((r) => r.changes)));
  for (const { key } of records) tables.journal.removeSync(key);
  return records.length;
}
