// `hcd import healthchecks --db postgres://...` against a real PostgreSQL started on a temp dir and a free
// port, holding the fixture's data twice: loaded by Debian's pgloader (what an operator converting a SQLite
// instance gets: integer durations, text uuids), and recreated row for row in the types Django gives its
// fields on PostgreSQL (uuid, interval, timestamptz, bytea, boolean), as a Healthchecks run on PostgreSQL
// has them. Both import into hcd and answer as the fixture's recorded API did.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import initSqlJs from "sql.js";
import { closedPort, tempDir } from "../helpers.ts";
import { startServer, stopServer } from "../security/real-server.ts";
import type { RealServer } from "../security/real-server.ts";
import { haveProgram } from "./extras.ts";
import { hcdHere } from "./cli-here.ts";
import { differencesFromRecordings, fixtureKeys, requireFixture } from "./healthchecks-fixture.ts";
import { counts, hcdImport } from "./import-run.ts";

const TOKEN = "import-pg-admin-token-0123456789";
/** Debian's PostgreSQL programs, the newest version installed (/usr/lib/postgresql/<version>/bin). */
const BIN = (() => {
  const versions = existsSync("/usr/lib/postgresql")
    ? readdirSync("/usr/lib/postgresql")
        .filter((v) => /^\d+$/.test(v))
        .sort((x, y) => Number(y) - Number(x))
    : [];
  return `/usr/lib/postgresql/${versions[0] ?? "15"}/bin`;
})();
const FIXTURE = requireFixture("the PostgreSQL import");
const WHOLE = { projects: 2, checks: 19, channels: 10, users: 3, pings: 35, flips: 22 };
/** The tables the import reads, in an order their references allow. */
const TABLES = [
  "auth_user",
  "accounts_profile",
  "accounts_credential",
  "accounts_project",
  "accounts_member",
  "api_check",
  "api_channel",
  "api_channel_checks",
  "api_ping",
  "api_flip",
];
/** Django's DurationFields (bigint microseconds on SQLite, interval on PostgreSQL); its UUIDFields are char(32) there and uuid here, GenericIPAddressFields char(39) and inet. */
const DURATIONS = new Set(["timeout", "grace", "last_duration", "nag_period", "last_notify_duration"]);

const extras =
  FIXTURE !== null &&
  haveProgram(`${BIN}/initdb`, "the PostgreSQL import (Debian's postgresql)") &&
  haveProgram("pgloader", "the PostgreSQL import (Debian's pgloader)");

