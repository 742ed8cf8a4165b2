// Instance admins ("admin": true) on a real server: made only by the admin token or another admin; shown in
// the admin API's user objects; in the dashboard they do what the admin token does (all projects, creating
// one, the operator-only integration kinds, the users page), recorded under their own email.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import type { RealServer } from "./real-server.ts";
import { call, createProject, ok, startServer, stopServer } from "./real-server.ts";
import { csrfOf, getPage, postForm, signInUser } from "./form-client.ts";

const TOKEN = "instance-admin-token-0123456789abc";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "an admin's long password";
type UserJson = { id: string; email: string; admin: boolean };

let server: RealServer;
const dir = tempDir();
test.before(async () => {
  server = await startServer({
    dataDir: dir.path,
    env: { ADMIN_TOKEN: TOKEN, SHELL_ENABLED: "true", INTEGRATIONS_ALLOW_PRIVATE_IPS: "true" },
  });
});
test.after(async () => {
  if (server) assert.is(await stopServer(server), 0, server.output());
  dir.remove();
});

test("the admin API makes and shows instance admins; admin must be a boolean", async () => {
  const root = await ok<UserJson>(
    call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: "root@corp.example", password: PASSWORD, admin: true } }),
  );
  assert.is(root.admin, true);
  const plain = await ok<UserJson>(
    call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: "plain@corp.example", password: PASSWORD } }),
  );
  assert.is(plain.admin, false);
  assert.is(
    (
      await call(server.url, "POST", "/admin/v1/users", {
        headers: admin,
        body: { email: "x@corp.example", password: PASSWORD, admin: "yes" },
      })
    ).status,
    400,
  );
  assert.is((await call(server.url, "PUT", `/admin/v1/users/${plain.id}`, { headers: admin, body: { admin: 1 } })).status, 400);
  const listed = await ok<{ users: UserJson[] }>(call(server.url, "GET", "/admin/v1/users", { headers: admin }));
  assert.equal(
    listed.users.map((u) => [u.email, u.admin]),
    [
      ["root@corp.example", true],
      ["plain@corp.example", false],
    ],
  );
});

test("an instance admin does in the dashboard what the admin token does; a plain user cannot make one", async () => {
  const project = await createProject(server, TOKEN, { name: "Roleless project" });
  const root = (await signInUser(server, "root@corp.example", PASSWORD)).cookie;
  const plain = (await signInUser(server, "plain@corp.example", PASSWORD)).cookie;
  assert.ok(root !== "" && plain !== "");
  const home = await getPage(server.url, "/", root);
  assert.match(home.text, "Roleless project", "every project, with no role in it");
  assert.match(home.text, "Create a project");
  assert.match(home.text, `href="/users"`);
  const csrf = await csrfOf(server.url, root, "/");
  const made = await postForm(server.url, "/projects", { csrf, name: "Made by root" }, { cookie: root });
  assert.is(made.status, 303, made.text.slice(0, 200));
  const shell = await postForm(
    server.url,
    `/projects/${project.id}/integrations`,
    { csrf, kind: "shell", name: "ops script", form: "fields", "f.cmd_down": "/bin/true" },
    { cookie: root },
  );
  assert.is(shell.status, 303, `an operator-only kind: ${shell.text.slice(0, 200)}`);
  // the plain user: no users page, and no way to make anyone an admin
  const users = (await ok<{ users: UserJson[] }>(call(server.url, "GET", "/admin/v1/users", { headers: admin }))).users;
  const plainId = users.find((u) => u.email === "plain@corp.example")?.id ?? "";
  assert.ok([403, 404].includes((await getPage(server.url, "/users", plain)).status));
  const plainCsrf = await csrfOf(server.url, plain, "/");
  const refused = await postForm(server.url, `/users/${plainId}/admin`, { csrf: plainCsrf, admin: "1" }, { cookie: plain });
  assert.ok([403, 404].includes(refused.status), `${refused.status}`);
  assert.is(
    (await call(server.url, "PUT", `/admin/v1/users/${plainId}`, { headers: { cookie: plain }, body: { admin: true } })).status,
    401,
  );
  // the admin makes them one, on the users page
  const granted = await postForm(server.url, `/users/${plainId}/admin`, { csrf, admin: "1" }, { cookie: root });
  assert.is(granted.status, 303, granted.text.slice(0, 200));
  assert.is((await getPage(server.url, "/users", plain)).status, 200, "now an admin: the same session sees the users page");
  const after = (await ok<{ users: UserJson[] }>(call(server.url, "GET", "/admin/v1/users", { headers: admin }))).users;
  assert.is(after.find((u) => u.id === plainId)?.admin, true);
  // what they did is recorded under their own email
  const audit = await ok<{ events: { actor: string; action: string }[] }>(call(server.url, "GET", "/admin/v1/audit", { headers: admin }));
  assert.ok(
    audit.events.some((e) => e.actor === "root@corp.example" && e.action === "user.admin_granted"),
    JSON.stringify(audit.events.slice(0, 5)),
  );
  const own = await ok<{ events: { actor: string; action: string }[] }>(
    call(server.url, "GET", `/admin/v1/projects/${project.id}/audit`, { headers: admin }),
  );
  assert.ok(
    own.events.some((e) => e.actor === "root@corp.example" && e.action === "channel.added"),
    JSON.stringify(own.events.slice(0, 5)),
  );
});

