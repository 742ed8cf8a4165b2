// Each check's ping log: [checkUuid, n] → PingRecord, and the body under the same key in its own table.
// n counts up by one per ping, so the newest `keep` entries are the keys above n - keep.
import type { PingWrite } from "../engine/changes.ts";
import type { PingRecord } from "../engine/model.ts";
import { prepare, prepareBytes, removeRange, under, valuesIn } from "./tables.ts";
import type { Put, Tables } from "./tables.ts";

/** Returns the writes that append one ping and its body (if any). */
export function pingPuts(tables: Tables, write: PingWrite): Put[] {
  const key = [write.checkUuid, write.record.n];
  const record = prepare(tables.pings, key, write.record);
  return write.body === null || write.body.length === 0 ? [record] : [record, prepareBytes(tables.bodies, key, write.body)];
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
      newestN: newest ? write.record.n : seen.newestN, keep: newest ? write.keep : seen.keep, appended: (seen?.appended ?? 0) + 1,
    });
  }
  return trims;
}

/** Removes every ping and body older than the newest `keep`; call inside a write transaction. */
export function trimPings(tables: Tables, checkUuid: string, trim: Trim): void {
  // A log holds one unbroken run of n, trimmed from the bottom, so appending k pings pushes out exactly
  // the k keys below the newest `keep`: point removes, no cursor (a range scan per ping halves throughput).
  // n starts at 1: a log shorter than `keep` has nothing to drop. A remove of a missing key still costs a
  // B-tree search (measured at 10,000 young checks: 284 of the checkpoint's 1,264 ms of write calls).
  const oldestKept = trim.newestN - Math.max(0, trim.keep) + 1;
  const firstDropped = Math.max(1, oldestKept - trim.appended);
  for (let n = firstDropped; n < oldestKept; n++) {
    tables.pings.removeSync([checkUuid, n]);
    tables.bodies.removeSync([checkUuid, n]);
  }
  // anything still below means keep was lowered (or the log was longer): drop the rest in one range
  if (firstDropped > 1 && tables.pings.doesExist([checkUuid, firstDropped - 1])) {
    const older = { start: [checkUuid], end: [checkUuid, oldestKept] };
    removeRange(tables.pings, older);
    removeRange(tables.bodies, older);
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
  return valuesIn<PingRecord>(tables.pings, { start: end, end: start, reverse: true, limit });
}

/** Returns a check's ping n, or undefined when it was never logged or has been trimmed. */
export function pingNumbered(tables: Tables, checkUuid: string, n: number): PingRecord | undefined {
  return n > 0 ? tables.pings.get([checkUuid, n]) as PingRecord | undefined : undefined;
}

/** Returns the body of ping n, or null when it had none or has been trimmed. */
export function pingBody(tables: Tables, checkUuid: string, n: number): Uint8Array | null {
  const bytes = tables.bodies.getBinary([checkUuid, n]);
  return bytes === undefined ? null : new Uint8Array(bytes);
}
