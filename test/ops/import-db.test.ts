// `hcd import healthchecks --db` on the Healthchecks v3.13 fixture's SQLite database, into a stopped
// DATA_DIR: then a real server answers for every check as Healthchecks did (its recorded API answers),
// pings by the old uuid and slug URLs move the checks, the old API keys (hashed and plain) work, the
// fixture's users sign in with their passwords and keep their roles. A second run creates nothing; a dry
// run changes nothing and counts the same. A hostile copy of the database is refused row by row.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import initSqlJs from "sql.js";
import { tempDir, until } from "../helpers.ts";
import { httpReceiver } from "../notify/receivers.ts";
import { startServer, stopServer } from "../security/real-server.ts";
import type { RealServer } from "../security/real-server.ts";
import { runCli } from "../../app/cli.ts";
import { hcdHere } from "./cli-here.ts";
import { differencesFromRecordings, fixtureKeys, requireFixture } from "./healthchecks-fixture.ts";
import type { FixtureKeys } from "./healthchecks-fixture.ts";
import { counts, hcdImport } from "./import-run.ts";

const TOKEN = "import-db-admin-token-0123456789";
const FIXTURE = requireFixture("the Healthchecks database import");
/** What the fixture holds (its README): 2 projects, 19 checks, 10 integrations, 3 users, 35 pings, 22 flips. */
const WHOLE = { projects: 2, checks: 19, channels: 10, users: 3, pings: 35, flips: 22 };

