// A Healthchecks database, read only: a SQLite file through sql.js (SQLite compiled to WebAssembly: no
// compiler needed at install, and a malformed file is SQLite's error, never a crash), or PostgreSQL
// through pg. Queries are written with "?" placeholders; the PostgreSQL side numbers them.
import { readFileSync, statSync } from "node:fs";
import initSqlJs from "sql.js";
import pg from "pg";
import type { Row } from "./reference-values.ts";

export type ReferenceDb = {
  /** Where it is, for messages (a PostgreSQL URL without its password). */
  readonly label: string;
  query(sql: string, params?: readonly (string | number)[]): Promise<Row[]>;
  /** The table's columns (empty when there is no such table): older schemas lack some. */
  columns(table: string): Promise<Set<string>>;
  close(): Promise<void>;
};

/** sql.js reads the whole file into memory: larger files are refused with advice. */
const SQLITE_MAX_BYTES = 1024 * 1024 * 1024;

/** Opens `target`: postgres:// (or postgresql://) URL, else a SQLite file's path. */
export async function openReferenceDb(target: string): Promise<ReferenceDb> {
  return /^postgres(ql)?:\/\//.test(target) ? openPostgres(target) : openSqlite(target);
}

async function openSqlite(path: string): Promise<ReferenceDb> {
  const size = statSync(path).size; // a missing file: ENOENT, with its path
  if (size > SQLITE_MAX_BYTES) {
    throw new Error(
      `${path} is ${Math.round(size / 1024 / 1024)} MiB: more than the ${SQLITE_MAX_BYTES / 1024 / 1024} MiB read into memory; prune its pings (manage.py prunepings) or load it into PostgreSQL (pgloader) and import from there`,
    );
  }
  const SQL = await initSqlJs();
  const db = new SQL.Database(readFileSync(path));
  const query = async (sql: string, params: readonly (string | number)[] = []): Promise<Row[]> => {
    const statement = db.prepare(sql);
    try {
      statement.bind([...params]);
      const rows: Row[] = [];
      while (statement.step()) rows.push(statement.getAsObject());
      return rows;
    } finally {
      statement.free();
    }
  };
  try {
    await query("SELECT count(*) FROM sqlite_master"); // not a database: "file is not a database" now, not later
  } catch (error) {
    db.close();
    throw new Error(`${path} is not a SQLite database: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return {
    label: path,
    query,
    columns: async (table) => new Set((await query(`PRAGMA table_info("${table.replace(/"/g, "")}")`)).map((row) => String(row.name))),
    close: async () => db.close(),
  };
}

const TIMESTAMP_WITHOUT_ZONE = 1114;

async function openPostgres(url: string): Promise<ReferenceDb> {
  // a timestamp without a zone (a converted database) is UTC, as Django wrote it: kept as text, read as UTC
  const builtIn = (oid: number, format?: "text" | "binary"): ((text: string) => unknown) =>
    pg.types.getTypeParser(oid, format) as (text: string) => unknown;
  const types = {
    getTypeParser: ((oid: number, format?: "text" | "binary") =>
      oid === TIMESTAMP_WITHOUT_ZONE ? (text: string) => text : builtIn(oid, format)) as typeof pg.types.getTypeParser,
  };
  const client = new pg.Client({ connectionString: url, types, connectionTimeoutMillis: 30_000, query_timeout: 300_000 });
  client.on("error", () => {}); // a connection lost between queries fails the next query, with its error
  const label = redacted(url);
  try {
    await client.connect();
  } catch (error) {
    throw new Error(`cannot connect to ${label}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const query = async (sql: string, params: readonly (string | number)[] = []): Promise<Row[]> => {
    let n = 0;
    const numbered = sql.replace(/\?/g, () => `$${++n}`);
    return (await client.query(numbered, [...params])).rows as Row[];
  };
  return {
    label,
    query,
    columns: async (table) =>
      new Set(
        (
          await query("SELECT column_name FROM information_schema.columns WHERE table_name = ? AND table_schema = current_schema()", [
            table,
          ])
        ).map((row) => String(row.column_name)),
      ),
    close: () => client.end(),
  };
}

function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "****";
    return parsed.toString();
  } catch {
    return "the PostgreSQL URL";
  }
}
