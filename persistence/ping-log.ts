// Each check's ping log: [checkUuid, n] → the PingRecord, or [PingRecord, body] for a ping with a body:
// one entry, so that appending a ping touches the log's last page only (stores of schema 1 kept bodies
// under the same key in a table of their own, still read when an entry has none). n counts up by one per
// ping. A log is trimmed in bulk: it keeps every ping above its floor (floorOf), a multiple of its slack
// at or below n - keep, so it holds the newest `keep` and fewer than `slack` older ones. A trim then
// comes once per `slack` pings of a check, not with every checkpoint: each one rewrites the head pages of
// the log, as many bytes as the appends it follows. Readers show the newest `keep` only (the host reads a
// page of at most keep, and a body above nPings - keep).
import type { Key } from "lmdb";
import type { PingWrite } from "../engine/changes.ts";
import type { PingRecord } from "../engine/model.ts";
import { prepare, removeRange, under, valuesIn } from "./tables.ts";
import type { Put, Table, Tables } from "./tables.ts";

/** Returns how many pings a log of `keep` may hold beyond it before they are trimmed (all of them at once). */
export function slackOf(keep: number): number {
  return Math.max(1, Math.ceil(keep / SLACK_PER_KEEP));
}
// a quarter of keep: a log (and its disk space) grows by at most that; measured at 1,000 checks of 100
// pings with 12 pings per check a checkpoint, keep / 4 and keep / 2 wrote alike
const SLACK_PER_KEEP = 4;

/** Returns the floor of a log whose newest ping is `newestN`: it holds the pings above it (0: all of them). */
export function floorOf(newestN: number, keep: number): number {
  const slack = slackOf(keep);
  return Math.max(0, Math.floor((newestN - Math.max(0, keep)) / slack) * slack);
}

/** A ping log's entry: the record, with its body beside it when it has one. */
type Entry = PingRecord | readonly [record: PingRecord, body: Uint8Array];

/** Returns the write that appends one ping and its body (if any). */
export function pingPut(tables: Tables, write: PingWrite): Put {
  const entry: Entry = write.body === null || write.body.length === 0 ? write.record : [write.record, write.body];
  return prepare(tables.pings, [write.checkUuid, write.record.n], entry);
}

/** Returns the record of an entry. */
function recordOf(entry: Entry): PingRecord {
  return Array.isArray(entry) ? (entry as readonly [PingRecord, Uint8Array])[0] : (entry as PingRecord);
}

/** What to trim of one check after appending: the newest n written, how many were appended, and keep. */
export type Trim = { readonly newestN: number; readonly appended: number; readonly keep: number };

/** Returns, per check, what to trim after `writes` are appended (the keep of the newest write wins). */
export function trimsOf(writes: readonly PingWrite[]): Map<string, Trim> {
  const trims = new Map<string, Trim>();
  for (const write of writes) {
    const seen = trims.get(write.checkUuid);
    const newest = seen === undefined || write.record.n >= seen.newestN;
    trims.set(write.checkUuid, {
      newestN: newest ? write.record.n : seen.newestN,
      keep: newest ? write.keep : seen.keep,
      appended: (seen?.appended ?? 0) + 1,
    });
  }
  return trims;
}

/** Returns true when `write` is above the floor its check's log has once `trim` is applied (a ping below is never written). */
export function keptAfter(write: PingWrite, trim: Trim | undefined): boolean {
  return trim === undefined || write.record.n > floorOf(trim.newestN, trim.keep);
}

/**
 * Removes what falls below a log's floor once `trim`'s pings are appended; call inside a write transaction
 * (`remove` = the tables' removeSync), or in a batch of asynchronous writes (their remove: the reads here
 * see the tables before the batch, which only appends to this log above what they look at).
 */
export function trimPings(tables: Tables, checkUuid: string, trim: Trim, remove: (table: Table, key: Key) => unknown): void {
  // A log holds one unbroken run of n, trimmed from the bottom to its floor, so the appends move the floor
  // from floorOf(newest before them) to floorOf(newest): point removes of the keys between, no cursor.
  const before = floorOf(trim.newestN - trim.appended, trim.keep),
    after = floorOf(trim.newestN, trim.keep);
  for (let n = Math.max(1, before + 1); n <= after; n++) {
    remove(tables.pings, [checkUuid, n]);
    remove(tables.bodies, [checkUuid, n]);
  }
  // anything still at or below the old floor: keep was lowered, or the log was longer (an older build's
  // trims, or none): drop the rest of it in one range
  if (after > before && before >= 1 && tables.pings.doesExist([checkUuid, before])) {
    const older = { start: [checkUuid], end: [checkUuid, before + 1] };
    for (const table of [tables.pings, tables.bodies]) for (const key of Array.from(table.getKeys(older))) remove(table, key);
  }
}

/** Removes a check's whole ping log and its bodies; call inside a write transaction. */
export function removePings(tables: Tables, checkUuid: string): void {
  removeRange(tables.pings, under(checkUuid));
  removeRange(tables.bodies, under(checkUuid));
}

/** Returns up to `limit` of a check's newest pings, newest first. */
export function pingPage(tables: Tables, checkUuid: string, limit: number): PingRecord[] {
  const { start, end } = under(checkUuid);
  return valuesIn<Entry>(tables.pings, { start: end, end: start, reverse: true, limit }).map(recordOf);
}

/** Returns a check's ping n, or undefined when it was never logged or has been trimmed. */
export function pingNumbered(tables: Tables, checkUuid: string, n: number): PingRecord | undefined {
  const entry = n > 0 ? (tables.pings.get([checkUuid, n]) as Entry | undefined) : undefined;
  return entry === undefined ? undefined : recordOf(entry);
}

/** Returns the body of ping n, or null when it had none or has been trimmed. */
export function pingBody(tables: Tables, checkUuid: string, n: number): Uint8Array | null {
  const entry = tables.pings.get([checkUuid, n]) as Entry | undefined;
  if (entry === undefined) return null;
  if (Array.isArray(entry)) {
    const body = (entry as readonly [PingRecord, Uint8Array])[1]; // a copy (the tables' decoder copies embedded bytes)
    return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  }
  const bytes = (entry as PingRecord).bodySize === 0 ? undefined : tables.bodies.getBinary([checkUuid, n]); // schema 1's table
  return bytes === undefined ? null : new Uint8Array(bytes);
}
