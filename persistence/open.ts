// Opening the store's LMDB env (the tables in dir) with its named dbs, checking what is there first
// (LMDB crashes the process on a data file that isn't one), and replaying what a crash left in the
// command logs (dir/log, and the journal env in dir/journal of stores written before the logs) before
// anything reads the tables.
import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { open } from "lmdb";
import type { Key } from "lmdb";
import { readSegments, segmentFiles, spareFiles } from "./file-log.ts";
import { checkpointedSeq, replayRecords } from "./journal.ts";
import type { WrittenRecord } from "./journal.ts";
import { isRunning, ownIdentity } from "./process-identity.ts";
import { ALL } from "./tables.ts";
import type { Table, Tables } from "./tables.ts";

/** "flush": a write resolves once it is on disk (survives power loss); "commit": once committed (survives a crash of the process). */
export const DURABILITIES = ["flush", "commit"] as const;
export type Durability = (typeof DURABILITIES)[number];

export type StoreOptions = { readonly durability: Durability; readonly readOnly?: boolean };

/**
 * The schema this build writes. 2: a ping's body is in its ping log entry. A store of schema 1 (bodies in
 * a table of their own) opens as 2: its entries are read as they are, new ones are written the new way,
 * so an older build, which would not find the new bodies, refuses it from then on.
 */
export const SCHEMA_VERSION = 2;
/** The schemas this build reads. */
export const READABLE_SCHEMAS: readonly unknown[] = [1, 2];
const STRUCTURES = Symbol.for("structures"); // msgpackr shared structures live under this key in each table
const LMDB_MAGIC = 0xbeefc0de; // in the first meta page of every LMDB data file
const TABLE_OPTIONS = {
  projects: { sharedStructuresKey: STRUCTURES },
  channels: { sharedStructuresKey: STRUCTURES },
  checks: { sharedStructuresKey: STRUCTURES },
  pings: { sharedStructuresKey: STRUCTURES },
  bodies: { encoding: "binary" },
  flips: { sharedStructuresKey: STRUCTURES },
  outbox: { sharedStructuresKey: STRUCTURES },
  sent: { sharedStructuresKey: STRUCTURES },
  meta: {},
} as const;
/** The command logs' directory under a store's dir (persistence/file-log.ts). */
export const LOG_DIR = "log";
/** Where stores written before the command logs kept their journal (an LMDB env): replayed, then removed. */
const LEGACY_JOURNAL_DIR = "journal";

/** What a replay read and the store may remove once the tables are on disk: logs of crashed writers. */
export type Leftovers = { readonly logFiles: readonly string[]; readonly legacyJournal: boolean };

/**
 * Returns `write`, whose failure no longer leaves an unhandled rejection behind: a failed LMDB
 * transaction rejects each of its writes with an error whose `commitError` is one more promise, rejected
 * with the cause (ENOSPC, EIO) and awaited by nobody, which would end the thread.
 */
export function observed<T>(write: Promise<T>): Promise<T> {
  return write.catch((error: unknown) => {
    const cause = (error as { commitError?: unknown } | null)?.commitError;
    if (cause instanceof Promise) cause.catch(() => {});
    throw error;
  });
}

// Every write of the store is asynchronous: a synchronous one waits for the env's write lock, which
// lmdb's write thread may hold while it waits for this thread to run a checkpoint's callback.
export async function openTables(dir: string, options: StoreOptions): Promise<{ tables: Tables; leftovers: Leftovers }> {
  const readOnly = options.readOnly ?? false;
  if (readOnly && !existsSync(join(dir, "data.mdb"))) throw new Error("no store there (data.mdb is missing)");
  if (!readOnly) makeDir(join(dir, LOG_DIR));
  const env = openEnv(dir, options);
  try {
    const named = (name: keyof typeof TABLE_OPTIONS): Table => {
      const db = env.openDB<unknown, Key>(name, TABLE_OPTIONS[name]) as Table | undefined;
      if (db === undefined) throw new Error(`table ${name} is missing (not an hcd store?)`);
      return db;
    };
    const tables: Tables = {
      env,
      projects: named("projects"),
      channels: named("channels"),
      checks: named("checks"),
      pings: named("pings"),
      bodies: named("bodies"),
      flips: named("flips"),
      outbox: named("outbox"),
      meta: named("meta"),
      // newer than the others: a store written before it has it only once opened for writing
      sent: env.openDB<unknown, Key>("sent", TABLE_OPTIONS.sent) ?? null,
    };
    const schema = tables.meta.get("schema");
    const fresh = schema === undefined && !readOnly;
    if (!fresh && !READABLE_SCHEMAS.includes(schema))
      throw new Error(`schema version ${String(schema)}, this build reads ${READABLE_SCHEMAS.join(" and ")}`);
    if (!readOnly && schema !== SCHEMA_VERSION) await observed(tables.meta.put("schema", SCHEMA_VERSION)); // new, or upgraded from 1
    if (readOnly) return { tables, leftovers: { logFiles: [], legacyJournal: false } };
    // commits a crash left in the logs reach the tables before anything reads them
    const legacy = await readLegacyJournal(join(dir, LEGACY_JOURNAL_DIR));
    const { records, crashed } = readLogs(join(dir, LOG_DIR), (writer) => checkpointedSeq(tables, writer));
    await observed(replayRecords(tables, [...legacy, ...records]));
    return { tables, leftovers: { logFiles: crashed, legacyJournal: existsSync(join(dir, LEGACY_JOURNAL_DIR, "data.mdb")) } };
  } catch (error) {
    void env.close();
    throw error;
  }
}

