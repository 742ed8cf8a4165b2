// The named LMDB databases of one env and the helpers every other persistence file shares.
// Keys are ordered arrays: [head, ...rest] sorts by head first, so one head's entries are one range.
import type { Database, Key, RootDatabase } from "lmdb";
import { asBinary } from "lmdb";

export type Table = Database<unknown, Key>;

/**
 * The env and its named dbs; the comment on each gives key → value. The command log is beside it, in
 * plain files (file-log.ts), so that an acknowledged ping never waits behind a checkpoint.
 */
export type Tables = {
  readonly env: RootDatabase<unknown, Key>;
  readonly projects: Table; // [projectId] → Project
  readonly channels: Table; // [projectId, channelId] → Channel
  readonly checks: Table; // [projectId, uuid] → Check (the live snapshot)
  readonly pings: Table; // [checkUuid, n] → PingRecord, or [PingRecord, body bytes] for a ping with a body
  readonly bodies: Table; // [checkUuid, n] → raw body bytes (schema 1: read, trimmed and removed, no longer written)
  readonly flips: Table; // [checkUuid, at, n] → Flip
  readonly outbox: Table; // [id] → OutboxEntry
  readonly sent: Table | null; // [checkUuid, sentAt, id] → SentNotice (sent-log.ts); null: a read-only open of a store from before it
  readonly meta: Table; // "schema" → number (open.ts SCHEMA_VERSION); ["checkpointed", writerId] → the writer's last seq in the tables
};

/** One write prepared outside the transaction: its value is already encoded. */
export type Put = { readonly table: Table; readonly key: Key; readonly value: ReturnType<typeof asBinary> };

export type KeyRange = { readonly start: Key; readonly end?: Key };

/** Every key of a table whose keys start with a string (the shared-structures entry is a symbol and sorts before ""). */
export const ALL: KeyRange = { start: "" };

/** Returns the range of keys whose first element is `head` (a string without NUL characters). */
export function under(head: string): Required<KeyRange> {
  // longer keys continue `head` with a 0 byte; "\u0001" sorts after it and before any other character
  return { start: [head], end: [head + "\u0001"] };
}

type Encoder = { encode(value: unknown): Uint8Array };

/** Returns a write of `value` under `key`, encoded now with the table's encoder. */
export function prepare(table: Table, key: Key, value: unknown): Put {
  // encoding outside the write transaction keeps the write lock short, and any new shared structure
  // is committed on its own before a record that uses it
  const encoder = (table as unknown as { encoder: Encoder }).encoder;
  return { table, key, value: asBinary(encoder.encode(value)) };
}

/** Returns a write of raw bytes under `key` (for a binary table). */
export function prepareBytes(table: Table, key: Key, bytes: Uint8Array): Put {
  return { table, key, value: asBinary(bytes) };
}

/** Returns the values of a key range, in key order. */
export function valuesIn<T>(table: Table, range: KeyRange & { reverse?: boolean; limit?: number }): T[] {
  const values: T[] = [];
  for (const { value } of table.getRange(range)) values.push(value as T);
  return values;
}

/** Removes every key of a range; call inside a write transaction. Returns how many were removed. */
export function removeRange(table: Table, range: KeyRange): number {
  const keys = Array.from(table.getKeys(range)); // collect first: don't move a cursor over keys being deleted
  for (const key of keys) table.removeSync(key);
  return keys.length;
}
