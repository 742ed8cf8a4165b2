// A project never loses its last owner on a real server: neither that owner (demoting or removing
// themselves on the members page), nor the admin token or an instance admin (dashboard and admin API) can
// take the only owner's role away, each refused with a clear 400; once another owner exists they can, and
// the admin can always give an owner to a project that has none.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import type { ProjectJson, RealServer } from "./real-server.ts";
import { call, createProject, ok, startServer, stopServer } from "./real-server.ts";
import { csrfOf, postForm, signInKey, signInUser } from "./form-client.ts";

const TOKEN = "last-owner-admin-token-0123456789abc";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "an owner's long password";
type UserJson = { id: string; email: string; admin: boolean };

let server: RealServer;
let project: ProjectJson;
const users: Record<string, UserJson> = {};
const dir = tempDir();

const makeUser = async (email: string, extra: Record<string, unknown> = {}) => {
  users[email] = await ok<UserJson>(
    call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email, password: PASSWORD, ...extra } }),
  );
  return users[email];
};
const putRole = (email: string, role: string) =>
  call(server.url, "PUT", `/admin/v1/projects/${project.id}/members/${users[email].id}`, { headers: admin, body: { role } });
const roles = async () => {
  const { members } = await ok<{ members: (UserJson & { role: string })[] }>(
    call(server.url, "GET", `/admin/v1/projects/${project.id}/members`, { headers: admin }),
  );
  return Object.fromEntries(members.map((m) => [m.email, m.role]));
};

test.before(async () => {
  server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
  project = await createProject(server, TOKEN, { name: "Owned" });
  await makeUser("alice@corp.example");
  await makeUser("bob@corp.example");
  await makeUser("root@corp.example", { admin: true });
  assert.is((await putRole("alice@corp.example", "owner")).status, 200);
  assert.is((await putRole("bob@corp.example", "manager")).status, 200);
});
test.after(async () => {
  if (server) assert.is(await stopServer(server), 0, server.output());
  dir.remove();
});

test("the only owner can't demote or remove themselves on the members page", async () => {
  const alice = (await signInUser(server, "alice@corp.example", PASSWORD)).cookie;
  const csrf = await csrfOf(server.url, alice);
  const demoted = await postForm(
    server.url,
    `/projects/${project.id}/members`,
    { csrf, email: "alice@corp.example", role: "manager" },
    { cookie: alice },
  );
  assert.is(demoted.status, 400, demoted.text.slice(0, 300));
  assert.match(demoted.text, "alice@corp.example is the only owner of this project: make another member owner first.");
  const removed = await postForm(
    server.url,
    `/projects/${project.id}/members/${users["alice@corp.example"].id}/remove`,
    { csrf },
    { cookie: alice },
  );
  assert.is(removed.status, 400, removed.text.slice(0, 300));
  assert.match(removed.text, "is the only owner of this project");
  assert.equal(await roles(), { "alice@corp.example": "owner", "bob@corp.example": "manager" });
});

test("the admin token and an instance admin can't either, in the dashboard or the admin API", async () => {
  const refusedApi = await putRole("alice@corp.example", "readonly");
  assert.is(refusedApi.status, 400);
  assert.equal(JSON.parse(refusedApi.text), {
    error: "alice@corp.example is the only owner of this project: make another member owner first",
  });
  const deleted = await call(server.url, "DELETE", `/admin/v1/projects/${project.id}/members/${users["alice@corp.example"].id}`, {
    headers: admin,
  });
  assert.is(deleted.status, 400);
  assert.match(JSON.parse(deleted.text).error, "only owner");
  for (const cookie of [await signInKey(server.url, TOKEN), (await signInUser(server, "root@corp.example", PASSWORD)).cookie]) {
    const csrf = await csrfOf(server.url, cookie, `/projects/${project.id}/members`);
    const demoted = await postForm(
      server.url,
      `/projects/${project.id}/members`,
      { csrf, email: "alice@corp.example", role: "member" },
      { cookie },
    );
    assert.is(demoted.status, 400, demoted.text.slice(0, 300));
    const removed = await postForm(
      server.url,
      `/projects/${project.id}/members/${users["alice@corp.example"].id}/remove`,
      { csrf },
      { cookie },
    );
    assert.is(removed.status, 400, removed.text.slice(0, 300));
  }
  assert.equal(await roles(), { "alice@corp.example": "owner", "bob@corp.example": "manager" });
});

test("with a second owner, the first may step down; the admin gives an owner to a project left with none", async () => {
  const alice = (await signInUser(server, "alice@corp.example", PASSWORD)).cookie;
  const csrf = await csrfOf(server.url, alice);
  const promoted = await postForm(
    server.url,
    `/projects/${project.id}/members`,
    { csrf, email: "bob@corp.example", role: "owner" },
    { cookie: alice },
  );
  assert.is(promoted.status, 303, promoted.text.slice(0, 300));
  const stepped = await postForm(
    server.url,
    `/projects/${project.id}/members`,
    { csrf, email: "alice@corp.example", role: "manager" },
    { cookie: alice },
  );
  assert.is(stepped.status, 303, stepped.text.slice(0, 300));
  assert.equal(await roles(), { "alice@corp.example": "manager", "bob@corp.example": "owner" });
  // the admin removes bob's whole account (recovery: a lost or compromised account), which may leave no owner
  assert.is((await call(server.url, "DELETE", `/admin/v1/users/${users["bob@corp.example"].id}`, { headers: admin })).status, 204);
  assert.equal(await roles(), { "alice@corp.example": "manager" });
  // a manager can't make themselves owner; the admin (an instance admin here) can
  const selfPromoted = await postForm(
    server.url,
    `/projects/${project.id}/members`,
    { csrf, email: "alice@corp.example", role: "owner" },
    { cookie: alice },
  );
  assert.is(selfPromoted.status, 403);
  const root = (await signInUser(server, "root@corp.example", PASSWORD)).cookie;
  const rootCsrf = await csrfOf(server.url, root, `/projects/${project.id}/members`);
  const restored = await postForm(
    server.url,
    `/projects/${project.id}/members`,
    { csrf: rootCsrf, email: "alice@corp.example", role: "owner" },
    { cookie: root },
  );
  assert.is(restored.status, 303, restored.text.slice(0, 300));
  assert.equal(await roles(), { "alice@corp.example": "owner" });
  // and through the admin API on a project that never had an owner
  const bare = await createProject(server, TOKEN, { name: "Bare" });
  const given = await call(server.url, "PUT", `/admin/v1/projects/${bare.id}/members/${users["alice@corp.example"].id}`, {
    headers: admin,
    body: { role: "owner" },
  });
  assert.is(given.status, 200, given.text);
});

test.run();
