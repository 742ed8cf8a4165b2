// The audit log through a real server over loopback (CONTRACT "Users, roles and sign-in", last bullet):
// every change through the admin API and the Management API (v1, v2, v3) is recorded with its actor;
// a ping, a read and a refused change are not; paging and its 400s; restarts, backups and the bounds.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "../helpers.ts";
import { AuditTrail, INSTANCE_LOG } from "../../host/audit.ts";
import { addChannel, call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";
import type { RealServer } from "../security/real-server.ts";

const HCD = fileURLToPath(new URL("../../../bin/hcd.mjs", import.meta.url));
const TOKEN = "audit-api-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const env = { ADMIN_TOKEN: TOKEN, CLOCK: "virtual" };
type Event = { at: string; actor: string; action: string; target: string };
type Page = { events: Event[]; next: string | null };

const audit = (server: RealServer, projectId: string, query = "") =>
  ok<Page>(call(server.url, "GET", `/admin/v1/projects/${projectId}/audit${query}`, { headers: admin }));
const shown = (page: Page) => page.events.map((e) => `${e.actor} | ${e.action} | ${e.target}`);
const advance = (server: RealServer, seconds: number) =>
  ok<{ now: string }>(call(server.url, "POST", "/admin/v1/clock", { headers: admin, body: { advance: seconds } }));

test("each change through the admin API and API v1, v2, v3 is recorded with its actor; pings, reads and refused changes are not", async () => {
  const dir = tempDir();
  const server = await startServer({ dataDir: dir.path, env });
  try {
    const project = await createProject(server, TOKEN, { name: "Ops" });
    const p = `project "Ops" ${project.id}`;
    const key = project.api_key;
    const channel = await addChannel(server, TOKEN, project.id, { kind: "webhook", name: "hook", value: "http://127.0.0.1:9/x" });
    await ok(
      call(server.url, "PUT", `/admin/v1/projects/${project.id}/channels/${channel.id}`, {
        headers: admin,
        body: { name: "hook 2", value: "http://127.0.0.1:9/y" },
      }),
    );
    await ok(
      call(server.url, "POST", `/admin/v1/projects/${project.id}/mute`, { headers: admin, body: { until: "2099-01-01T00:00:00Z" } }),
    );
    await ok(call(server.url, "POST", `/admin/v1/projects/${project.id}/mute`, { headers: admin, body: { until: null } }));
    await ok(
      call(server.url, "PUT", `/admin/v1/projects/${project.id}/escalation`, {
        headers: admin,
        body: { escalation: [{ after: 600, channels: "hook 2" }] },
      }),
    );
    const window = await ok<{ id: string }>(
      call(server.url, "POST", `/admin/v1/projects/${project.id}/maintenance`, {
        headers: admin,
        body: { name: "nightly", schedule: "0 3 * * *", tz: "UTC", duration: 3600 },
      }),
    );
    assert.is(
      (await call(server.url, "DELETE", `/admin/v1/projects/${project.id}/maintenance/${window.id}`, { headers: admin })).status,
      204,
    );
    await ok(call(server.url, "DELETE", `/admin/v1/projects/${project.id}/channels/${channel.id}`, { headers: admin }));

    const job = await ok<{ uuid: string }>(
      call(server.url, "POST", "/api/v3/checks/", { key, body: { name: "job", timeout: 60, grace: 60 } }),
    );
    const old = await ok<{ update_url: string }>(call(server.url, "POST", "/api/v1/checks/", { key, body: { name: "old" } }));
    const oldUuid = old.update_url.split("/").pop() ?? "";
    await ok(call(server.url, "POST", `/api/v2/checks/${oldUuid}`, { key, body: { name: "older" } }));
    await ok(call(server.url, "POST", `/api/v3/checks/${job.uuid}/pause`, { key }));
    await ok(call(server.url, "POST", `/api/v3/checks/${job.uuid}/resume`, { key }));
    // a ping and reads change nothing that is recorded
    assert.is((await call(server.url, "GET", `/ping/${job.uuid}`)).status, 200);
    await ok(call(server.url, "GET", `/api/v3/checks/${job.uuid}`, { key }));
    await ok(call(server.url, "GET", "/api/v3/checks/", { key }));
    await ok(call(server.url, "GET", `/admin/v1/projects/${project.id}/channels`, { headers: admin }));
    // refused changes: invalid, read-only key, wrong token, not down
    assert.is((await call(server.url, "POST", `/api/v3/checks/${job.uuid}`, { key, body: { timeout: 1 } })).status, 400);
    assert.is((await call(server.url, "POST", `/api/v3/checks/${job.uuid}/pause`, { key: project.api_key_readonly })).status, 401);
    assert.is(
      (
        await call(server.url, "POST", `/admin/v1/projects/${project.id}/mute`, {
          headers: { authorization: "Bearer wrong" },
          body: { until: null },
        })
      ).status,
      401,
    );
    assert.is((await call(server.url, "POST", `/api/v3/checks/${job.uuid}/acknowledge`, { key })).status, 409);
    assert.is(
      (await call(server.url, "POST", `/admin/v1/projects/${project.id}/maintenance`, { headers: admin, body: { name: "x" } })).status,
      400,
    );
    await advance(server, 600); // the job goes down, so it can be acknowledged
    const acknowledged = await call(server.url, "POST", `/api/v3/checks/${job.uuid}/acknowledge`, { key });
    assert.is(acknowledged.status, 200, acknowledged.text);
    await ok(call(server.url, "DELETE", `/api/v3/checks/${oldUuid}`, { key }));

    const rw = "API key (read-write)";
    const page = await audit(server, project.id);
    assert.equal(shown(page), [
      `${rw} | check.deleted | check "older" ${oldUuid}`,
      `${rw} | check.acknowledged | check "job" ${job.uuid}`,
      `${rw} | check.resumed | check "job" ${job.uuid}`,
      `${rw} | check.paused | check "job" ${job.uuid}`,
      `${rw} | check.updated | check "older" ${oldUuid}`,
      `${rw} | check.created | check "old" ${oldUuid}`,
      `${rw} | check.created | check "job" ${job.uuid}`,
      `admin token | channel.removed | webhook integration "hook 2" ${channel.id}`,
      `admin token | maintenance.removed | maintenance window "nightly" ${window.id}`,
      `admin token | maintenance.added | maintenance window "nightly" ${window.id}`,
      `admin token | project.escalation_set | ${p}`,
      `admin token | project.unmuted | ${p}`,
      `admin token | project.muted | ${p}`,
      `admin token | channel.updated | webhook integration "hook 2" ${channel.id}`,
      `admin token | channel.added | webhook integration "hook" ${channel.id}`,
      `admin token | project.created | ${p}`,
    ]);
    const { now } = await ok<{ now: string }>(call(server.url, "GET", "/admin/v1/clock", { headers: admin }));
    assert.is(page.events[0].at, now, "stamped with the server's clock");
    assert.is(page.next, null);
    // no secret of the project appears anywhere in the log
    const text = JSON.stringify(page);
    for (const secret of [project.api_key, project.api_key_readonly, project.ping_key, TOKEN]) assert.not.ok(text.includes(secret));
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    dir.remove();
  }
});

test("pages newest first with limit and before; bad values are a 400, an unknown project a 404, no token a 401", async () => {
  const dir = tempDir();
  const server = await startServer({ dataDir: dir.path, env });
  try {
    const project = await createProject(server, TOKEN, { name: "paged" });
    for (const name of ["a", "b", "c", "d"])
      await ok(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name } }));
    const first = await audit(server, project.id, "?limit=2");
    assert.equal(
      first.events.map((e) => e.target.split(" ")[1]),
      ['"d"', '"c"'],
    );
    assert.type(first.next, "string");
    const second = await audit(server, project.id, `?limit=2&before=${first.next}`);
    assert.equal(
      second.events.map((e) => e.target.split(" ")[1]),
      ['"b"', '"a"'],
    );
    const third = await audit(server, project.id, `?limit=2&before=${second.next}`);
    assert.equal(shown(third), [`admin token | project.created | project "paged" ${project.id}`]);
    assert.is(third.next, null);
    for (const query of ["?limit=0", "?limit=501", "?limit=abc", "?limit=", "?before=0", "?before=x", "?before=-3", "?limit=1.5"]) {
      const answer = await call(server.url, "GET", `/admin/v1/projects/${project.id}/audit${query}`, { headers: admin });
      assert.is(answer.status, 400, query);
      assert.type((JSON.parse(answer.text) as { error: unknown }).error, "string");
    }
    assert.is((await call(server.url, "GET", "/admin/v1/projects/nope/audit", { headers: admin })).status, 404);
    assert.is((await call(server.url, "GET", `/admin/v1/projects/${project.id}/audit`)).status, 401);
    assert.is((await call(server.url, "GET", `/admin/v1/projects/${project.id}/audit`, { key: project.api_key })).status, 401);
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    dir.remove();
  }
});

