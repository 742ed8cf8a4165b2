// Writes refused by role against a real hcd process on loopback: a readonly member posting straight to
// every write form of the dashboard (with the session's own valid CSRF token, as a forged request would)
// is refused on each and the project stays as it was; a member removed (or lowered to readonly) while
// their session is open is refused on that session's very next write.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import type { ProjectJson, RealServer } from "../security/real-server.ts";
import { call, createProject, dumpProject, ok, startServer, stopServer } from "../security/real-server.ts";

const TOKEN = "role-writes-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "correct horse battery";

const dir = tempDir();
let server: RealServer;
let project: ProjectJson;
let checkId = "";
let channelId = "";

test.before(async () => {
  server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
  project = await createProject(server, TOKEN, { name: "Ops" });
  checkId = (await ok<{ uuid: string }>(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "backup" } })))
    .uuid;
  channelId = (
    await ok<{ id: string }>(
      call(server.url, "POST", `/admin/v1/projects/${project.id}/channels`, {
        headers: admin,
        body: { name: "hook", kind: "webhook", value: "http://127.0.0.1:9/hook" },
      }),
    )
  ).id;
});
test.after(async () => {
  if (server) assert.is(await stopServer(server), 0, server.output());
  dir.remove();
});

async function post(path: string, fields: Record<string, string>, cookie = "") {
  const response = await fetch(server.url + path, {
    method: "POST",
    body: new URLSearchParams(fields),
    redirect: "manual",
    headers: { cookie },
  });
  return { status: response.status, text: await response.text(), cookie: (response.headers.get("set-cookie") ?? "").split(";")[0] };
}
/** A new user with `role` in the project, signed in: their id, session cookie and the CSRF token of their pages. */
async function signedIn(email: string, role: string) {
  const user = await ok<{ id: string }>(
    call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email, password: PASSWORD } }),
  );
  await ok(call(server.url, "PUT", `/admin/v1/projects/${project.id}/members/${user.id}`, { headers: admin, body: { role } }));
  const { cookie } = await post("/signin/password", { email, password: PASSWORD });
  const page = await fetch(`${server.url}/projects/${project.id}/checks`, { headers: { cookie } });
  assert.is(page.status, 200);
  return { id: user.id, cookie, csrf: /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? "" };
}
/** Everything a write could change: the checks, pings, flips, channels and badges, the project, its members, windows, status pages, audit log. */
async function everything(): Promise<string> {
  const adminGet = (path: string) => ok(call(server.url, "GET", path, { headers: admin }));
  const base = `/admin/v1/projects/${project.id}`;
  return JSON.stringify({
    api: await dumpProject(server.url, project),
    project: await adminGet(base),
    members: await adminGet(`${base}/members`),
    maintenance: await adminGet(`${base}/maintenance`),
    statusPages: await adminGet(`${base}/status-pages`),
    audit: await adminGet(`${base}/audit`),
  });
}

test("a readonly member's posts to every write form are refused and change nothing", async () => {
  const reader = await signedIn("reader@example.org", "readonly");
  const p = `/projects/${project.id}`;
  const writes: [string, Record<string, string>][] = [
    [`${p}/checks/new`, { name: "sneaky", kind: "simple", timeout: "3600", grace: "3600" }],
    [`/checks/${checkId}/edit`, { name: "renamed" }],
    [`/checks/${checkId}/integrations`, { channel: channelId, on: "1" }],
    [`/checks/${checkId}/pause`, {}],
    [`/checks/${checkId}/resume`, {}],
    [`/checks/${checkId}/delete`, {}],
    [`/checks/${checkId}/acknowledge`, {}],
    [`/checks/${checkId}/ping`, {}],
    [`${p}/integrations`, { kind: "webhook", name: "evil", value: "http://127.0.0.1:9/evil" }],
    [`${p}/integrations/${channelId}/edit`, { name: "evil", value: "http://127.0.0.1:9/evil" }],
    [`${p}/integrations/${channelId}/remove`, {}],
    [`${p}/integrations/${channelId}/test`, {}],
    [`${p}/keys/api_key`, {}],
    [`${p}/keys/api_key/revoke`, {}],
    [`${p}/maintenance`, { title: "quiet", starts: "2030-01-01T00:00", ends: "2030-01-02T00:00" }],
    [`${p}/status-pages`, { slug: "leak", title: "Leak", checks: checkId }],
    [`${p}/members`, { email: "reader@example.org", role: "owner" }],
    [`${p}/members`, { email: "friend@example.org", role: "readonly" }],
    [`${p}/members/${reader.id}/remove`, {}],
    [`${p}/mute`, { until: "2100-01-01T00:00:00Z" }],
    [`${p}/rename`, { name: "Mine" }],
    [`${p}/delete`, {}],
  ];
  const before = await everything();
  const answers = [];
  for (const [path, fields] of writes) answers.push([path, (await post(path, { csrf: reader.csrf, ...fields }, reader.cookie)).status]);
  assert.is(await everything(), before, "nothing changed");
  assert.equal(
    answers,
    writes.map(([path]) => [path, 403]),
    "every write refused with 403",
  );
  const users = await ok<{ users: { email: string }[] }>(call(server.url, "GET", "/admin/v1/users", { headers: admin }));
  assert.not.ok(
    users.users.some((u) => u.email === "friend@example.org"),
    "no user invited",
  );
});

test("a member removed, or lowered to readonly, while signed in is refused on the session's next write", async () => {
  const check = (
    await ok<{ uuid: string }>(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "nightly" } }))
  ).uuid;
  const paused = async () =>
    (await ok<{ status: string }>(call(server.url, "GET", `/api/v3/checks/${check}`, { key: project.api_key }))).status === "paused";
  const lowered = await signedIn("lowered@example.org", "member");
  const removed = await signedIn("removed@example.org", "member");
  assert.is((await post(`/checks/${check}/pause`, { csrf: lowered.csrf }, lowered.cookie)).status, 303, "a member may pause");
  assert.ok(await paused());
  await ok(
    call(server.url, "PUT", `/admin/v1/projects/${project.id}/members/${lowered.id}`, { headers: admin, body: { role: "readonly" } }),
  );
  assert.is((await post(`/checks/${check}/resume`, { csrf: lowered.csrf }, lowered.cookie)).status, 403);
  assert.ok(await paused(), "still paused");

  assert.is((await call(server.url, "DELETE", `/admin/v1/projects/${project.id}/members/${removed.id}`, { headers: admin })).status, 204);
  assert.is(
    (await post(`/checks/${check}/resume`, { csrf: removed.csrf }, removed.cookie)).status,
    404,
    "the project is not theirs any more",
  );
  assert.is((await post(`/projects/${project.id}/rename`, { csrf: removed.csrf, name: "Gone" }, removed.cookie)).status, 404);
  assert.ok(await paused(), "still paused");
  assert.is((await ok<{ name: string }>(call(server.url, "GET", `/admin/v1/projects/${project.id}`, { headers: admin }))).name, "Ops");
  const { events } = await ok<{ events: { actor: string; action: string; target: string }[] }>(
    call(server.url, "GET", `/admin/v1/projects/${project.id}/audit`, { headers: admin }),
  );
  assert.equal(
    events
      .filter((e) => e.action.startsWith("member."))
      .slice(0, 2)
      .map((e) => [e.actor, e.action, e.target]),
    [
      ["admin token", "member.removed", `user "removed@example.org" ${removed.id}`],
      ["admin token", "member.role_set", `user "lowered@example.org" ${lowered.id} as readonly`],
    ],
    "the role changes are in the audit log, newest first",
  );
});

test.run();
