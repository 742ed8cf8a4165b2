// Online backup and restore end to end: pings under load, `hcd backup --url` mid-load, `hcd restore` into
// a fresh directory, hcd started there: every ping acknowledged before the backup began is in its check's
// log, and the checks that the load left alone have the same status, flips and deadlines (a deadline
// fires at its old due time). Restore refuses a non-empty directory and truncated or corrupt files.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createInProcessPool } from "../../app/pools.ts";
import { tempDir } from "../helpers.ts";
import { hcdHere } from "./cli-here.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";
import type { ProjectJson, RealServer } from "../security/real-server.ts";

const HCD = fileURLToPath(new URL("../../../bin/hcd.mjs", import.meta.url));
const ADMIN = "admin-token-backup-test-0123456789";
type Json = Record<string, unknown>;

/** Runs the CLI in a child process (the test's own event loop keeps pinging meanwhile). */
function hcd(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [HCD, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "",
      stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.once("exit", (status) => resolve({ status, stdout, stderr }));
  });
}

const api = (server: RealServer, project: ProjectJson) => ({
  check: (uuid: string) => ok<Json>(call(server.url, "GET", `/api/v3/checks/${uuid}`, { key: project.api_key })),
  flips: (uuid: string) => ok<Json[]>(call(server.url, "GET", `/api/v3/checks/${uuid}/flips/`, { key: project.api_key })),
  pings: (uuid: string) => ok<{ pings: Json[] }>(call(server.url, "GET", `/api/v3/checks/${uuid}/pings/`, { key: project.api_key })),
  create: (body: Json) => ok<Json>(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body })),
});