test("limits: the create form offers them (10,000 checks by default), an admin changes them, an owner cannot; the limit message names who raises it", async () => {
  const root = (await signInUser(server, "root@corp.example", PASSWORD)).cookie;
  const home = await getPage(server.url, "/", root);
  assert.match(home.text, `name="check_limit" type="number" min="0" max="1000000" required value="10000"`);
  const csrf = await csrfOf(server.url, root, "/");
  const bad = await postForm(
    server.url,
    "/projects",
    { csrf, name: "Bad", check_limit: "many", ping_log_limit: "100", ping_body_limit: "10000" },
    { cookie: root },
  );
  assert.is(bad.status, 400);
  assert.match(bad.text, "The check limit must be a whole number.");
  const made = await postForm(
    server.url,
    "/projects",
    { csrf, name: "Small", check_limit: "1", ping_log_limit: "50", ping_body_limit: "500" },
    { cookie: root },
  );
  assert.is(made.status, 303, made.text.slice(0, 200));
  const id = /\/projects\/([0-9a-f-]{36})\//.exec(made.location ?? "")?.[1] ?? "";
  type Limits = { check_limit: number; ping_log_limit: number; ping_body_limit: number; api_key: string };
  const read = () => ok<Limits>(call(server.url, "GET", `/admin/v1/projects/${id}`, { headers: admin }));
  assert.equal(await read().then((p) => [p.check_limit, p.ping_log_limit, p.ping_body_limit]), [1, 50, 500]);
  // an owner of the project (not an admin) sees the limits, and cannot change them
  const owner = await ok<UserJson>(
    call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: "owner-small@corp.example", password: PASSWORD } }),
  );
  await ok(call(server.url, "PUT", `/admin/v1/projects/${id}/members/${owner.id}`, { headers: admin, body: { role: "owner" } }));
  const ownerCookie = (await signInUser(server, "owner-small@corp.example", PASSWORD)).cookie;
  const manage = await getPage(server.url, `/projects/${id}/manage`, ownerCookie);
  assert.match(manage.text, "At most 1 checks, 50 pings kept per check");
  const ownerCsrf = await csrfOf(server.url, ownerCookie, `/projects/${id}/manage`);
  const refused = await postForm(
    server.url,
    `/projects/${id}/limits`,
    { csrf: ownerCsrf, check_limit: "100", ping_log_limit: "50", ping_body_limit: "500" },
    { cookie: ownerCookie },
  );
  assert.is(refused.status, 403);
  // the second check is refused with words that say who raises the limit
  const check = { csrf: ownerCsrf, name: "c", kind: "simple", timeout: "1", timeout_unit: "hours", grace: "1", grace_unit: "hours" };
  assert.is((await postForm(server.url, `/projects/${id}/checks/new`, check, { cookie: ownerCookie })).status, 303);
  const full = await postForm(server.url, `/projects/${id}/checks/new`, check, { cookie: ownerCookie });
  assert.is(full.status, 400);
  assert.match(full.text, "ask an instance admin to raise the check limit (on the project");
  // the admin raises it on the Manage page
  const raised = await postForm(
    server.url,
    `/projects/${id}/limits`,
    { csrf, check_limit: "3000", ping_log_limit: "60", ping_body_limit: "600" },
    { cookie: root },
  );
  assert.is(raised.status, 303, raised.text.slice(0, 200));
  assert.equal(await read().then((p) => [p.check_limit, p.ping_log_limit, p.ping_body_limit]), [3000, 60, 600]);
  assert.is((await postForm(server.url, `/projects/${id}/checks/new`, check, { cookie: ownerCookie })).status, 303, "room again");
  const tooBig = await postForm(
    server.url,
    `/projects/${id}/limits`,
    { csrf, check_limit: "2000000", ping_log_limit: "60", ping_body_limit: "600" },
    { cookie: root },
  );
  assert.is(tooBig.status, 400);
  assert.match(tooBig.text, "The check limit must be from 0 to 1000000.");
});

test.run();
