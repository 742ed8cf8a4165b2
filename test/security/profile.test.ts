// A user's own profile on a real server over HTTP: a new email (asks the password, unique, recorded, ends
// every other session; the old email no longer signs in) and deleting one's own account (asks the
// password; refused while the user is a project's only owner; ends every session; recorded).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import type { ProjectJson, RealServer } from "./real-server.ts";
import { call, createProject, ok, startServer, stopServer } from "./real-server.ts";
import { csrfOf, getPage, postForm, signInUser } from "./form-client.ts";
import { smtpReceiver } from "../notify/receivers.ts";

const TOKEN = "profile-admin-token-0123456789abcdefgh";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "a profile's long password";
type UserJson = { id: string; email: string; admin: boolean };
type AuditJson = { events: { actor: string; action: string; target: string }[] };

let server: RealServer;
let smtp: Awaited<ReturnType<typeof smtpReceiver>>;
let owned: ProjectJson, shared: ProjectJson;
const users: Record<string, UserJson> = {};
const dir = tempDir();

const makeUser = async (email: string) => {
  users[email] = await ok<UserJson>(call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email, password: PASSWORD } }));
  return users[email];
};
const putRole = (project: ProjectJson, email: string, role: string) =>
  ok(call(server.url, "PUT", `/admin/v1/projects/${project.id}/members/${users[email].id}`, { headers: admin, body: { role } }));
const signedIn = async (cookie: string) => (await getPage(server.url, "/account", cookie)).text.includes("Signed in as");
const session = async (email: string) => {
  const cookie = (await signInUser(server, email, PASSWORD)).cookie;
  assert.ok(cookie !== "", `signed in as ${email}`);
  return cookie;
};

test.before(async () => {
  smtp = await smtpReceiver();
  server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, SMTP_URL: smtp.url } });
  owned = await createProject(server, TOKEN, { name: "Carol's own" });
  shared = await createProject(server, TOKEN, { name: "Shared" });
  for (const email of ["ann@corp.example", "bob@corp.example", "carol@corp.example", "dave@corp.example"]) await makeUser(email);
  await putRole(owned, "carol@corp.example", "owner");
  await putRole(shared, "carol@corp.example", "member");
});
test.after(async () => {
  if (server) assert.is(await stopServer(server), 0, server.output());
  await smtp?.close();
  dir.remove();
});

test("a new email asks the password, must be free and valid, ends every other session, and is recorded", async () => {
  const here = await session("ann@corp.example"),
    there = await session("ann@corp.example");
  const csrf = await csrfOf(server.url, here);
  const change = (fields: Record<string, string>) => postForm(server.url, "/account/email", { csrf, ...fields }, { cookie: here });
  const wrong = await change({ email: "ann.new@corp.example", password: "not the password at all" });
  assert.is(wrong.status, 400);
  assert.match(wrong.text, "The password is wrong.");
  const taken = await change({ email: "BOB@corp.example", password: PASSWORD });
  assert.is(taken.status, 400);
  assert.match(taken.text, "Another user has this email.");
  const invalid = await change({ email: "not an email", password: PASSWORD });
  assert.is(invalid.status, 400);
  assert.match(invalid.text, "The new email is not an email address.");
  assert.ok(await signedIn(there), "nothing refused ended a session");

  const changed = await change({ email: "Ann.New@corp.example", password: PASSWORD });
  assert.is(changed.status, 200, changed.text.slice(0, 300));
  assert.match(changed.text, "Your email is now ann.new@corp.example. Every other session has been signed out.");
  assert.ok(changed.cookie !== "", "this browser gets a new session");
  assert.ok(await signedIn(changed.cookie));
  assert.not.ok(await signedIn(there), "the other session ended");
  assert.is((await signInUser(server, "ann@corp.example", PASSWORD)).cookie, "", "the old email signs in no more");
  assert.ok((await signInUser(server, "ann.new@corp.example", PASSWORD)).cookie !== "");
  // the old address is told (a positive marker: the mail itself, within 20 s)
  for (const until = Date.now() + 20_000; smtp.mails.length === 0 && Date.now() < until;) await new Promise((r) => setTimeout(r, 50));
  assert.equal(
    smtp.mails.map((m) => [m.to && "text" in m.to ? m.to.text : "", m.subject]),
    [["ann@corp.example", "Your hcd email was changed"]],
  );
  assert.match(smtp.mails[0].text ?? "", "is now ann.new@corp.example");
  const listed = await ok<{ users: UserJson[] }>(call(server.url, "GET", "/admin/v1/users", { headers: admin }));
  assert.is(listed.users.find((u) => u.id === users["ann@corp.example"].id)?.email, "ann.new@corp.example");
  const audit = await ok<AuditJson>(call(server.url, "GET", "/admin/v1/audit", { headers: admin }));
  const event = audit.events.find((e) => e.action === "account.email_changed");
  assert.ok(
    event !== undefined && event.actor === "ann.new@corp.example" && event.target.includes("from ann@corp.example"),
    JSON.stringify(audit.events.slice(0, 3)),
  );
});