test("a backup taken under load restores every acknowledged ping, status, flip and deadline", async () => {
  const dir = tempDir();
  const original = join(dir.path, "original"),
    restored = join(dir.path, "restored"),
    file = join(dir.path, "hcd.backup");
  const env = { ADMIN_TOKEN: ADMIN, CLOCK: "virtual", SITE_ROOT: "http://hc.test" }; // URLs must not name the port
  let server = await startServer({ dataDir: original, env });
  try {
    // several projects, so that both shards own some
    const projects: { project: ProjectJson; loaded: string[]; still: { up: string; down: string; paused: string } }[] = [];
    for (let p = 0; p < 4; p++) {
      const project = await createProject(server, ADMIN, { name: `p${p}`, ping_log_limit: 1000 });
      const a = api(server, project);
      const loaded: string[] = [];
      for (let i = 0; i < 2; i++) loaded.push((await a.create({ name: `load${i}` })).uuid as string);
      const up = (await a.create({ name: "up", timeout: 3600, grace: 600 })).uuid as string;
      const down = (await a.create({ name: "down" })).uuid as string;
      const paused = (await a.create({ name: "paused" })).uuid as string;
      for (const [path, status] of [
        [up, 200],
        [down, 200],
        [`${down}/fail`, 200],
      ] as const) {
        assert.is((await fetch(`${server.url}/ping/${path}`)).status, status);
      }
      assert.is((await call(server.url, "POST", `/api/v3/checks/${paused}/pause`, { key: project.api_key })).status, 200);
      projects.push({ project, loaded, still: { up, down, paused } });
    }

    // the load: 8 clients pinging the loaded checks, each ping named by its user agent
    const acked: { uuid: string; ua: string; at: number }[] = [];
    let stop = false,
      sent = 0;
    const targets = projects.flatMap((p) => p.loaded);
    const client = async () => {
      while (!stop) {
        const n = sent++;
        const uuid = targets[n % targets.length];
        const res = await fetch(`${server.url}/ping/${uuid}`, { headers: { "user-agent": `load-${n}` } });
        await res.text();
        if (res.status === 200) acked.push({ uuid, ua: `load-${n}`, at: performance.now() });
      }
    };
    const clients = Array.from({ length: 8 }, client);
    const waitAcked = async (count: number) => {
      while (acked.length < count) await new Promise((r) => setTimeout(r, 5));
    };
    await waitAcked(200);
    const backupBegan = performance.now();
    const backup = await hcd(["backup", "--out", file, "--url", server.url, "--token", ADMIN]);
    const ackedDuringBackup = acked.filter((a) => a.at > backupBegan).length;
    const afterBackup = acked.length;
    await waitAcked(afterBackup + 100); // the load goes on after the backup, too
    stop = true;
    await Promise.all(clients);
    assert.is(backup.status, 0, backup.stderr);
    assert.ok(ackedDuringBackup > 0, "pings were acknowledged while the backup ran");
    const before = acked.filter((a) => a.at < backupBegan);

    // the untouched checks as the original server shows them
    const expected = new Map<string, { check: Json; flips: Json[] }>();
    for (const { project, still } of projects) {
      for (const uuid of Object.values(still))
        expected.set(uuid, { check: await api(server, project).check(uuid), flips: await api(server, project).flips(uuid) });
    }
    assert.is(await stopServer(server), 0);

    const restore = await hcd(["restore", "--in", file, "--data-dir", restored]);
    assert.is(restore.status, 0, restore.stderr);
    // the badge secret comes along (owner-only), so published badge URLs answer the same after a restore
    assert.equal(readFileSync(join(restored, "badge-secret")), readFileSync(join(original, "badge-secret")));
    assert.is(statSync(join(restored, "badge-secret")).mode & 0o777, 0o600);
    const again = await hcd(["restore", "--in", file, "--data-dir", restored]);
    assert.is(again.status, 1);
    assert.match(again.stderr, "is not empty");

    server = await startServer({ dataDir: restored, env });
    for (const { project, loaded, still } of projects) {
      const a = api(server, project);
      for (const uuid of loaded) {
        const logged = new Set((await a.pings(uuid)).pings.map((p) => p.ua));
        const missing = before.filter((p) => p.uuid === uuid && !logged.has(p.ua)).map((p) => p.ua);
        assert.equal(missing, [], `pings acknowledged before the backup are missing from ${uuid}`);
      }
      for (const uuid of Object.values(still)) {
        const want = expected.get(uuid) as { check: Json; flips: Json[] };
        assert.equal(await a.check(uuid), want.check);
        assert.equal(await a.flips(uuid), want.flips);
      }
    }
    // the up checks' deadlines are intact: each goes down at its old next_ping + grace
    await ok(call(server.url, "POST", "/admin/v1/clock", { headers: { authorization: `Bearer ${ADMIN}` }, body: { advance: 4300 } }));
    for (const { project, still } of projects) {
      const a = api(server, project);
      const dueAt = Date.parse(String(expected.get(still.up)?.check.next_ping)) + 600_000;
      const flips = await a.flips(still.up);
      assert.is(flips[0].up, 0);
      assert.is(Date.parse(String(flips[0].timestamp)), dueAt);
      assert.is((await a.check(still.up)).status, "down");
    }
    console.log(
      `backup under load: ${before.length} pings acknowledged before it, ${ackedDuringBackup} during it, ${readFileSync(file).length} bytes`,
    );
  } finally {
    await stopServer(server);
    dir.remove();
  }
});