async function get(server: RealServer, path: string, key: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${server.url}${path}`, { headers: { "x-api-key": key } });
  return { status: res.status, json: (await res.json().catch(() => ({}))) as Record<string, unknown> };
}

async function signIn(server: RealServer, email: string, password: string): Promise<number> {
  const res = await fetch(`${server.url}/signin/password`, {
    method: "POST",
    body: new URLSearchParams({ email, password }),
    redirect: "manual",
  });
  await res.text();
  return res.status;
}

/** `hcd project list` on DATA_DIR: what it printed. */
async function projectList(env: Record<string, string>): Promise<unknown> {
  const lines: string[] = [];
  const log = console.log;
  console.log = (text: string) => lines.push(text);
  try {
    assert.is(await runCli(["project", "list"], env), 0);
  } finally {
    console.log = log;
  }
  return JSON.parse(lines.join("\n"));
}

/** Mutes every project until 2100 on the stopped DATA_DIR: the fixture's overdue checks notify nobody while tested. */
async function muteAll(env: Record<string, string>, keys: FixtureKeys): Promise<void> {
  for (const project of keys.projects)
    assert.is((await hcdHere(["project", "mute", "--project", project.code, "--until", "2100-01-01T00:00:00Z"], env)).status, 0);
}

if (FIXTURE !== null) {
  const keys = fixtureKeys(FIXTURE);
  const [p1, p2] = keys.projects;
  const db = join(FIXTURE, "hc.sqlite3");

  test("the fixture's database: every check answers as Healthchecks did, by its old uuid and slug URLs, with its old keys; users sign in as before", async () => {
    const dir = tempDir();
    const env = { DATA_DIR: dir.path };
    let server: RealServer | null = null;
    try {
      const dry = await hcdImport(["--db", db, "--secret-key", keys.secret_key, "--dry-run"], env);
      assert.is(dry.status, 0, dry.stderr);
      assert.equal(counts(dry.summary), WHOLE, "a dry run counts what the import makes");
      const made = await hcdImport(["--db", db, "--secret-key", keys.secret_key], env);
      assert.is(made.status, 0, made.stderr);
      assert.equal(counts(made.summary), WHOLE);
      const reasons = made.summary!.skipped.map((s) => `${s.kind} ${s.name}: ${s.reason}`).join("\n");
      assert.match(reasons, /user alice@example\.org: a superuser there/);
      assert.match(
        reasons,
        /channel email "": its "no up notifications" choice is not kept/,
        "project 2's email integration sends no up notifications there",
      );
      assert.equal(
        counts((await hcdImport(["--db", db, "--secret-key", keys.secret_key], env)).summary),
        { projects: 0, checks: 0, channels: 0, users: 0, pings: 0, flips: 0 },
        "a second run creates nothing",
      );
      await muteAll(env, keys);

      server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, SITE_ROOT: "http://127.0.0.1:18300" } });
      assert.is(await differencesFromRecordings(FIXTURE, "p1", server.url, p1.api_key_rw, { history: true }), "");
      assert.is(await differencesFromRecordings(FIXTURE, "p2", server.url, p2.api_key_rw, { history: true }), "");

      // the old keys: hashed ones (with the SECRET_KEY) and project 2's legacy plain read-only key
      const readOnly = await get(server, "/api/v3/checks/", p1.api_key_ro);
      assert.is(readOnly.status, 200);
      assert.ok(
        (readOnly.json.checks as Record<string, unknown>[]).every((c) => c.uuid === undefined && typeof c.unique_key === "string"),
        "read-only answers",
      );
      assert.is((await get(server, "/api/v3/checks/", p2.api_key_ro)).status, 200);
      assert.is(
        (await get(server, "/api/v3/checks/", `${p1.api_key_rw.slice(0, 12)}${"x".repeat(20)}`)).status,
        401,
        "a key with the right prefix and a wrong rest",
      );
      assert.is((await get(server, "/api/v3/checks/", p2.api_key_rw)).status, 200);

      // the ping URLs the cron jobs have: by uuid, and by the project's ping key and slug
      const backup = p1.checks.find((c) => c.slug === "backup-db")!;
      const pinged = await fetch(`${server.url}/ping/${backup.uuid}`, { method: "POST", body: "after the move" });
      assert.equal([pinged.status, await pinged.text()], [200, "OK"]);
      assert.is((await get(server, `/api/v3/checks/${backup.uuid}`, p1.api_key_rw)).json.n_pings, 5);
      const cert = p1.checks.find((c) => c.slug === "cert-renewal")!;
      const bySlug = await fetch(`${server.url}/ping/${p1.ping_key}/cert-renewal`);
      assert.equal([bySlug.status, await bySlug.text()], [200, "OK"]);
      assert.is((await get(server, `/api/v3/checks/${cert.uuid}`, p1.api_key_rw)).json.n_pings, 3);

      // a ping body kept: ETL import's failure traceback
      const etl = p1.checks.find((c) => c.slug === "etl-import")!;
      const body = await fetch(`${server.url}/api/v3/checks/${etl.uuid}/pings/4/body`, { headers: { "x-api-key": p1.api_key_rw } });
      assert.is(await body.text(), readFileSync(join(FIXTURE, "api", "p1", "v3", "checks", `${etl.uuid}.pings.4.body.txt`), "utf8"));

      // users: their passwords, their roles (r, w, m, owner), and their Django hashes replaced at sign-in
      for (const user of keys.users) {
        assert.is(await signIn(server, user.email, "not the password"), 401, user.email);
        assert.is(await signIn(server, user.email, user.password), 303, user.email);
      }
      const stored = JSON.parse(readFileSync(join(dir.path, "accounts.json"), "utf8")) as {
        users: { email: string; passwordHash: string }[];
      };
      assert.equal(
        stored.users.map((u) => u.passwordHash.split("$")[0]),
        ["scrypt", "scrypt", "scrypt"],
        "replaced by hcd's own",
      );
      assert.is(await signIn(server, "alice@example.org", keys.users[0].password), 303, "and signs in with it");
      const roles = async (project: string) => {
        const res = await fetch(`${server!.url}/admin/v1/projects/${project}/members`, { headers: { authorization: `Bearer ${TOKEN}` } });
        return ((await res.json()) as { members: { email: string; role: string }[] }).members.map((m) => `${m.email} ${m.role}`).sort();
      };
      assert.equal(await roles(p1.code), ["alice@example.org owner", "bob@example.org member", "carol@example.org readonly"]);
      assert.equal(await roles(p2.code), ["alice@example.org manager", "bob@example.org owner"]);

      // integrations with their settings, under their old ids
      const channels = await fetch(`${server.url}/admin/v1/projects/${p1.code}/channels`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      const listedChannels = (
        (await channels.json()) as { channels: { id: string; kind: string; name: string; needs_settings: boolean }[] }
      ).channels;
      assert.equal(
        listedChannels.map((c) => `${c.id} ${c.kind} ${c.name} ${c.needs_settings}`).sort(),
        p1.channels.map((c) => `${c.code} ${c.kind} ${c.name} false`).sort(),
      );
    } finally {
      if (server !== null) assert.is(await stopServer(server), 0, server.output());
      dir.remove();
    }
  });

  test("an integration's settings come over: the webhook sends as Healthchecks' did (its recorded requests)", async () => {
    const receiver = await httpReceiver();
    const dir = tempDir();
    try {
      // the fixture's webhooks pointed at this test's receiver; the other integrations (real services) left out
      const SQL = await initSqlJs();
      const copy = new SQL.Database(readFileSync(db));
      copy.run("DELETE FROM api_channel_checks WHERE channel_id IN (SELECT id FROM api_channel WHERE kind != 'webhook')");
      copy.run("DELETE FROM api_channel WHERE kind != 'webhook'");
      copy.run("UPDATE api_channel SET value = replace(value, 'http://127.0.0.1:18301', ?)", [receiver.url]);
      const file = join(dir.path, "webhooks.sqlite3");
      writeFileSync(file, copy.export());
      copy.close();
      const env = { DATA_DIR: join(dir.path, "data") };
      assert.is((await hcdImport(["--db", file, "--secret-key", keys.secret_key], env)).status, 0);
      const server = await startServer({ dataDir: env.DATA_DIR, env: { ADMIN_TOKEN: TOKEN, INTEGRATIONS_ALLOW_PRIVATE_IPS: "true" } });
      try {
        const flaky = p1.checks.find((c) => c.slug === "flaky-job")!;
        const sink = JSON.parse(readFileSync(join(FIXTURE, "webhook_sink.json"), "utf8")) as {
          method: string;
          path: string;
          headers: Record<string, string>;
          body: string;
        }[];
        const [down, up] = [
          sink.find((r) => r.path === `/hooks/down?check=${flaky.uuid}`)!,
          sink.find((r) => r.path === `/hooks/up/${flaky.uuid}`)!,
        ];
        // Flaky job (every 5 minutes, 2 of grace) is long overdue: hcd sends its down
        await until("Flaky job's down notification", () => receiver.requests.some((r) => r.path === down.path));
        const sent = receiver.requests.find((r) => r.path === down.path)!;
        assert.equal(
          [sent.method, sent.headers["content-type"], sent.headers["x-auth-token"]],
          [down.method, down.headers["Content-Type"], down.headers["X-Auth-Token"]],
        );
        const fields = (body: string) => Object.keys(JSON.parse(body.replace(/"body": ".*"}$/s, '"body": ""}')) as object);
        assert.equal(fields(sent.body), fields(down.body), "the body template");
        assert.match(sent.body, /^\{"check": "Flaky job", "status": "down", "tags": "staging", "at": "/);
        assert.is((await fetch(`${server.url}/ping/${flaky.uuid}`)).status, 200);
        await until("Flaky job's up notification", () => receiver.requests.some((r) => r.path === up.path));
        const back = receiver.requests.find((r) => r.path === up.path)!;
        assert.equal(
          [back.method, back.headers["x-auth-token"], back.body],
          [up.method, up.headers["X-Auth-Token"], up.body],
          "exactly as Healthchecks sent it",
        );
      } finally {
        assert.is(await stopServer(server), 0, server.output());
      }
    } finally {
      await receiver.close();
      dir.remove();
    }
  });

  test("a dry run on an empty DATA_DIR leaves it without a project", async () => {
    const dir = tempDir();
    try {
      const env = { DATA_DIR: dir.path };
      assert.is((await hcdImport(["--db", db, "--dry-run"], env)).status, 0);
      assert.equal(await projectList(env), { projects: [] });
    } finally {
      dir.remove();
    }
  });

  test("a hostile copy of the database: each bad row is listed as skipped with its reason, the rest comes over whole", async () => {
    const dir = tempDir();
    try {
      const SQL = await initSqlJs();
      const copy = new SQL.Database(readFileSync(db));
      const backup = p1.checks.find((c) => c.slug === "backup-db")!;
      const flaky = p1.checks.find((c) => c.slug === "flaky-job")!;
      const hex = (uuid: string) => uuid.replace(/-/g, "");
      copy.run("UPDATE api_check SET code = 'not-a-uuid' WHERE name = 'Deploy pipeline'");
      copy.run("UPDATE api_check SET timeout = 'a week' WHERE name = 'Log shipper'");
      copy.run("UPDATE api_check SET status = 'exploded' WHERE name = 'Legacy cron box'");
      copy.run("UPDATE api_check SET last_ping = '2999-01-01 00:00:00' WHERE name = 'Long running job'");
      copy.run(
        `UPDATE api_ping SET body_raw = zeroblob(20000000) WHERE n = 4 AND owner_id = (SELECT id FROM api_check WHERE code = '${hex(backup.uuid)}')`,
      );
      copy.run(`UPDATE api_flip SET new_status = 'sideways' WHERE owner_id = (SELECT id FROM api_check WHERE code = '${hex(flaky.uuid)}')`);
      copy.run("UPDATE api_channel SET value = '{not json' WHERE kind = 'webhook' AND name = 'Incident webhook'");
      copy.run("UPDATE api_channel SET kind = 'msteams' WHERE kind = 'ntfy'");
      copy.run(
        "UPDATE auth_user SET password = 'argon2$argon2id$v=19$m=102400,t=2,p=8$c29tZXNhbHQ$aGFzaA' WHERE email = 'bob@example.org'",
      );
      copy.run(
        "UPDATE auth_user SET password = 'pbkdf2_sha256$999999999999$salt$AuCmOKil3h++TdxswCVWuyilcXG8tfwAjiYzJXcZ6jI=' WHERE email = 'carol@example.org'",
      );
      const file = join(dir.path, "hostile.sqlite3");
      writeFileSync(file, copy.export());
      copy.close();
      const env = { DATA_DIR: join(dir.path, "data") };
      const run = await hcdImport(["--db", file, "--secret-key", keys.secret_key], env);
      assert.is(run.status, 0, run.stderr);
      const reasons = run.summary!.skipped.map((s) => `${s.kind} ${s.name}: ${s.reason}`).join("\n");
      assert.match(reasons, /check check \d+ of Backend Jobs: its row does not read: code is not a uuid/);
      assert.match(reasons, /check check \d+ of Backend Jobs: its row does not read: timeout is not/);
      assert.match(reasons, /check Legacy cron box: json validation error: status must be one of/);
      assert.match(reasons, /check Long running job: json validation error: last_ping lies in the future/);
      assert.match(reasons, /check Flaky job: json validation error: flips\[\d\] needs a timestamp, and from and to/);
      assert.match(reasons, /channel webhook "Incident webhook": its stored value could not be read/);
      assert.match(reasons, /channel msteams "ntfy phone": Microsoft retired Office 365 connectors/);
      assert.match(reasons, /user bob@example\.org: password not kept \(a password hash of another kind \(argon2\)/);
      assert.match(reasons, /user carol@example\.org: password not kept \(a malformed password hash \(iterations\)\)/);
      assert.equal(counts(run.summary), { projects: 2, checks: 14, channels: 9, users: 3, pings: 24, flips: 15 }, reasons);

      // the rest is whole: a server serves it, the 20 MB body is cut to the project's 10,000 bytes
      await muteAll(env, keys);
      const server = await startServer({ dataDir: env.DATA_DIR, env: { ADMIN_TOKEN: TOKEN } });
      try {
        const body = await fetch(`${server.url}/api/v3/checks/${backup.uuid}/pings/4/body`, { headers: { "x-api-key": p1.api_key_rw } });
        assert.is((await body.arrayBuffer()).byteLength, 10_000);
        const list = await get(server, "/api/v3/checks/", p1.api_key_rw);
        assert.is((list.json.checks as unknown[]).length, 11);
        assert.is(await signIn(server, "alice@example.org", keys.users[0].password), 303);
        assert.is(await signIn(server, "bob@example.org", keys.users[1].password), 401, "no password kept: a reset sets one");
      } finally {
        assert.is(await stopServer(server), 0, server.output());
      }
    } finally {
      dir.remove();
    }
  });

  test("a file that is not a database, another application's database, and a missing file end the import with a clear error", async () => {
    const dir = tempDir();
    try {
      const junk = join(dir.path, "junk.sqlite3");
      writeFileSync(junk, "this is not a database at all, just text ".repeat(200));
      const env = { DATA_DIR: join(dir.path, "data") };
      const refused = await hcdImport(["--db", junk], env);
      assert.is(refused.status, 1);
      assert.match(refused.stderr, /junk\.sqlite3 is not a SQLite database/);
      const SQL = await initSqlJs();
      const other = new SQL.Database();
      other.run("CREATE TABLE notes (id integer, text varchar)");
      writeFileSync(join(dir.path, "other.sqlite3"), other.export());
      other.close();
      const foreign = await hcdImport(["--db", join(dir.path, "other.sqlite3")], env);
      assert.is(foreign.status, 1);
      assert.match(foreign.stderr, /other\.sqlite3 has no auth_user table: it is not a Healthchecks database/);
      const missing = await hcdImport(["--db", join(dir.path, "nowhere.sqlite3")], env);
      assert.is(missing.status, 1);
      assert.match(missing.stderr, /nowhere\.sqlite3/);
      copyFileSync(db, join(dir.path, "copy.sqlite3"));
      const usage = await hcdImport(["--db", join(dir.path, "copy.sqlite3"), "--api-key", "x"], env);
      assert.is(usage.status, 2, "an API option with --db");
    } finally {
      dir.remove();
    }
  });
}

test.run();
