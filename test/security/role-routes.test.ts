// Every write route against engine/roles.ts, on a real server over HTTP: for each dashboard POST route the
// least role the table gives its action gets through and the role just below is refused (403), as is the
// read-only key's session; the Management API's writes take the read-write key and refuse the read-only
// one; the admin API's take neither. The routes come from the app itself (h3's route list, the API's
// allowed methods): a route without a row here fails the first test.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Action, Role } from "../../engine/roles.ts";
import { leastRoleFor, ROLES } from "../../engine/roles.ts";
import { tempDir } from "../helpers.ts";
import { withApi } from "../http/harness.ts";
import type { ProjectJson, RealServer } from "./real-server.ts";
import { addChannel, call, createProject, ok, startServer, stopServer } from "./real-server.ts";
import { csrfOf, postForm, signInKey, signInUser } from "./form-client.ts";

const TOKEN = "role-routes-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "a role's password";

/** What a row's post needs: the project, and the objects the setup made. */
type Made = {
  project: ProjectJson;
  check: string;
  down: string;
  paused: string;
  channel: string;
  window: string;
  slug: string;
  target: string;
  /** A user invited to the project as readonly who has not joined yet. */
  invitee: string;
};
/** A dashboard write route: the action of engine/roles.ts it is checked against, or why roles do not apply; the form it posts. */
type Row = {
  route: string;
  label?: string;
  action: Action | "admin token only" | "no project role";
  fields?: (made: Made) => Record<string, string>;
};

let madeUsers = 0;
const ROWS: Row[] = [
  { route: "/projects", action: "admin token only", fields: () => ({ name: "made by a user" }) },
  { route: "/users", action: "admin token only", fields: () => ({ email: `made-${++madeUsers}@corp.example`, admin: "1" }) },
  { route: "/users/:user/admin", action: "admin token only", fields: () => ({ admin: "1" }) },
  { route: "/users/:user/remove", action: "admin token only" },
  {
    route: "/projects/:project/checks/new",
    action: "checks.change",
    fields: () => ({ name: "added", kind: "simple", timeout: "1", timeout_unit: "hours", grace: "1", grace_unit: "hours" }),
  },
  {
    route: "/checks/:ref/edit",
    action: "checks.change",
    fields: () => ({ name: "edited", kind: "simple", timeout: "2", timeout_unit: "hours", grace: "1", grace_unit: "hours" }),
  },
  { route: "/checks/:ref/pause", action: "checks.change" },
  { route: "/checks/:ref/resume", action: "checks.change" },
  { route: "/checks/:ref/ping", action: "checks.change" },
  { route: "/checks/:ref/acknowledge", action: "checks.change" },
  { route: "/checks/:ref/delete", action: "checks.change" },
  { route: "/checks/:ref/integrations", action: "checks.integrations", fields: (m) => ({ channel: m.channel, on: "1" }) },
  { route: "/projects/:project/integrations/:channel/test", action: "integrations.test" },
  {
    route: "/projects/:project/integrations",
    action: "integrations.change",
    fields: () => ({ kind: "webhook", name: "added hook", value: "http://127.0.0.1:9/added" }),
  },
  {
    route: "/projects/:project/integrations/add/:kind",
    action: "integrations.change",
    fields: () => ({ form: "fields", name: "team", "f.url": "https://hooks.slack.test/services/T/B/x" }),
  },
  {
    route: "/projects/:project/integrations/:channel/edit",
    action: "integrations.change",
    fields: () => ({ name: "edited hook", value: "http://127.0.0.1:9/edited" }),
  },
  { route: "/projects/:project/integrations/:channel/remove", action: "integrations.change" },
  {
    route: "/projects/:project/escalation",
    action: "integrations.change",
    fields: (m) => ({ step_1_after: "600", step_1_channels: m.channel }),
  },
  { route: "/projects/:project/keys/:kind", action: "keys.change" },
  { route: "/projects/:project/keys/:kind/revoke", action: "keys.change" },
  {
    route: "/projects/:project/members",
    label: "a role below owner",
    action: "members.change",
    fields: () => ({ email: "newcomer@corp.example", role: "readonly" }),
  },
  {
    route: "/projects/:project/members",
    label: "the owner role",
    action: "project.change",
    fields: () => ({ email: "newowner@corp.example", role: "owner" }),
  },
  { route: "/projects/:project/members/:user/remove", action: "members.change" },
  { route: "/projects/:project/invitations/:user/cancel", action: "members.change" },
  {
    route: "/projects/:project/status-pages",
    action: "statusPages.change",
    fields: (m) => ({ slug: `new-${m.slug}`, title: "Added", check: m.check }),
  },
  {
    route: "/projects/:project/status-pages/:slug/edit",
    action: "statusPages.change",
    fields: (m) => ({ title: "Edited", description: "edited", check: m.check }),
  },
  { route: "/projects/:project/status-pages/:slug/delete", action: "statusPages.change" },
  { route: "/projects/:project/mute", action: "project.change", fields: () => ({ until: "2100-01-01T00:00:00Z" }) },
  {
    route: "/projects/:project/maintenance",
    action: "project.change",
    fields: () => ({ name: "quiet", schedule: "0 3 * * *", tz: "UTC", duration: "3600" }),
  },
  { route: "/projects/:project/maintenance/:window/delete", action: "project.change" },
  { route: "/projects/:project/rename", action: "project.change", fields: () => ({ name: "Renamed" }) },
  {
    route: "/projects/:project/limits",
    action: "admin token only",
    fields: () => ({ check_limit: "500", ping_log_limit: "200", ping_body_limit: "20000" }),
  },
  { route: "/projects/:project/delete", action: "project.change" },
  // a session's own: sign-in, sign-out, the account's settings (each asks its own proof), links, resets
  ...[
    "/signin",
    "/signin/password",
    "/signin/code",
    "/signin/oidc",
    "/signout",
    "/account/sessions/signout",
    "/account/second-factor/on",
    "/account/second-factor/off",
    "/account/password",
    "/account/email",
    "/account/delete",
    "/account/reports",
    "/invite/:token",
    "/reset",
  ].map((route): Row => ({ route, action: "no project role" })),
];

