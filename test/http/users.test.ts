// Users, invitations, roles and sign-in by email against a real hcd process on loopback (CONTRACT
// "Users, roles and sign-in"): the admin API's answers, the dashboard's sign-in and its limits, the
// roles enforced on the dashboard's forms, and users kept across a restart.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { request } from "node:http";
import { tempDir } from "../helpers.ts";
import type { ProjectJson, RealServer } from "../security/real-server.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";

const TOKEN = "users-test-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "correct horse battery";
type UserJson = { id: string; email: string; invite_url?: string };

const dir = tempDir();
let server: RealServer;
let project: ProjectJson;

test.before(async () => {
  server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
  project = await createProject(server, TOKEN, { name: "Ops" });
});
test.after(async () => {
  if (server) assert.is(await stopServer(server), 0, server.output());
  dir.remove();
});

const createUser = (body: Record<string, unknown>) => call(server.url, "POST", "/admin/v1/users", { headers: admin, body });
const setRole = (userId: string, role: unknown, projectId = project.id) =>
  call(server.url, "PUT", `/admin/v1/projects/${projectId}/members/${userId}`, { headers: admin, body: { role } });
/** Posts a dashboard form; returns the answer with the session cookie it set, if any. */
async function post(
  path: string,
  fields: Record<string, string>,
  cookie = "",
): Promise<{ status: number; text: string; cookie: string; setCookie: string }> {
  const response = await fetch(server.url + path, {
    method: "POST",
    body: new URLSearchParams(fields),
    redirect: "manual",
    headers: { cookie },
  });
  const set = response.headers.get("set-cookie") ?? "";
  return { status: response.status, text: await response.text(), cookie: set.split(";")[0], setCookie: set };
}
async function get(path: string, cookie: string): Promise<{ status: number; text: string }> {
  const response = await fetch(server.url + path, { redirect: "manual", headers: { cookie } });
  return { status: response.status, text: await response.text() };
}
const signIn = (email: string, password: string) => post("/signin/password", { email, password });
/** Signs in from another loopback address (127.0.0.0/8 is all loopback), so each limit test has an address of its own. */
function signInFrom(localAddress: string, email: string, password: string): Promise<{ status: number; text: string }> {
  const body = new URLSearchParams({ email, password }).toString();
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}/signin/password`,
      { method: "POST", localAddress, headers: { "content-type": "application/x-www-form-urlencoded" } },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}
const csrfOf = (page: string) => /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";

test("a user made with a password is listed and signs in; the admin token is needed", async () => {
  const made = await createUser({ email: "Ann@Example.org", password: PASSWORD });
  assert.is(made.status, 201, made.text);
  const user = JSON.parse(made.text) as UserJson;
  assert.equal(Object.keys(user).sort(), ["admin", "email", "id"]);
  assert.is(user.email, "ann@example.org");
  const list = await ok<{ users: UserJson[] }>(call(server.url, "GET", "/admin/v1/users", { headers: admin }));
  assert.ok(list.users.some((u) => u.id === user.id && u.email === "ann@example.org"));
  assert.is((await call(server.url, "GET", "/admin/v1/users")).status, 401);
  assert.is((await call(server.url, "POST", "/admin/v1/users", { body: { email: "x@example.org" } })).status, 401);
  const signedIn = await signIn("ann@example.org", PASSWORD);
  assert.is(signedIn.status, 303);
  assert.match(signedIn.cookie, /^hcd_session=./);
  assert.match(signedIn.setCookie, /HttpOnly/); // the flags of every dashboard session
  assert.match(signedIn.setCookie, /SameSite=Strict/);
  assert.not.match(signedIn.setCookie, new RegExp(PASSWORD));
  const again = await signIn("ann@example.org", PASSWORD);
  assert.is.not(again.cookie, signedIn.cookie, "every sign-in opens a new session id");
});

test("bad users are refused with a clear error and change nothing", async () => {
  const before = await ok<{ users: UserJson[] }>(call(server.url, "GET", "/admin/v1/users", { headers: admin }));
  const rows: [Record<string, unknown>, RegExp][] = [
    [{ email: "short@example.org", password: "eleven-char" }, /password must be .*12 or more/],
    [{ email: "not an email", password: PASSWORD }, /email must be an email address/],
    [{ password: PASSWORD }, /email must be/],
    [{ email: "ann@example.org", password: PASSWORD }, /a user with this email exists/],
    [{ email: "num@example.org", password: 123456789012 }, /password must be/],
  ];
  for (const [body, error] of rows) {
    const answer = await createUser(body);
    assert.is(answer.status, 400, JSON.stringify(body));
    assert.match((JSON.parse(answer.text) as { error: string }).error, error);
  }
  assert.equal(await ok(call(server.url, "GET", "/admin/v1/users", { headers: admin })), before);
});

test("an invitation link sets a password once, then signs in", async () => {
  const user = await ok<UserJson>(createUser({ email: "bo@example.org" }));
  assert.match(user.invite_url ?? "", /^http:\/\/[^/]+\/invite\/[\w-]{43}$/);
  const path = new URL(user.invite_url ?? "").pathname;
  assert.is((await signIn("bo@example.org", PASSWORD)).status, 401, "no password before the invitation is used");
  assert.match((await get(path, "")).text, /bo@example\.org/);
  const short = await post(path, { password: "too short" });
  assert.is(short.status, 400);
  const accepted = await post(path, { password: PASSWORD });
  assert.is(accepted.status, 303);
  assert.match(accepted.cookie, /^hcd_session=./);
  assert.is((await post(path, { password: "another password 123" })).status, 404, "one use");
  assert.is((await get(path, "")).status, 404);
  assert.is((await signIn("bo@example.org", PASSWORD)).status, 303);
  assert.is((await signIn("bo@example.org", "another password 123")).status, 401);
});

test("roles: set, checked, listed and taken away", async () => {
  const user = await ok<UserJson>(createUser({ email: "cy@example.org", password: PASSWORD }));
  const set = await setRole(user.id, "manager");
  assert.is(set.status, 200, set.text);
  assert.equal(JSON.parse(set.text), { id: user.id, email: "cy@example.org", admin: false, role: "manager" });
  assert.is((await setRole(user.id, "admin")).status, 400);
  assert.is((await setRole(user.id, null)).status, 400);
  assert.is((await setRole("no-such-user", "member")).status, 404);
  assert.is((await setRole(user.id, "member", "no-such-project")).status, 404);
  const members = await ok<{ members: { id: string; role: string }[] }>(
    call(server.url, "GET", `/admin/v1/projects/${project.id}/members`, { headers: admin }),
  );
  assert.equal(
    members.members.filter((m) => m.id === user.id).map((m) => m.role),
    ["manager"],
  );
  assert.is((await call(server.url, "DELETE", `/admin/v1/projects/${project.id}/members/${user.id}`, { headers: admin })).status, 204);
  assert.is((await call(server.url, "DELETE", `/admin/v1/projects/${project.id}/members/${user.id}`, { headers: admin })).status, 404);
});

test("a signed-in user sees only their projects, and a project without a role is not there", async () => {
  const other = await createProject(server, TOKEN, { name: "Secret team" });
  const user = await ok<UserJson>(createUser({ email: "di@example.org", password: PASSWORD }));
  await ok(setRole(user.id, "readonly"));
  const { cookie } = await signIn("di@example.org", PASSWORD);
  const home = await get("/", cookie);
  assert.match(home.text, />Ops</);
  assert.not.match(home.text, /Secret team/);
  assert.not.match(home.text, /Create a project/);
  assert.is((await get(`/projects/${other.id}/checks`, cookie)).status, 404);
  assert.is((await get(`/projects/${project.id}/checks`, cookie)).status, 200);
  assert.is((await call(server.url, "DELETE", `/admin/v1/projects/${project.id}/members/${user.id}`, { headers: admin })).status, 204);
  assert.is((await get(`/projects/${project.id}/checks`, cookie)).status, 404, "a removed member loses the project at once");
  assert.not.match((await get("/", cookie)).text, />Ops</);
});

test("the dashboard enforces each role on its forms", async () => {
  const check = await ok<{ uuid: string }>(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "job" } }));
  const as = async (email: string, role: string) => {
    const user = await ok<UserJson>(createUser({ email, password: PASSWORD }));
    await ok(setRole(user.id, role));
    const { cookie } = await signIn(email, PASSWORD);
    return { cookie, csrf: csrfOf((await get(`/projects/${project.id}/checks`, cookie)).text) };
  };
  const readonly = await as("ro@example.org", "readonly");
  const member = await as("me@example.org", "member");
  const manager = await as("ma@example.org", "manager");
  const pause = (s: { cookie: string; csrf: string }) => post(`/checks/${check.uuid}/pause`, { csrf: s.csrf }, s.cookie);
  const addIntegration = (s: { cookie: string; csrf: string }) =>
    post(
      `/projects/${project.id}/integrations`,
      { csrf: s.csrf, kind: "webhook", name: "hook", value: "http://127.0.0.1:9/hook" },
      s.cookie,
    );
  assert.is((await pause(readonly)).status, 403);
  assert.is(
    (await ok<{ status: string }>(call(server.url, "GET", `/api/v3/checks/${check.uuid}`, { key: project.api_key }))).status,
    "new",
    "refused: unchanged",
  );
  assert.is((await pause(member)).status, 303);
  assert.is(
    (await ok<{ status: string }>(call(server.url, "GET", `/api/v3/checks/${check.uuid}`, { key: project.api_key }))).status,
    "paused",
  );
  const refused = await addIntegration(member);
  assert.is(refused.status, 403);
  assert.match(refused.text, /the role member in this project does not allow this/);
  assert.equal(await ok(call(server.url, "GET", `/admin/v1/projects/${project.id}/channels`, { headers: admin })), { channels: [] });
  assert.is((await addIntegration(manager)).status, 303);
  const owner = await as("ow@example.org", "owner");
  const mute = (s: { cookie: string; csrf: string }) =>
    post(`/projects/${project.id}/mute`, { csrf: s.csrf, until: "2100-01-01T00:00:00Z" }, s.cookie);
  assert.is((await mute(manager)).status, 403, "the project itself is the owner's");
  assert.is((await mute(owner)).status, 303);
  const settings = (s: { cookie: string }) => get(`/projects/${project.id}/settings`, s.cookie);
  assert.not.match((await settings(member)).text, new RegExp(project.api_key), "a member sees no keys");
  assert.match((await settings(manager)).text, new RegExp(project.api_key), "a manager sees them");
});

test("members page: a manager gives and takes roles below owner only, a member changes none, an API key sees none", async () => {
  const owner = await ok<UserJson>(createUser({ email: "boss@example.org", password: PASSWORD }));
  await ok(setRole(owner.id, "owner"));
  const newcomer = await ok<UserJson>(createUser({ email: "new@example.org", password: PASSWORD }));
  const session = async (email: string, role: string) => {
    const user = await ok<UserJson>(createUser({ email, password: PASSWORD }));
    await ok(setRole(user.id, role));
    const { cookie } = await signIn(email, PASSWORD);
    const page = await get(`/projects/${project.id}/members`, cookie);
    return { cookie, csrf: csrfOf(page.text), page: page.text };
  };
  const manager = await session("mgr@example.org", "manager");
  const member = await session("mbr@example.org", "member");
  const roleOfUser = async (id: string) =>
    (
      await ok<{ members: { id: string; role: string }[] }>(
        call(server.url, "GET", `/admin/v1/projects/${project.id}/members`, { headers: admin }),
      )
    ).members.find((m) => m.id === id)?.role ?? null;
  const give = (s: { cookie: string; csrf: string }, email: string, role: string) =>
    post(`/projects/${project.id}/members`, { csrf: s.csrf, email, role }, s.cookie);
  assert.match(manager.page, /Add member/);
  assert.match(member.page, /boss@example\.org/, "a member sees who is in the project");
  assert.not.match(member.page, /Add member|Save role/);
  assert.is((await give(member, "new@example.org", "readonly")).status, 403);
  assert.is(await roleOfUser(newcomer.id), null);
  assert.is((await give(manager, "new@example.org", "member")).status, 303);
  assert.is(await roleOfUser(newcomer.id), "member");
  assert.is((await give(manager, "new@example.org", "owner")).status, 403, "no owner made by a manager");
  assert.is((await give(manager, "boss@example.org", "readonly")).status, 403, "no owner demoted by a manager");
  assert.is((await post(`/projects/${project.id}/members/${owner.id}/remove`, { csrf: manager.csrf }, manager.cookie)).status, 403);
  assert.is(await roleOfUser(owner.id), "owner");
  assert.is((await give(manager, "not an email", "member")).status, 400);
  assert.match(
    (await give(manager, "nobody@example.org", "member")).text,
    /Invitation for nobody@example\.org/,
    "a new email gets an invitation",
  );
  assert.is((await post(`/projects/${project.id}/members/${newcomer.id}/remove`, { csrf: manager.csrf }, manager.cookie)).status, 303);
  assert.is(await roleOfUser(newcomer.id), null);
  const key = await post("/signin", { key: project.api_key });
  assert.is((await get(`/projects/${project.id}/members`, key.cookie)).status, 403);
});

test("a deleted user's sessions end at once and the email then opens nothing", async () => {
  const user = await ok<UserJson>(createUser({ email: "ex@example.org", password: PASSWORD }));
  await ok(setRole(user.id, "owner"));
  const { cookie } = await signIn("ex@example.org", PASSWORD);
  assert.is((await get(`/projects/${project.id}/checks`, cookie)).status, 200);
  assert.is((await call(server.url, "DELETE", `/admin/v1/users/${user.id}`, { headers: admin })).status, 204);
  assert.is((await get(`/projects/${project.id}/checks`, cookie)).status, 303, "sent to the sign-in page");
  assert.is((await signIn("ex@example.org", PASSWORD)).status, 401);
  assert.is((await call(server.url, "DELETE", `/admin/v1/users/${user.id}`, { headers: admin })).status, 404);
});

test("an unknown email and a wrong password get the same answer; 10 failures of an email from one address block that pair with 429", async () => {
  await ok(createUser({ email: "fa@example.org", password: PASSWORD }));
  const unknown = await signInFrom("127.0.0.11", "nobody@example.org", "whatever password");
  const wrong = await signInFrom("127.0.0.11", "fa@example.org", "whatever password");
  assert.equal([unknown.status, unknown.text], [wrong.status, wrong.text]);
  assert.is(wrong.status, 401);
  for (let i = 0; i < 9; i++) assert.is((await signInFrom("127.0.0.11", "fa@example.org", `wrong password ${i}`)).status, 401);
  const blocked = await signInFrom("127.0.0.11", "fa@example.org", PASSWORD); // the right password, after 10 failures
  assert.is(blocked.status, 429);
  assert.match(blocked.text, /Too many failed sign-ins: wait 15 minutes/);
  assert.is((await signInFrom("127.0.0.12", "fa@example.org", PASSWORD)).status, 303, "the same email from another address");
});

test("10 failures from one address over other emails block neither that address nor the user (the address's own limit is looser)", async () => {
  await ok(createUser({ email: "ga@example.org", password: PASSWORD }));
  for (let i = 0; i < 10; i++) assert.is((await signInFrom("127.0.0.13", `unknown${i}@example.org`, "wrong password!")).status, 401);
  assert.is((await signInFrom("127.0.0.13", "ga@example.org", PASSWORD)).status, 303);
});

test.run();