test("the log survives a restart and is in a backup (of a running server and of a stopped DATA_DIR): a server on the restored directory lists the same events", async () => {
  const dir = tempDir();
  const original = join(dir.path, "original"),
    restored = join(dir.path, "restored"),
    file = join(dir.path, "hcd.backup");
  let server = await startServer({ dataDir: original, env });
  try {
    const project = await createProject(server, TOKEN, { name: "kept" });
    await ok(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "nightly" } }));
    const before = await audit(server, project.id);
    assert.is(before.events.length, 2);
    assert.is(await stopServer(server), 0, server.output());
    server = await startServer({ dataDir: original, env });
    assert.equal(await audit(server, project.id), before, "the same events after a restart");
    await ok(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "after restart" } }));
    const all = await audit(server, project.id);
    assert.equal(all.events.slice(1), before.events, "a new event goes on top of the old ones");
    const backup = spawnSync(process.execPath, [HCD, "backup", "--out", file, "--url", server.url, "--token", TOKEN], { encoding: "utf8" });
    assert.is(backup.status, 0, backup.stderr);
    const restore = spawnSync(process.execPath, [HCD, "restore", "--in", file, "--data-dir", restored], { encoding: "utf8" });
    assert.is(restore.status, 0, restore.stderr);
    assert.is(await stopServer(server), 0, server.output());
    server = await startServer({ dataDir: restored, env });
    assert.equal(await audit(server, project.id), all, "the restored directory has every event");
    // a backup of a stopped DATA_DIR has them too
    const offline = join(dir.path, "offline.backup"),
      again = join(dir.path, "again");
    const stopped = spawnSync(process.execPath, [HCD, "backup", "--out", offline], {
      encoding: "utf8",
      env: { ...process.env, DATA_DIR: original },
    });
    assert.is(stopped.status, 0, stopped.stderr);
    const trail = AuditTrail.open(original); // each backup is in the instance's log of the directory it copied
    const taken = (await trail.page(INSTANCE_LOG, { limit: 50, before: null })).events.map((e) => `${e.actor} | ${e.action}`);
    await trail.close();
    assert.equal(
      taken.filter((line) => line.endsWith("backup.created")),
      ["hcd backup | backup.created", "admin token | backup.created"],
    );
    assert.is(spawnSync(process.execPath, [HCD, "restore", "--in", offline, "--data-dir", again], { encoding: "utf8" }).status, 0);
    assert.is(await stopServer(server), 0, server.output());
    server = await startServer({ dataDir: again, env });
    assert.equal(await audit(server, project.id), all, "a backup of the stopped directory has every event");
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    dir.remove();
  }
});

test("a project keeps at most AUDIT_MAX_EVENTS events of each actor's each action, and none older than AUDIT_MAX_AGE_DAYS", async () => {
  const dir = tempDir();
  const server = await startServer({ dataDir: dir.path, env: { ...env, AUDIT_MAX_EVENTS: "3", AUDIT_MAX_AGE_DAYS: "2" } });
  try {
    const project = await createProject(server, TOKEN, { name: "bounded" });
    const create = (name: string) => ok(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name } }));
    for (const name of ["a", "b", "c", "d"]) await create(name);
    const names = async () => (await audit(server, project.id)).events.map((e) => e.target.split(" ")[1]);
    assert.equal(
      await names(),
      ['"d"', '"c"', '"b"', '"bounded"'],
      "the key's oldest check.created went; the admin token's project.created stays",
    );
    await advance(server, 86_400);
    await create("e");
    assert.equal(await names(), ['"e"', '"d"', '"c"', '"bounded"']);
    await advance(server, 86_400 + 60); // d, c and the project's creation are now older than two days, e is not
    await create("f");
    assert.equal(await names(), ['"f"', '"e"']);
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    dir.remove();
  }
});

test.run();