/**
 * Returns the records of every writer's log in `logDir` and the files of writers whose process is gone
 * (a crash left them; once replayed and in the tables they may go); a record `checkpointed` says the
 * tables hold is no loss if it does not read. A running writer's file (a shard of
 * this process, or of another process on the same dir) is replayed too, and stays.
 */
function readLogs(logDir: string, checkpointed: (writer: string) => number): { records: WrittenRecord[]; crashed: string[] } {
  const own = ownIdentity();
  const byWriter = new Map<string, ReturnType<typeof segmentFiles>>();
  for (const file of segmentFiles(logDir)) byWriter.set(file.writer, [...(byWriter.get(file.writer) ?? []), file]);
  const records: WrittenRecord[] = [];
  const crashed: string[] = [];
  for (const [writer, files] of byWriter) {
    for (const record of readSegments(logDir, files, checkpointed(writer)))
      records.push({ writer, seq: record.position, bytes: record.bytes });
    for (const file of files) if (file.identity !== own && !isRunning(file.identity)) crashed.push(join(logDir, file.name));
  }
  // a crashed writer's spare holds no record of its own (file-log.ts): it goes with its logs
  for (const spare of spareFiles(logDir)) if (spare.identity !== own && !isRunning(spare.identity)) crashed.push(join(logDir, spare.name));
  return { records, crashed };
}

/** Returns the records of a journal env left by a store written before the command logs (none when there is none). */
async function readLegacyJournal(journalDir: string): Promise<WrittenRecord[]> {
  if (!existsSync(join(journalDir, "data.mdb"))) return [];
  const env = openEnv(journalDir, { durability: "commit" });
  try {
    const journal = env.openDB<unknown, Key>("journal", { encoding: "binary" }) as Table | undefined;
    const records: WrittenRecord[] = [];
    for (const { key, value } of journal?.getRange(ALL) ?? []) {
      const [writer, seq] = key as [string, number];
      records.push({ writer, seq, bytes: value as Uint8Array });
    }
    return records;
  } finally {
    await env.close();
  }
}

/** Opens one LMDB env in `dir` after checking that its data file is one. */
function openEnv(dir: string, options: StoreOptions): Tables["env"] {
  assertLmdbFile(join(dir, "data.mdb")); // LMDB crashes the process on a data file that isn't one: refuse it first
  // lmdb's overlapped syncs: a checkpoint's transactions don't each wait for the disk
  return open<unknown, Key>(dir, { maxDbs: 16, noSubdir: false, readOnly: options.readOnly ?? false });
}

/** Creates `dir` and its missing parents (mkdirSync's recursive mode spins forever under /proc on Node 20). */
export function makeDir(dir: string): void {
  if (existsSync(dir)) return;
  if (dirname(dir) !== dir) makeDir(dirname(dir));
  try {
    mkdirSync(dir);
  } catch (error) {
    if (!existsSync(dir)) throw error; // another thread may have just made it
  }
}

/** Throws unless `file` is absent, empty, or starts with an LMDB meta page. */
function assertLmdbFile(file: string): void {
  if (!existsSync(file) || statSync(file).size === 0) return;
  const header = Buffer.alloc(28);
  const fd = openSync(file, "r");
  try {
    readSync(fd, header, 0, header.length, 0);
  } finally {
    closeSync(fd);
  }
  if (header.readUInt32LE(24) !== LMDB_MAGIC) throw new Error(`${file} is not an LMDB data file (corrupt?)`);
}
