// Opening the store's two LMDB envs (the tables in dir, the journal in dir/journal) with their named dbs,
// checking what is there first (LMDB crashes the process on a data file that isn't one), and replaying
// what a crash left in the journal before anything reads the tables.
import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { open } from "lmdb";
import type { Key } from "lmdb";
import { replayJournal } from "./journal.ts";
import type { Table, Tables } from "./tables.ts";

/** "flush": a write resolves once it is on disk (survives power loss); "commit": once committed (survives a crash of the process). */
export const DURABILITIES = ["flush", "commit"] as const;
export type Durability = (typeof DURABILITIES)[number];

export type StoreOptions = { readonly durability: Durability; readonly readOnly?: boolean };

export const SCHEMA_VERSION = 1;
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
  meta: {},
} as const;
// encoded by journal.ts, without shared structures: a journal record is written once and read only by a
// replay, and keeping structures in sync cost about 4 ms per commit (measured), a ping's whole budget
const JOURNAL_OPTIONS = { encoding: "binary" } as const;


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
export async function openTables(dir: string, options: StoreOptions): Promise<{ tables: Tables; replayed: Key[] }> {
  const readOnly = options.readOnly ?? false;
  const journalDir = join(dir, "journal");
  if (readOnly && !existsSync(join(dir, "data.mdb"))) throw new Error("no store there (data.mdb is missing)");
  if (readOnly && !existsSync(join(journalDir, "data.mdb"))) throw new Error("no store there (journal/data.mdb is missing)");
  if (!readOnly) makeDir(journalDir);
  const env = openEnv(dir, options, false);
  let journalEnv: Tables["env"] | null = null;
  try {
    journalEnv = openEnv(journalDir, options, true);
    const opened = journalEnv;
    const table = (root: Tables["env"], name: string, tableOptions: object): Table => {
      const db = root.openDB<unknown, Key>(name, tableOptions) as Table | undefined;
      if (db === undefined) throw new Error(`table ${name} is missing (not an hcd store?)`);
      return db;
    };
    const named = (name: keyof typeof TABLE_OPTIONS) => table(env, name, TABLE_OPTIONS[name]);
    const tables: Tables = {
      env, journalEnv: opened, projects: named("projects"), channels: named("channels"), checks: named("checks"),
      pings: named("pings"), bodies: named("bodies"), flips: named("flips"), outbox: named("outbox"), meta: named("meta"),
      journal: table(opened, "journal", JOURNAL_OPTIONS),
    };
    const schema = tables.meta.get("schema");
    if (schema === undefined && !readOnly) await observed(tables.meta.put("schema", SCHEMA_VERSION));
    else if (schema !== SCHEMA_VERSION) throw new Error(`schema version ${String(schema)}, this build reads ${SCHEMA_VERSION}`);
    // commits a crash left in the journal reach the tables before anything reads them
    return { tables, replayed: readOnly ? [] : await observed(replayJournal(tables)) };
  } catch (error) {
    void env.close();
    void journalEnv?.close();
    throw error;
  }
}

/** Opens one LMDB env in `dir` after checking that its data file is one. */
function openEnv(dir: string, options: StoreOptions, journal: boolean): Tables["env"] {
  assertLmdbFile(join(dir, "data.mdb")); // LMDB crashes the process on a data file that isn't one: refuse it first
  return open<unknown, Key>(dir, {
    maxDbs: 16, noSubdir: false, readOnly: options.readOnly ?? false,
    // The journal with "flush": sync inside the commit, so a write resolves once on disk in one step
    // (measured: about a quarter more pings/s than committing, then syncing in a second hand-off). The
    // tables keep lmdb's overlapped syncs: a checkpoint's pieces then don't each wait for the disk, and
    // their syncs stop delaying the journal's (measured: ping p90 at 3,000/s 52-131 -> 20-31 ms).
    ...(options.durability === "flush" && journal ? { overlappingSync: false } : {}),
  });
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