/** The Management API's writes: each takes the read-write key and refuses the read-only one. */
const API_WRITES: [method: string, route: string][] = [
  ["POST", "/api/:version/checks"],
  ["POST", "/api/:version/checks/:id"],
  ["POST", "/api/:version/checks/:id/pause"],
  ["POST", "/api/:version/checks/:id/resume"],
  ["POST", "/api/:version/checks/:id/acknowledge"],
  ["DELETE", "/api/:version/checks/:id"],
];

let server: RealServer;
const dir = tempDir();
const cookies = new Map<Role, string>();
let instanceAdmin = ""; // a user with "admin": true and no role in any project
const userIds = new Map<Role, string>();
let dashboardPosts: string[] = [];
const apiRoutes: { route: string; methods: string[] }[] = [];
const adminRoutes: string[] = [];

test.before(async () => {
  await withApi(
    async (api) => {
      // the routes as the app registers them (the same createApp the server runs)
      const routes = (api.app as unknown as { "~routes": { method?: string; route: string }[] })["~routes"];
      dashboardPosts = [...new Set(routes.filter((r) => r.method === "POST").map((r) => r.route))];
      for (const { route, method } of routes) {
        if (method !== undefined && method !== "") continue;
        if (route.startsWith("/admin/")) adminRoutes.push(route);
        if (!route.startsWith("/api/")) continue;
        const probe = await api.app.request(
          route.replace(":version", "v3").replace(":id", "00000000-0000-4000-8000-000000000000").replace(":n", "1"),
          { method: "OPTIONS" },
        );
        const methods = (probe.headers.get("access-control-allow-methods") ?? probe.headers.get("allow") ?? "")
          .split(",")
          .map((m) => m.trim())
          .filter((m) => !["GET", "HEAD", "OPTIONS", ""].includes(m));
        apiRoutes.push({ route, methods });
      }
    },
    {
      env: {
        OIDC_ISSUER: "http://127.0.0.1:9/issuer",
        OIDC_CLIENT_ID: "hcd",
        OIDC_CLIENT_SECRET: "role-routes-secret",
        SMTP_URL: "smtp://127.0.0.1:9",
      },
    },
  );
  server = await startServer({
    dataDir: dir.path,
    env: { ADMIN_TOKEN: TOKEN, INTEGRATIONS_ALLOW_PRIVATE_IPS: "true", API_RATE_LIMIT: "0" },
  });
  for (const role of ROLES) {
    const user = await ok<{ id: string }>(
      call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: `${role}@corp.example`, password: PASSWORD } }),
    );
    userIds.set(role, user.id);
    cookies.set(role, (await signInUser(server, `${role}@corp.example`, PASSWORD)).cookie);
  }
  await ok(
    call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: "root@corp.example", password: PASSWORD, admin: true } }),
  );
  instanceAdmin = (await signInUser(server, "root@corp.example", PASSWORD)).cookie;
});
test.after(async () => {
  if (server) assert.is(await stopServer(server), 0, server.output());
  dir.remove();
});