test("deleting one's account asks the password and is refused while the only owner of a project", async () => {
  const here = await session("carol@corp.example");
  const csrf = await csrfOf(server.url, here);
  const wrong = await postForm(server.url, "/account/delete", { csrf, password: "not the password at all" }, { cookie: here });
  assert.is(wrong.status, 400);
  assert.match(wrong.text, "The password is wrong.");
  const lastOwner = await postForm(server.url, "/account/delete", { csrf, password: PASSWORD }, { cookie: here });
  assert.is(lastOwner.status, 400);
  assert.match(lastOwner.text, "You are the only owner of &quot;Carol&#39;s own&quot;: make another member owner first");
  assert.ok(await signedIn(here));
  assert.ok(
    (await ok<{ users: UserJson[] }>(call(server.url, "GET", "/admin/v1/users", { headers: admin }))).users.some(
      (u) => u.email === "carol@corp.example",
    ),
  );
});

test("with another owner, the account goes: every session ends, its roles go, and it is recorded", async () => {
  await putRole(owned, "dave@corp.example", "owner");
  const here = await session("carol@corp.example"),
    there = await session("carol@corp.example");
  const csrf = await csrfOf(server.url, here);
  const deleted = await postForm(server.url, "/account/delete", { csrf, password: PASSWORD }, { cookie: here });
  assert.is(deleted.status, 303, deleted.text.slice(0, 300));
  assert.is(deleted.location, "/");
  assert.not.ok(await signedIn(here));
  assert.not.ok(await signedIn(there), "the other session ended too");
  assert.is((await signInUser(server, "carol@corp.example", PASSWORD)).cookie, "");
  const { users: left } = await ok<{ users: UserJson[] }>(call(server.url, "GET", "/admin/v1/users", { headers: admin }));
  assert.not.ok(left.some((u) => u.email === "carol@corp.example"));
  const { members } = await ok<{ members: UserJson[] }>(
    call(server.url, "GET", `/admin/v1/projects/${shared.id}/members`, { headers: admin }),
  );
  assert.equal(members, []);
  const instance = await ok<AuditJson>(call(server.url, "GET", "/admin/v1/audit", { headers: admin }));
  assert.ok(
    instance.events.some((e) => e.action === "account.deleted" && e.actor === "carol@corp.example"),
    JSON.stringify(instance.events.slice(0, 3)),
  );
  const project = await ok<AuditJson>(call(server.url, "GET", `/admin/v1/projects/${shared.id}/audit`, { headers: admin }));
  assert.ok(
    project.events.some((e) => e.action === "member.removed" && e.actor === "carol@corp.example"),
    JSON.stringify(project.events.slice(0, 3)),
  );
});

test.run();