/** Runs a program (as the postgres user when we are root: PostgreSQL refuses to run as root); throws with its output on failure. */
function run(program: string, args: string[], asPostgres: boolean): string {
  const [command, argv] =
    asPostgres && process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", program, ...args]] : [program, args];
  const result = spawnSync(command, argv, { encoding: "utf8", timeout: 300_000 });
  if (result.status !== 0) throw new Error(`${program} ${args.join(" ")}: ${result.status}\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** The fixture's rows recreated in PostgreSQL with Django's PostgreSQL types, through pg. */
async function recreate(url: string, sqlite: string): Promise<void> {
  const SQL = await initSqlJs();
  const source = new SQL.Database(readFileSync(sqlite));
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const table of TABLES) {
      const columns = source
        .exec(`PRAGMA table_info("${table}")`)[0]
        .values.map(([, name, type]) => ({ name: String(name), type: String(type).toLowerCase() }));
      const typeOf = (c: { name: string; type: string }) =>
        c.name === "id"
          ? "integer PRIMARY KEY"
          : c.type === "char(32)"
            ? "uuid"
            : c.type === "char(39)"
              ? "inet"
              : c.type === "bigint" && DURATIONS.has(c.name)
                ? "interval"
                : c.type === "datetime"
                  ? "timestamptz"
                  : c.type === "bool"
                    ? "boolean"
                    : c.type === "blob"
                      ? "bytea"
                      : c.type;
      await client.query(`CREATE TABLE "${table}" (${columns.map((c) => `"${c.name}" ${typeOf(c)}`).join(", ")})`);
      const rows = source.exec(`SELECT * FROM "${table}"`)[0]?.values ?? [];
      for (const row of rows) {
        const values = row.map((value, i) => {
          const type = typeOf(columns[i]);
          if (value === null) return null;
          if (type === "interval") return `${String(value)} microseconds`;
          if (type === "timestamptz") return `${String(value)}+00`;
          if (type === "boolean") return value === 1;
          return value instanceof Uint8Array ? Buffer.from(value) : value;
        });
        await client.query(`INSERT INTO "${table}" VALUES (${values.map((_, i) => `$${i + 1}`).join(", ")})`, values);
      }
    }
  } finally {
    await client.end();
    source.close();
  }
}

if (FIXTURE !== null && extras) {
  const keys = fixtureKeys(FIXTURE);
  const [p1, p2] = keys.projects;

  test("PostgreSQL loaded by pgloader and in Django's own types: both import whole, and answer as Healthchecks did", async () => {
    const dir = tempDir();
    const data = join(dir.path, "pg");
    if (process.getuid?.() === 0) run("chown", ["postgres:postgres", dir.path], false); // PostgreSQL runs as postgres and owns its folder
    const port = await closedPort();
    let started = false;
    let server: RealServer | null = null;
    try {
      run(`${BIN}/initdb`, ["-D", data, "-A", "trust", "-U", "hc", "--no-sync"], true);
      run(
        `${BIN}/pg_ctl`,
        [
          "-D",
          data,
          "-w",
          "-l",
          join(dir.path, "pg.log"),
          "-o",
          `-p ${port} -k ${dir.path} -c listen_addresses=127.0.0.1 -c timezone=UTC -c fsync=off`,
          "start",
        ],
        true,
      );
      started = true;
      const base = `postgresql://hc@127.0.0.1:${port}`;
      const client = new pg.Client({ connectionString: `${base}/postgres` });
      await client.connect();
      await client.query("CREATE DATABASE loaded");
      await client.query("CREATE DATABASE django");
      await client.end();
      run("pgloader", ["--quiet", join(FIXTURE, "hc.sqlite3"), `${base}/loaded`], false);
      await recreate(`${base}/django`, join(FIXTURE, "hc.sqlite3"));

      // pgloader's copy into a stopped DATA_DIR
      const loaded = { DATA_DIR: join(dir.path, "loaded") };
      const fromLoaded = await hcdImport(["--db", `${base}/loaded`, "--secret-key", keys.secret_key], loaded);
      assert.is(fromLoaded.status, 0, fromLoaded.stderr);
      assert.equal(counts(fromLoaded.summary), WHOLE);
      // the Django-typed one through a running server's admin API
      server = await startServer({ dataDir: join(dir.path, "django"), env: { ADMIN_TOKEN: TOKEN, SITE_ROOT: "http://127.0.0.1:18300" } });
      const remote = ["--url", server.url, "--token", TOKEN];
      const dry = await hcdImport(["--db", `${base}/django`, "--secret-key", keys.secret_key, "--dry-run", ...remote], {});
      assert.equal(counts(dry.summary), WHOLE, dry.stderr);
      const fromDjango = await hcdImport(["--db", `${base}/django`, "--secret-key", keys.secret_key, ...remote], {});
      assert.is(fromDjango.status, 0, fromDjango.stderr);
      assert.equal(counts(fromDjango.summary), WHOLE);
      assert.equal(counts((await hcdImport(["--db", `${base}/django`, "--secret-key", keys.secret_key, ...remote], {})).summary), {
        projects: 0,
        checks: 0,
        channels: 0,
        users: 0,
        pings: 0,
        flips: 0,
      });
      for (const project of keys.projects) {
        const muted = await fetch(`${server.url}/admin/v1/projects/${project.code}/mute`, {
          method: "POST",
          headers: { authorization: `Bearer ${TOKEN}` },
          body: '{"until": "2100-01-01T00:00:00Z"}',
        });
        assert.is(muted.status, 200);
      }
      assert.is(await differencesFromRecordings(FIXTURE, "p1", server.url, p1.api_key_rw, { history: true }), "");
      assert.is(await differencesFromRecordings(FIXTURE, "p2", server.url, p2.api_key_rw, { history: true }), "");
      const signedIn = await fetch(`${server.url}/signin/password`, {
        method: "POST",
        body: new URLSearchParams({ email: "carol@example.org", password: keys.users[2].password }),
        redirect: "manual",
      });
      assert.is(signedIn.status, 303);
      assert.is(await stopServer(server), 0, server.output());
      server = null;

      for (const project of keys.projects)
        assert.is((await hcdHere(["project", "mute", "--project", project.code, "--until", "2100-01-01T00:00:00Z"], loaded)).status, 0);
      server = await startServer({ dataDir: loaded.DATA_DIR, env: { ADMIN_TOKEN: TOKEN, SITE_ROOT: "http://127.0.0.1:18300" } });
      assert.is(await differencesFromRecordings(FIXTURE, "p1", server.url, p1.api_key_rw, { history: true }), "");
      assert.is(await differencesFromRecordings(FIXTURE, "p2", server.url, p2.api_key_rw, { history: true }), "");
    } finally {
      if (server !== null) assert.is(await stopServer(server), 0, server.output());
      if (started) run(`${BIN}/pg_ctl`, ["-D", data, "-m", "immediate", "stop"], true);
      dir.remove();
    }
  });

  test("a PostgreSQL that does not answer, or refuses the user, ends the import with a clear error and no password in it", async () => {
    const port = await closedPort();
    const refused = await hcdImport(["--db", `postgresql://hc:s3cret-pass@127.0.0.1:${port}/hc`], { DATA_DIR: "/nonexistent-never-made" });
    assert.is(refused.status, 1);
    assert.match(refused.stderr, new RegExp(`cannot connect to postgresql://hc:\\*\\*\\*\\*@127\\.0\\.0\\.1:${port}/hc`));
    assert.not.match(refused.stderr, /s3cret-pass/);
  });
}

test.run();