test("every dashboard POST route, and every Management API write, has its row", () => {
  assert.ok(dashboardPosts.length >= 30 && apiRoutes.length >= 10, `${dashboardPosts.length} POST routes, ${apiRoutes.length} API routes`);
  assert.equal(
    dashboardPosts.filter((route) => !ROWS.some((row) => row.route === route)),
    [],
    "dashboard POST routes without a row",
  );
  assert.equal(
    ROWS.filter((row) => !dashboardPosts.includes(row.route)).map((row) => row.route),
    [],
    "rows of no route",
  );
  const writes = apiRoutes.flatMap(({ route, methods }) => methods.map((method) => `${method} ${route}`));
  const simulate = "POST /api/:version/checks/:id/simulate"; // a what-if: changes nothing, and a read-only key may ask it
  // Alertmanager's webhook pings with the project's ping key, as /ping/ does: not a Management API write
  const pings = ["POST /api/alertmanager/:key", "POST /api/alertmanager"];
  assert.equal(
    writes.filter((write) => write !== simulate && !pings.includes(write) && !API_WRITES.some(([m, r]) => `${m} ${r}` === write)),
    [],
    "API writes without a row",
  );
});

/** A fresh project with the four users in their roles, a check, a down check, a paused check, a webhook, a maintenance window, a status page, a readonly member to remove. */
async function fresh(): Promise<Made> {
  const project = await createProject(server, TOKEN, { name: "Roles" });
  for (const [role, id] of userIds)
    await ok(call(server.url, "PUT", `/admin/v1/projects/${project.id}/members/${id}`, { headers: admin, body: { role } }));
  const newCheck = async (name: string) =>
    (await ok<{ uuid: string }>(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name } }))).uuid;
  const check = await newCheck("checked"),
    down = await newCheck("failing"),
    paused = await newCheck("paused");
  await call(server.url, "POST", `/ping/${check}`);
  await call(server.url, "POST", `/ping/${down}/fail`);
  await ok(call(server.url, "POST", `/api/v3/checks/${paused}/pause`, { key: project.api_key }));
  const channel = (await addChannel(server, TOKEN, project.id, { kind: "webhook", name: "hook", value: "http://127.0.0.1:9/hook" })).id;
  const base = `/admin/v1/projects/${project.id}`;
  const window = (
    await ok<{ id: string }>(
      call(server.url, "POST", `${base}/maintenance`, {
        headers: admin,
        body: { name: "nightly", schedule: "0 3 * * *", tz: "UTC", duration: 3600 },
      }),
    )
  ).id;
  const slug = `roles-${project.id.slice(0, 8)}`;
  await ok(call(server.url, "POST", `${base}/status-pages`, { headers: admin, body: { slug, title: "Roles", checks: [check] } }));
  const target = (
    await ok<{ id: string }>(
      call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: `target-${slug}@corp.example`, password: PASSWORD } }),
    )
  ).id;
  await ok(call(server.url, "PUT", `${base}/members/${target}`, { headers: admin, body: { role: "readonly" } }));
  adminSession ||= await signInKey(server.url, TOKEN);
  const inviteeEmail = `invitee-${slug}@corp.example`;
  const invited = await postForm(
    server.url,
    `/projects/${project.id}/members`,
    { csrf: await csrfOf(server.url, adminSession, "/"), email: inviteeEmail, role: "readonly" },
    { cookie: adminSession },
  );
  assert.is(invited.status, 200, invited.text.slice(0, 200));
  const { users } = await ok<{ users: { id: string; email: string }[] }>(call(server.url, "GET", "/admin/v1/users", { headers: admin }));
  const invitee = users.find((u) => u.email === inviteeEmail)?.id ?? "";
  return { project, check, down, paused, channel, window, slug, target, invitee };
}
let adminSession = "";
function pathOf(route: string, made: Made): string {
  const ref = route.endsWith("/acknowledge") ? made.down : route.endsWith("/resume") ? made.paused : made.check;
  return route
    .replace(":project", made.project.id)
    .replace(":ref", ref)
    .replace(":channel", made.channel)
    .replace(":window", made.window)
    .replace(":slug", made.slug)
    .replace(":user", route.includes("/invitations/") ? made.invitee : made.target)
    .replace(":kind", route.includes("/add/") ? "slack" : "read-write");
}
const below = (role: Role): Role | null => (ROLES.indexOf(role) === 0 ? null : ROLES[ROLES.indexOf(role) - 1]);

