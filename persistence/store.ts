// openStore(dir): one LMDB env with named dbs (see tables.ts), msgpack values with shared structures,
// ordered array keys. Several worker threads may open the same dir; each writes only its own projects.
//
// A commit is one child transaction: all of its writes land or none do. lmdb-js runs every transaction
// queued in one event-loop turn inside one LMDB transaction, so concurrent commits share one disk sync.
import { closeSync, existsSync, mkdirSync, openSync, readSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { open } from "lmdb";
import type { Key } from "lmdb";
import type { Changes, OutboxEntry } from "../engine/changes.ts";
import type { Channel, Check, Flip, Millis, PingRecord, Project } from "../engine/model.ts";
import { flipPut, flipsOf, pruneFlips, removeFlips } from "./flip-log.ts";
import { outboxAll, outboxDue, outboxPut } from "./outbox.ts";
import { pingBody, pingPage, pingPuts, removePings, trimPings, trimsOf } from "./ping-log.ts";
import { loadChannels, loadChecks, loadProjects, removeCheck, snapshotPuts } from "./snapshots.ts";
import type { Put, Table, Tables } from "./tables.ts";

/** "flush": a write resolves once it is on disk (survives power loss); "commit": once committed (survives a crash of the process). */
export const DURABILITIES = ["flush", "commit"] as const;
export type Durability = (typeof DURABILITIES)[number];

export type StoreOptions = { readonly durability: Durability; readonly readOnly?: boolean };

const SCHEMA_VERSION = 1;
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

/** Opens (creating if missing, unless readOnly) the store in `dir`; throws an Error naming the path and the cause. */
export function openStore(dir: string, options: StoreOptions): Store {
  try {
    return new Store(openTables(dir, options), options.durability);
  } catch (cause) {
    throw new Error(`cannot open the store at ${dir}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** The persistent state of hcd: snapshots, ping logs, flips and the outbox in one LMDB env. */
export class Store {
  readonly #tables: Tables;
  readonly #durability: Durability;

  constructor(tables: Tables, durability: Durability) {
    this.#tables = tables;
    this.#durability = durability;
  }

  /** Returns every project, ordered by id. */
  loadProjects(): Project[] {
    return loadProjects(this.#tables);
  }

  /** Returns a project's channels, ordered by id. */
  loadChannels(projectId: string): Channel[] {
    return loadChannels(this.#tables, projectId);
  }

  /** Returns a project's checks, ordered by uuid. */
  loadChecks(projectId: string): Check[] {
    return loadChecks(this.#tables, projectId);
  }

  /**
   * Writes all of `changes` in one atomic transaction: upserts, ping appends trimmed to each write's
   * `keep`, flips, outbox entries, then deleted checks with their pings, bodies and flips.
   * Resolves once durable (see Durability); rejects, having written nothing, if the transaction fails.
   */
  async commit(changes: Changes): Promise<void> {
    const tables = this.#tables; // everything up to childTransaction runs in the caller's turn: commits of one turn still group
    const puts: Put[] = [
      ...snapshotPuts(tables, changes),
      ...changes.pings.flatMap((write) => pingPuts(tables, write)),
      ...changes.flips.map((flip) => flipPut(tables, flip)),
      ...changes.outbox.map((entry) => outboxPut(tables, entry)),
    ];
    const trims = trimsOf(changes.pings);
    if (puts.length === 0 && changes.deletedChecks.length === 0) return;
    const written = tables.env.childTransaction(() => {
      for (const put of puts) put.table.putSync(put.key, put.value);
      for (const [checkUuid, trim] of trims) trimPings(tables, checkUuid, trim);
      for (const { projectId, uuid } of changes.deletedChecks) {
        removeCheck(tables, projectId, uuid);
        removePings(tables, uuid);
        removeFlips(tables, uuid);
      }
    });
    await this.#durable(written);
  }

  /** Returns up to `limit` of a check's newest pings, newest first. */
  pingPage(checkUuid: string, limit: number): PingRecord[] {
    return pingPage(this.#tables, checkUuid, limit);
  }

  /** Returns the body of a check's ping n, or null when it had none or was trimmed. */
  pingBody(checkUuid: string, n: number): Uint8Array | null {
    return pingBody(this.#tables, checkUuid, n);
  }

  /** Returns a check's flips with fromAt <= at < toAt (bounds optional), newest first. */
  flips(checkUuid: string, range: { fromAt?: Millis; toAt?: Millis }): Flip[] {
    return flipsOf(this.#tables, checkUuid, range);
  }

  /** Removes the flips (of every check) with at < beforeAt; resolves to how many, once durable. */
  async pruneFlips(beforeAt: Millis): Promise<number> {
    const removed = await pruneFlips(this.#tables, beforeAt);
    await this.#durable(Promise.resolve());
    return removed;
  }

  /** Returns up to `limit` outbox entries with nextAttemptAt <= at, ordered by id. */
  outboxDue(at: Millis, limit: number): OutboxEntry[] {
    return outboxDue(this.#tables, at, limit);
  }

  /** Returns every outbox entry, ordered by id. */
  outboxAll(): OutboxEntry[] {
    return outboxAll(this.#tables);
  }

  /** Stores an outbox entry (replacing the one with its id); resolves once durable. */
  async outboxUpdate(entry: OutboxEntry): Promise<void> {
    const put = outboxPut(this.#tables, entry);
    await this.#durable(put.table.put(put.key, put.value));
  }

  /** Removes an outbox entry (nothing if absent); resolves once durable. */
  async outboxDelete(id: string): Promise<void> {
    await this.#durable(this.#tables.outbox.remove([id]));
  }

  /** Reads the schema entry; throws if the store can't be read (closed, or the env is broken). */
  probe(): void {
    if (this.#tables.meta.get("schema") !== SCHEMA_VERSION) throw new Error("store probe: schema entry missing");
  }

  /** Waits for pending writes, then closes the env (in this thread; other threads keep theirs). */
  async close(): Promise<void> {
    await this.#tables.env.close();
  }

  async #durable(written: Promise<unknown>): Promise<void> {
    await written;
    if (this.#durability === "flush") await this.#tables.env.flushed;
  }
}

function openTables(dir: string, options: StoreOptions): Tables {
  const readOnly = options.readOnly ?? false;
  const dataFile = join(dir, "data.mdb");
  if (readOnly && !existsSync(dataFile)) throw new Error("no store there (data.mdb is missing)");
  if (!readOnly) makeDir(dir);
  assertLmdbFile(dataFile); // LMDB crashes the process on a data file that isn't one: refuse it first
  const env = open<unknown, Key>(dir, { maxDbs: 16, noSubdir: false, readOnly });
  try {
    const table = (name: keyof typeof TABLE_OPTIONS): Table => {
      const db = env.openDB<unknown, Key>(name, TABLE_OPTIONS[name]) as Table | undefined;
      if (db === undefined) throw new Error(`table ${name} is missing (not an hcd store?)`);
      return db;
    };
    const tables: Tables = {
      env, projects: table("projects"), channels: table("channels"), checks: table("checks"), pings: table("pings"),
      bodies: table("bodies"), flips: table("flips"), outbox: table("outbox"), meta: table("meta"),
    };
    const schema = tables.meta.get("schema");
    if (schema === undefined && !readOnly) tables.meta.putSync("schema", SCHEMA_VERSION);
    else if (schema !== SCHEMA_VERSION) throw new Error(`schema version ${String(schema)}, this build reads ${SCHEMA_VERSION}`);
    return tables;
  } catch (error) {
    void env.close();
    throw error;
  }
}

/** Creates `dir` and its missing parents (mkdirSync's recursive mode spins forever under /proc on Node 20). */
function makeDir(dir: string): void {
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