test("restore refuses a truncated or corrupt file and leaves the directory empty; backup works on a stopped DATA_DIR", async () => {
  const dir = tempDir();
  const data = join(dir.path, "data"),
    file = join(dir.path, "b");
  try {
    const pool = await createInProcessPool({
      dataDir: data,
      shards: 2,
      durability: "commit",
      startAt: Date.now(),
      clock: "virtual",
      notify: { siteRoot: "http://hc.test", allowPrivateIps: false, smtpUrl: null },
    });
    const project = await pool.createProject({ name: "p", checkLimit: 20, pingLogLimit: 100, pingBodyLimit: 100 }, Date.now());
    assert.ok((await pool.createCheck(project.id, { name: "c" }, [], Date.now())).ok);
    await pool.close();

    const backup = await hcdHere(["backup", "--out", file], { DATA_DIR: data });
    assert.is(backup.status, 0, backup.stderr);
    const whole = readFileSync(file);
    const cases: [string, Buffer, string][] = [
      ["truncated", whole.subarray(0, whole.length - 1000), "is truncated"],
      ["headless", whole.subarray(0, 20), "is truncated"],
      [
        "flipped",
        Buffer.concat([whole.subarray(0, 5000), Buffer.from([whole[5000] ^ 0xff]), whole.subarray(5001)]),
        "checksum does not match",
      ],
      ["foreign", Buffer.from("PK\u0003\u0004 not a backup at all"), "is not an hcd backup"],
    ];
    for (const [name, bytes, reason] of cases) {
      const bad = join(dir.path, `${name}.backup`),
        target = join(dir.path, `into-${name}`);
      writeFileSync(bad, bytes);
      const res = await hcdHere(["restore", "--in", bad, "--data-dir", target], {});
      assert.is(res.status, 1, name);
      assert.match(res.stderr, reason, name);
      let left: string[] = [];
      try {
        left = readdirSync(target);
      } catch {
        /* never created */
      }
      assert.equal(left, [], `${name}: nothing left behind`);
    }
    // the good one restores the same project and check
    const restored = join(dir.path, "restored");
    assert.is((await hcdHere(["restore", "--in", file, "--data-dir", restored], {})).status, 0);
    const again = await createInProcessPool({
      dataDir: restored,
      shards: 1,
      durability: "commit",
      startAt: Date.now(),
      clock: "virtual",
      passive: true,
      notify: { siteRoot: "http://hc.test", allowPrivateIps: false, smtpUrl: null },
    });
    try {
      assert.equal(
        again.listProjects().map((p) => [p.id, p.apiKey]),
        [[project.id, project.apiKey]],
      );
      assert.equal(
        (await again.listChecks(project.id, { tags: [] })).map((c) => c.name),
        ["c"],
      );
    } finally {
      await again.close();
    }
  } finally {
    dir.remove();
  }
});

test("backups need the admin token and POST; a client that leaves mid-backup leaves no scratch copy behind", async () => {
  const dir = tempDir();
  const data = join(dir.path, "data");
  const server = await startServer({ dataDir: data, env: { ADMIN_TOKEN: ADMIN } });
  try {
    const project = await createProject(server, ADMIN, { name: "p" });
    await api(server, project).create({ name: "c" });
    assert.is((await fetch(`${server.url}/admin/v1/backup`, { method: "POST" })).status, 401);
    assert.is((await fetch(`${server.url}/admin/v1/backup`, { method: "POST", headers: { authorization: "Bearer nope" } })).status, 401);
    assert.is((await fetch(`${server.url}/admin/v1/backup`, { headers: { authorization: `Bearer ${ADMIN}` } })).status, 405);
    const refused = await hcd(["backup", "--out", join(dir.path, "x"), "--url", server.url, "--token", "nope"]);
    assert.is(refused.status, 1);
    assert.match(refused.stderr, "backup refused by the server: 401");
    assert.equal(readdirSync(dir.path).sort(), ["data"], "no file written");

    const abort = new AbortController();
    const res = await fetch(`${server.url}/admin/v1/backup`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}` },
      signal: abort.signal,
    });
    assert.is(res.status, 200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    assert.equal(
      Buffer.from(first.value ?? [])
        .subarray(0, 11)
        .toString(),
      "HCDBACKUP1\n",
    );
    abort.abort();
    // the scratch directory goes once the server notices; wait for it (bounded)
    const scratch = () => readdirSync(data).filter((name) => name.startsWith(".backup-"));
    for (let tries = 0; tries < 100 && scratch().length > 0; tries++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(scratch(), []);
    const file = join(dir.path, "after.backup");
    const again = await hcd(["backup", "--out", file, "--url", server.url, "--token", ADMIN]);
    assert.is(again.status, 0, again.stderr);
    assert.equal(scratch(), []);
    assert.equal(
      readdirSync(dir.path).filter((name) => name.includes(".partial")),
      [],
      "no partial file left",
    );
  } finally {
    await stopServer(server);
    dir.remove();
  }
});

test.run();
