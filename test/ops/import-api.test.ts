// `hcd import healthchecks --from <url> --api-key <key>` against the fixture's recorded API answers served
// on loopback (healthchecks-replay.ts): hcd then answers for every check as Healthchecks did, by the old
// ping URLs (slug URLs with --ping-key) and the same key; integrations are stubs needing their settings.
// Older API versions, rate limits, refused keys and hostile answers; a run killed half-way completed by
// the next; and from one real hcd into another.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "../helpers.ts";
import { startServer, stopServer } from "../security/real-server.ts";
import type { RealServer } from "../security/real-server.ts";
import { hcdHere } from "./cli-here.ts";
import { differencesFromRecordings, fixtureKeys, recorded, requireFixture } from "./healthchecks-fixture.ts";
import { startReplay } from "./healthchecks-replay.ts";
import { counts, hcdImport } from "./import-run.ts";

const TOKEN = "import-api-admin-token-0123456789";
const HCD = fileURLToPath(new URL("../../../bin/hcd.mjs", import.meta.url));
const FIXTURE = requireFixture("the Healthchecks API import");
type Json = Record<string, unknown>;

const admin = (server: RealServer, path: string) =>
  fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } }).then((res) => res.json() as Promise<Json>);

if (FIXTURE !== null) {
  const keys = fixtureKeys(FIXTURE);
  const p1 = keys.projects[0];
  const checksOf = (p: string) => recorded<{ checks: Json[] }>(FIXTURE, `${p}/v3/checks.rw.json`).checks;
  /** p1's recorded pings and flips, counted from the recordings themselves. */
  const recordedPings = checksOf("p1").reduce(
    (n, c) => n + recorded<{ pings: unknown[] }>(FIXTURE, `p1/v3/checks/${String(c.uuid)}.pings.json`).pings.length,
    0,
  );
  const recordedFlips = checksOf("p1").reduce(
    (n, c) => n + recorded<{ flips: unknown[] }>(FIXTURE, `p1/v3/checks/${String(c.uuid)}.flips.json`).flips.length,
    0,
  );
  const mute = async (env: Record<string, string>, project: string) =>
    assert.is((await hcdHere(["project", "mute", "--project", project, "--until", "2100-01-01T00:00:00Z"], env)).status, 0);

  test("the recorded v3 API with --history and --ping-key: every check as Healthchecks answered, its old URLs and key work, integrations are stubs", async () => {
    const replay = await startReplay(FIXTURE, { tooMany: { match: /\/checks\/$|\/pings\/$/, times: 1 } });
    const dir = tempDir();
    const env = { DATA_DIR: dir.path };
    let server: RealServer | null = null;
    try {
      const args = ["--from", `${replay.url}/api/v3/`, "--api-key", p1.api_key_rw, "--ping-key", p1.ping_key, "--history"];
      const dry = await hcdImport([...args, "--dry-run"], env);
      const run = await hcdImport(args, env);
      assert.is(run.status, 0, run.stderr);
      const expected = { projects: 1, checks: 16, channels: 8, users: 0, pings: recordedPings, flips: recordedFlips };
      assert.equal(counts(run.summary), expected);
      assert.equal(counts(dry.summary), expected, "the dry run counts the same");
      assert.match(
        dry.stderr,
        /source rate limit \(429\): waiting 1 s before GET \/api\/v3\/checks\/ again/,
        "(the first request of each list answered 429)",
      );
      assert.ok(run.summary!.skipped.filter((s) => s.kind === "channel").length === 8, "every integration listed as needing its settings");
      assert.equal(
        counts((await hcdImport(args, env)).summary),
        { projects: 0, checks: 0, channels: 0, users: 0, pings: 0, flips: 0 },
        "a second run creates nothing",
      );

      const project = run.stderr.match(/project "[^"]+" \(([0-9a-f-]{36})\): created/)?.[1];
      assert.type(project, "string");
      await mute(env, project!);
      server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, SITE_ROOT: "http://127.0.0.1:18300" } });
      // the replay has only ETL import's ping bodies: which pings have one is compared on the database import
      assert.is(await differencesFromRecordings(FIXTURE, "p1", server.url, p1.api_key_rw, { history: true, bodies: false }), "");
      const etl = p1.checks.find((c) => c.slug === "etl-import")!;
      const body = await fetch(`${server.url}/api/v3/checks/${etl.uuid}/pings/4/body`, { headers: { "x-api-key": p1.api_key_rw } });
      assert.is(await body.text(), readFileSync(join(FIXTURE, "api", "p1", "v3", "checks", `${etl.uuid}.pings.4.body.txt`), "utf8"));
      const cert = p1.checks.find((c) => c.slug === "cert-renewal")!;
      assert.equal(
        [(await fetch(`${server.url}/ping/${p1.ping_key}/cert-renewal`)).status, (await fetch(`${server.url}/ping/${cert.uuid}`)).status],
        [200, 200],
      );
      const channels = (await admin(server, `/admin/v1/projects/${project}/channels`)).channels as Json[];
      assert.equal(
        channels.map((c) => `${String(c.id)} ${String(c.kind)} ${String(c.name)} ${String(c.needs_settings)}`).sort(),
        p1.channels.map((c) => `${c.code} ${c.kind} ${c.name} true`).sort(),
      );
    } finally {
      if (server !== null) assert.is(await stopServer(server), 0, server.output());
      await replay.close();
      dir.remove();
    }
  });

  test("a source with only API v1: its checks come over (v1 as the reference answers it)", async () => {
    const replay = await startReplay(FIXTURE, { versions: [1] });
    const dir = tempDir();
    try {
      const run = await hcdImport(["--from", replay.url, "--api-key", p1.api_key_rw], { DATA_DIR: dir.path });
      assert.is(run.status, 0, run.stderr);
      assert.match(run.stderr, /API v1, 16 checks/);
      assert.equal(counts(run.summary), { projects: 1, checks: 16, channels: 8, users: 0, pings: 0, flips: 0 });
      assert.ok(replay.requests.includes("/api/v3/checks/") && replay.requests.includes("/api/v2/checks/"), "newer versions asked first");
    } finally {
      await replay.close();
      dir.remove();
    }
  });

  test("a read-only key, a wrong key and an unreachable source end the import with a clear error and change nothing", async () => {
    const replay = await startReplay(FIXTURE);
    const dir = tempDir();
    const env = { DATA_DIR: dir.path };
    try {
      const readOnly = await hcdImport(["--from", replay.url, "--api-key", p1.api_key_ro], env);
      assert.equal([readOnly.status, readOnly.summary], [1, null]);
      assert.match(readOnly.stderr, /this is a read-only key: its answers carry no check uuids/);
      const wrong = await hcdImport(["--from", replay.url, "--api-key", "hcw_nottherightkeyatall000000000"], env);
      assert.is(wrong.status, 1);
      assert.match(wrong.stderr, /the source refused the API key \(401 wrong api key\)/);
      const nowhere = await hcdImport(["--from", "http://127.0.0.1:1", "--api-key", p1.api_key_rw], env);
      assert.is(nowhere.status, 1);
      assert.match(nowhere.stderr, /GET http:\/\/127\.0\.0\.1:1\/api\/v3\/checks\/ failed/);
      const usage = await hcdImport(["--from", replay.url], env);
      assert.is(usage.status, 2, "no key");
    } finally {
      await replay.close();
      dir.remove();
    }
  });

  test("hostile answers: a check list that is not one ends the import; a bad check, a bad ping list and a 20 MB body are handled, the rest comes whole", async () => {
    const dir = tempDir();
    const env = { DATA_DIR: dir.path };
    const etl = p1.checks.find((c) => c.slug === "etl-import")!;
    const backup = p1.checks.find((c) => c.slug === "backup-db")!;
    const garbage = await startReplay(FIXTURE, {
      replace: (path) => (path === "/api/v3/checks/" ? { status: 200, body: '{"checks": "nope"}' } : null),
    });
    try {
      const refused = await hcdImport(["--from", garbage.url, "--api-key", p1.api_key_rw], env);
      assert.is(refused.status, 1);
      assert.match(refused.stderr, /GET \/api\/v3\/checks\/ did not answer a check list/);
    } finally {
      await garbage.close();
    }
    const list = recorded<{ checks: Json[] }>(FIXTURE, "p1/v3/checks.rw.json");
    const hostile = {
      checks: [
        ...list.checks.slice(0, 14),
        { ...list.checks[14], uuid: "../../etc/passwd", ping_url: "x" },
        { ...list.checks[15], timeout: "forever" },
        42,
      ],
    };
    const replay = await startReplay(FIXTURE, {
      replace: (path) =>
        path === "/api/v3/checks/"
          ? { status: 200, body: JSON.stringify(hostile) }
          : path === `/api/v3/checks/${backup.uuid}/pings/`
            ? {
                status: 200,
                body: '{"pings": [{"n": "one"}, 7, {"n": 1, "date": "2026-12-04T11:32:57+00:00", "type": "success", "body_url": "x"}]}',
              }
            : path === `/api/v3/checks/${backup.uuid}/pings/1/body`
              ? { status: 200, body: new Uint8Array(20 * 1024 * 1024).fill(65), type: "text/plain" }
              : path === `/api/v3/checks/${etl.uuid}/flips/`
                ? { status: 200, body: "<html>oops" }
                : null,
    });
    let server: RealServer | null = null;
    try {
      const run = await hcdImport(["--from", replay.url, "--api-key", p1.api_key_rw, "--history"], env);
      assert.is(run.status, 0, run.stderr);
      const reasons = run.summary!.skipped.map((s) => `${s.kind} ${s.name}: ${s.reason}`).join("\n");
      assert.match(reasons, /check \(unreadable\): the check list holds something that is not a check/);
      assert.match(reasons, new RegExp(`check ${String(list.checks[14].name)}: the API shows no uuid for it`));
      assert.match(reasons, new RegExp(`check ${String(list.checks[15].name)}: json validation error: timeout is not a number`));
      assert.match(reasons, /check ETL import: its flips could not be read/);
      assert.is(counts(run.summary)!.checks, 14);
      const project = run.stderr.match(/project "[^"]+" \(([0-9a-f-]{36})\)/)![1];
      await mute(env, project);
      server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
      const pings = await fetch(`${server.url}/api/v3/checks/${backup.uuid}/pings/`, { headers: { "x-api-key": p1.api_key_rw } }).then(
        (r) => r.json() as Promise<{ pings: Json[] }>,
      );
      assert.equal(
        pings.pings.map((p) => p.n),
        [1],
        "the one ping that reads",
      );
      const body = await fetch(`${server.url}/api/v3/checks/${backup.uuid}/pings/1/body`, { headers: { "x-api-key": p1.api_key_rw } });
      assert.is((await body.arrayBuffer()).byteLength, 10_000, "cut to the project's body limit");
    } finally {
      if (server !== null) assert.is(await stopServer(server), 0, server.output());
      await replay.close();
      dir.remove();
    }
  });

  test("an import killed half-way leaves every check it made whole, and the next run completes it", async () => {
    const etl = p1.checks.find((c) => c.slug === "etl-import")!;
    const replay = await startReplay(FIXTURE, { hold: new RegExp(`/checks/${etl.uuid}/pings/4/body$`) });
    const dir = tempDir();
    let server: RealServer | null = null;
    try {
      server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, SITE_ROOT: "http://127.0.0.1:18300" } });
      const args = [
        "import",
        "healthchecks",
        "--from",
        replay.url,
        "--api-key",
        p1.api_key_rw,
        "--history",
        "--url",
        server.url,
        "--token",
        TOKEN,
      ];
      const child = spawn(process.execPath, [HCD, ...args], { stdio: ["ignore", "pipe", "pipe"] });
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
      await replay.held; // ETL import (the 9th check) is made; its pings are on their way
      child.kill("SIGKILL");
      assert.is(await exited, null);
      replay.release();
      const partial = (
        await fetch(`${server.url}/api/v3/checks/`, { headers: { "x-api-key": p1.api_key_rw } }).then(
          (r) => r.json() as Promise<{ checks: Json[] }>,
        )
      ).checks;
      assert.is(partial.length, 9, "the checks made before the kill");
      const theirs = checksOf("p1");
      for (const check of partial) {
        const expected = theirs.find((c) => c.uuid === check.uuid)!;
        const sorted = (c: unknown) => String(c).split(",").sort().join(",");
        assert.equal(
          [check.name, check.n_pings, check.last_ping, sorted(check.channels)],
          [expected.name, expected.n_pings, expected.last_ping, sorted(expected.channels)],
          "each one whole",
        );
      }
      const rerun = await hcdImport(args.slice(2), {});
      assert.is(rerun.status, 0, rerun.stderr);
      assert.equal(
        { checks: rerun.summary!.checks, projects: rerun.summary!.projects },
        { checks: 7, projects: 0 },
        "the rest, in the same project",
      );
      assert.is(await differencesFromRecordings(FIXTURE, "p1", server.url, p1.api_key_rw, { history: true, bodies: false }), "");
    } finally {
      if (server !== null) assert.is(await stopServer(server), 0, server.output());
      await replay.close();
      dir.remove();
    }
  });
  test("from one real hcd into another: the second answers for every check, its pings, bodies and flips as the first does", async () => {
    const dir = tempDir();
    const [a, b] = [join(dir.path, "a"), join(dir.path, "b")];
    let first: RealServer | null = null,
      second: RealServer | null = null;
    const site = { ADMIN_TOKEN: TOKEN, SITE_ROOT: "http://hc.example.org", API_RATE_LIMIT: "0" }; // the comparison asks more than a minute's share
    try {
      assert.is((await hcdImport(["--db", join(FIXTURE, "hc.sqlite3"), "--secret-key", keys.secret_key], { DATA_DIR: a })).status, 0);
      for (const project of keys.projects) await mute({ DATA_DIR: a }, project.code);
      first = await startServer({ dataDir: a, env: site });
      const run = await hcdImport(["--from", first.url, "--api-key", p1.api_key_rw, "--ping-key", p1.ping_key, "--history"], {
        DATA_DIR: b,
      });
      assert.is(run.status, 0, run.stderr);
      // everything the first shows: the fixture's pings and flips, and the flips the first made judging the checks since
      let shownPings = 0,
        shownFlips = 0;
      for (const check of p1.checks) {
        const get = (path: string) =>
          fetch(`${first!.url}/api/v3/checks/${check.uuid}/${path}/`, { headers: { "x-api-key": p1.api_key_rw } }).then((r) => r.json());
        shownPings += ((await get("pings")) as { pings: unknown[] }).pings.length;
        shownFlips += ((await get("flips")) as unknown[]).length;
      }
      assert.equal(counts(run.summary), { projects: 1, checks: 16, channels: 8, users: 0, pings: shownPings, flips: shownFlips });
      await mute({ DATA_DIR: b }, run.stderr.match(/project "[^"]+" \(([0-9a-f-]{36})\)/)![1]);
      second = await startServer({ dataDir: b, env: site });
      const both = async (path: string) =>
        Promise.all(
          [first!, second!].map(async (server) => {
            const res = await fetch(`${server.url}${path}`, { headers: { "x-api-key": p1.api_key_rw } });
            return `${res.status} ${await res.text()}`;
          }),
        );
      const [listA, listB] = await both("/api/v3/checks/");
      assert.is(listB, listA);
      for (const check of p1.checks) {
        for (const path of [`/api/v3/checks/${check.uuid}`, `/api/v3/checks/${check.uuid}/pings/`, `/api/v3/checks/${check.uuid}/flips/`]) {
          const [fromA, fromB] = await both(path);
          assert.is(fromB, fromA, path);
        }
        const pings = JSON.parse((await both(`/api/v3/checks/${check.uuid}/pings/`))[0].slice(4)) as { pings: Json[] };
        for (const ping of pings.pings.filter((p) => p.body_url !== null)) {
          const [bodyA, bodyB] = await both(`/api/v3/checks/${check.uuid}/pings/${String(ping.n)}/body`);
          assert.is(bodyB, bodyA, `${check.name} ping ${String(ping.n)}`);
        }
      }
      assert.is((await fetch(`${second.url}/ping/${p1.ping_key}/backup-db`)).status, 200);
    } finally {
      for (const server of [first, second]) if (server !== null) assert.is(await stopServer(server), 0, server.output());
      dir.remove();
    }
  });
}

test.run();
