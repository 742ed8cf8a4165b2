// Each check's flips: [checkUuid, at, n] → Flip, so one check's flips in a time range are one key range.
import type { Key } from "lmdb";
import type { Flip, Millis } from "../engine/model.ts";
import { prepare, removeRange, under, valuesIn } from "./tables.ts";
import type { Put, Tables } from "./tables.ts";

const PRUNE_CHUNK = 10_000; // keys removed per write transaction, so pruning never holds the write lock for long

/** Returns the write that appends a flip. */
export function flipPut(tables: Tables, flip: Flip): Put {
  return prepare(tables.flips, [flip.checkUuid, flip.at, flip.n], flip);
}

/** Returns a check's flips with fromAt <= at < toAt (either bound optional), newest first. */
export function flipsOf(tables: Tables, checkUuid: string, range: { fromAt?: Millis; toAt?: Millis }): Flip[] {
  const all = under(checkUuid);
  // [uuid, at] sorts before every [uuid, at, n]: as the lower bound it includes `at`, as the upper it excludes it
  const newest = range.toAt === undefined ? all.end : [checkUuid, range.toAt];
  const oldest = range.fromAt === undefined ? all.start : [checkUuid, range.fromAt];
  return valuesIn<Flip>(tables.flips, { start: newest, end: oldest, reverse: true });
}

/**
 * Returns a check's flip number `n`, or null. Reads newest first and stops at it: the flip asked for is
 * nearly always the newest or the one before (a notification's flip and its predecessor), so this reads
 * one or two flips however long the check's history is. (It does not stop below `n`: flips are ordered by
 * time, and a clock set back can give a newer number an older time.)
 */
export function flipNumbered(tables: Tables, checkUuid: string, n: number): Flip | null {
  const all = under(checkUuid);
  for (const { value } of tables.flips.getRange({ start: all.end, end: all.start, reverse: true })) {
    const flip = value as Flip;
    if (flip.n === n) return flip;
  }
  return null;
}

/** Removes a check's flips; call inside a write transaction. */
export function removeFlips(tables: Tables, checkUuid: string): void {
  removeRange(tables.flips, under(checkUuid));
}

/** Removes every flip with at < beforeAt, of every check; resolves to how many were removed once committed. */
export async function pruneFlips(tables: Tables, beforeAt: Millis): Promise<number> {
  const doomed: Key[] = [];
  let next: Key = "";
  for (;;) {
    // hop from check to check: read only the old keys of each, never the whole table
    const first = firstKey(tables, next);
    if (first === undefined) break;
    const checkUuid = first[0];
    for (const key of tables.flips.getKeys({ start: [checkUuid], end: [checkUuid, beforeAt] })) doomed.push(key);
    next = under(checkUuid).end;
  }
  let removed = 0;
  for (let i = 0; i < doomed.length; i += PRUNE_CHUNK) {
    const chunk = doomed.slice(i, i + PRUNE_CHUNK);
    // counted inside the transaction: another thread pruning at the same time doesn't double the count
    removed += await tables.env.childTransaction(() => chunk.filter((key) => tables.flips.removeSync(key)).length);
  }
  return removed;
}

function firstKey(tables: Tables, start: Key): [string, ...unknown[]] | undefined {
  for (const key of tables.flips.getKeys({ start, limit: 1 })) return key as [string, ...unknown[]];
  return undefined;
}