for (const row of ROWS) {
  if (row.action === "no project role") continue;
  const name = `${row.route}${row.label === undefined ? "" : ` (${row.label})`}`;
  if (row.action === "admin token only") {
    test(`${name}: the admin token only (or an instance admin); an owner is refused`, async () => {
      const made = await fresh();
      const owner = cookies.get("owner") ?? "";
      const refused = await postForm(
        server.url,
        pathOf(row.route, made),
        { csrf: await csrfOf(server.url, owner), ...row.fields?.(made) },
        { cookie: owner },
      );
      assert.ok(refused.status === 403 || refused.status === 404, `${refused.status} ${refused.text.slice(0, 200)}`); // a user: no such page for them
      const adminCookie = await signInKey(server.url, TOKEN);
      const taken = await postForm(
        server.url,
        pathOf(row.route, made),
        { csrf: await csrfOf(server.url, adminCookie, "/"), ...row.fields?.(made) },
        { cookie: adminCookie },
      );
      assert.ok(taken.status === 303 || taken.status === 200, `${taken.status} ${taken.text.slice(0, 200)}`);
      const again = await fresh(); // the instance admin on objects of their own (a removed user is gone)
      const byUser = await postForm(
        server.url,
        pathOf(row.route, again),
        { csrf: await csrfOf(server.url, instanceAdmin, "/"), ...row.fields?.(again) },
        { cookie: instanceAdmin },
      );
      assert.ok(byUser.status === 303 || byUser.status === 200, `instance admin: ${byUser.status} ${byUser.text.slice(0, 200)}`);
    });
    continue;
  }
  const action = row.action;
  const least = leastRoleFor(action),
    lower = below(least);
  test(`${name}: ${action} — ${least} gets through${lower === null ? "" : `, ${lower} is refused`}, the read-only key is refused`, async () => {
    const made = await fresh();
    const path = pathOf(row.route, made);
    const post = async (cookie: string) =>
      postForm(server.url, path, { csrf: await csrfOf(server.url, cookie), ...row.fields?.(made) }, { cookie });
    if (lower !== null) {
      const refused = await post(cookies.get(lower) ?? "");
      assert.is(refused.status, 403, `${lower}: ${refused.text.slice(0, 200)}`);
    }
    const key = await signInKey(server.url, made.project.api_key_readonly);
    const keyAnswer = await postForm(
      server.url,
      path,
      { csrf: await csrfOf(server.url, key, `/projects/${made.project.id}/checks`), ...row.fields?.(made) },
      { cookie: key },
    );
    assert.is(keyAnswer.status, 403, `read-only key: ${keyAnswer.text.slice(0, 200)}`);
    const taken = await post(cookies.get(least) ?? "");
    assert.ok(taken.status === 303 || taken.status === 200, `${least}: ${taken.status} ${taken.text.slice(0, 300)}`);
    const again = await fresh(); // an instance admin holds no role in the project, and gets through
    const byAdmin = await postForm(
      server.url,
      pathOf(row.route, again),
      { csrf: await csrfOf(server.url, instanceAdmin, "/"), ...row.fields?.(again) },
      { cookie: instanceAdmin },
    );
    assert.ok(byAdmin.status === 303 || byAdmin.status === 200, `instance admin: ${byAdmin.status} ${byAdmin.text.slice(0, 300)}`);
  });
}

test("each Management API write takes the read-write key and refuses the read-only key", async () => {
  const made = await fresh();
  const wrong: string[] = [];
  for (const [method, route] of API_WRITES) {
    const path = route
      .replace(":version", "v3")
      .replace(":id", route.endsWith("/acknowledge") ? made.down : route.endsWith("/resume") ? made.paused : made.check);
    const body =
      method === "POST" && route === "/api/:version/checks"
        ? { name: "by key" }
        : method === "POST" && route.endsWith(":id")
          ? { name: "renamed by key" }
          : undefined;
    const refused = await call(server.url, method, path, { key: made.project.api_key_readonly, body });
    if (refused.status !== 401) wrong.push(`read-only ${method} ${path}: ${refused.status}`);
    const taken = await call(server.url, method, path, { key: made.project.api_key, body });
    if (taken.status >= 300) wrong.push(`read-write ${method} ${path}: ${taken.status} ${taken.text}`);
  }
  assert.equal(wrong, []);
});

test("no admin API route takes an API key or a dashboard session", async () => {
  const made = await fresh();
  const wrong: string[] = [];
  for (const route of adminRoutes) {
    const path = route
      .replace(":id", made.project.id)
      .replace(":channel", made.channel)
      .replace(":window", made.window)
      .replace(":slug", made.slug)
      .replace(":user", route.includes("/invitations/") ? made.invitee : made.target)
      .replace(":kind", "read-write");
    for (const method of ["GET", "POST", "PUT", "DELETE"]) {
      for (const [who, headers] of [
        ["read-write key", { authorization: `Bearer ${made.project.api_key}`, "x-api-key": made.project.api_key }],
        ["owner's session", { cookie: cookies.get("owner") ?? "" }],
      ] as const) {
        const answer = await call(server.url, method, path, { headers: { ...headers }, body: method === "GET" ? undefined : {} });
        if (answer.status !== 401 && answer.status !== 405) wrong.push(`${who}: ${method} ${path} -> ${answer.status}`);
      }
    }
  }
  assert.ok(adminRoutes.length >= 15, adminRoutes.join(" "));
  assert.equal(wrong, []);
});

test.run();
