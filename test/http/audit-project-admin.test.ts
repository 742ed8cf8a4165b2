// The audit log of a project's own record and of its users' changes, through a real server over loopback:
// a rename, a key created anew and revoked, a status page added and removed, each through the admin API; a check paused on the dashboard by a signed-in user names the user's email.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";

const TOKEN = "audit-project-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "correct horse battery staple";
type Event = { at: string; actor: string; action: string; target: string };

test("project changes through the admin API and a user's dashboard change are recorded with their actors", async () => {
  const dir = tempDir();
  const server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
  try {
    const project = await createProject(server, TOKEN, { name: "Ops" });
    const base = `/admin/v1/projects/${project.id}`;
    const check = await ok<{ uuid: string }>(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "job" } }));

    // a member signed in by email pauses the check on the dashboard
    const user = await ok<{ id: string }>(
      call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: "ann@example.org", password: PASSWORD } }),
    );
    await ok(call(server.url, "PUT", `${base}/members/${user.id}`, { headers: admin, body: { role: "member" } }));
    const signedIn = await fetch(`${server.url}/signin/password`, {
      method: "POST",
      body: new URLSearchParams({ email: "ann@example.org", password: PASSWORD }),
      redirect: "manual",
    });
    const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0];
    const page = await (await fetch(`${server.url}/projects/${project.id}/checks`, { headers: { cookie } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
    const paused = await fetch(`${server.url}/checks/${check.uuid}/pause`, {
      method: "POST",
      body: new URLSearchParams({ csrf }),
      redirect: "manual",
      headers: { cookie },
    });
    assert.is(paused.status, 303, "paused by the member");

    await ok(call(server.url, "PUT", base, { headers: admin, body: { name: "Operations" } }));
    await ok(call(server.url, "POST", `${base}/keys/read-only`, { headers: admin }));
    assert.is((await call(server.url, "DELETE", `${base}/keys/read-only`, { headers: admin })).status, 204);
    await ok(
      call(server.url, "POST", `${base}/status-pages`, { headers: admin, body: { slug: "ops", title: "Ops", checks: [check.uuid] } }),
    );
    assert.is((await call(server.url, "DELETE", `${base}/status-pages/ops`, { headers: admin })).status, 204);
    const { events } = await ok<{ events: Event[] }>(call(server.url, "GET", `${base}/audit?limit=500`, { headers: admin }));
    assert.equal(events.map((e) => `${e.actor} | ${e.action} | ${e.target}`).reverse(), [
      `admin token | project.created | project "Ops" ${project.id}`,
      `API key (read-write) | check.created | check "job" ${check.uuid}`,
      `admin token | member.role_set | user "ann@example.org" ${user.id} as member`,
      `ann@example.org | check.paused | check "job" ${check.uuid}`,
      `admin token | project.renamed | project "Operations" ${project.id}`,
      `admin token | key.created | API key "read-only"`,
      `admin token | key.revoked | API key "read-only"`,
      `admin token | status_page.created | status page "ops"`,
      `admin token | status_page.deleted | status page "ops"`,
    ]);
    // the project's deletion is recorded too, and the event kept; its log is not listed once the project is gone
    assert.is((await call(server.url, "DELETE", base, { headers: admin })).status, 204);
    assert.is((await call(server.url, "GET", `${base}/audit`, { headers: admin })).status, 404);
  } finally {
    await stopServer(server);
    dir.remove();
  }
});

test.run();
