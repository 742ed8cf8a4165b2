// A user's own profile on a real server over HTTP with a real SMTP receiver: a new email (asks the password,
// unique; waits for the one-use link mailed to it, whose token is kept only as a hash; followed, it is
// recorded, ends every other session and the old email no longer signs in; an address waiting is not held)
// and deleting one's own account (asks the password; refused while the user is a project's only owner; ends
// every session; recorded). Expiry and the change without mail: test/http/email-change.test.ts.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import type { ProjectJson, RealServer } from "./real-server.ts";
import { call, createProject, ok, startServer, stopServer } from "./real-server.ts";
import { csrfOf, getPage, postForm, signInUser } from "./form-client.ts";
import { smtpReceiver } from "../notify/receivers.ts";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";

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
const LINK = /https?:\/\/\S+\/invite\/[\w-]{43}/;
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const auditEvents = async () => (await ok<AuditJson>(call(server.url, "GET", "/admin/v1/audit", { headers: admin }))).events;
/** The newest mail to `to`; fails when none has come within 20 s (a failure deadline). */
const mailTo = async (to: string) => {
  const sentTo = (m: (typeof smtp.mails)[number]) => (m.to && "text" in m.to ? m.to.text : "") === to;
  for (const failAt = Date.now() + 20_000; !smtp.mails.some(sentTo);) {
    if (Date.now() > failAt) throw new Error(`no mail to ${to} within 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const mail = smtp.mails.filter(sentTo).pop();
  smtp.mails.splice(smtp.mails.indexOf(mail!), 1); // each mail read once
  return mail!;
};
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

test("a new email asks the password, must be free and valid, and waits for the link mailed to it; followed, it ends every other session and is recorded", async () => {
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

  const asked = await change({ email: "Ann.New@corp.example", password: PASSWORD });
  assert.is(asked.status, 200, asked.text.slice(0, 300));
  assert.match(asked.text, "A link to confirm ann.new@corp.example is on its way to that address. Your email stays ann@corp.example");
  const mail = await mailTo("ann.new@corp.example");
  assert.is(mail.subject, "Confirm your new email for hcd");
  const link = LINK.exec(mail.text ?? "")?.[0] ?? "";
  assert.ok(link !== "", mail.text);
  const path = new URL(link).pathname;
  const token = path.split("/").pop() ?? "";
  // pending: nothing changed yet, and only the token's hash is kept
  assert.ok(await signedIn(there), "no session ended yet");
  assert.is((await signInUser(server, "ann.new@corp.example", PASSWORD)).cookie, "", "the new email does not sign in yet");
  assert.ok((await signInUser(server, "ann@corp.example", PASSWORD)).cookie !== "", "the old one still does");
  assert.match(
    (await getPage(server.url, "/account", here)).text,
    "ann.new@corp.example becomes your email once the link mailed to it is opened",
  );
  const stored = readFileSync(join(dir.path, "accounts.json"), "utf8");
  assert.not.ok(stored.includes(token), "the token is not stored");
  assert.ok(stored.includes(sha256(token)), "its hash is");
  assert.not.ok(
    (await auditEvents()).some((e) => e.action === "account.email_changed"),
    "nothing recorded yet",
  );
  // opening the link changes nothing (a mail scanner opens links): its button does
  const opened = await getPage(server.url, path, "");
  assert.is(opened.status, 200);
  assert.match(opened.text, "is to have the email <strong>ann.new@corp.example</strong>");
  assert.is((await signInUser(server, "ann.new@corp.example", PASSWORD)).cookie, "");

  const followed = await postForm(server.url, path, {}, { cookie: here });
  assert.is(followed.status, 303, followed.text.slice(0, 300));
  assert.is(followed.location, "/account?done=email");
  assert.ok(followed.cookie !== "", "this browser gets a new session");
  assert.match(
    (await getPage(server.url, "/account?done=email", followed.cookie)).text,
    "Your email is now ann.new@corp.example. Every other session has been signed out.",
  );
  assert.not.ok(await signedIn(there), "the other session ended");
  assert.not.ok(await signedIn(here), "and the old session of this browser");
  assert.is((await signInUser(server, "ann@corp.example", PASSWORD)).cookie, "", "the old email signs in no more");
  assert.ok((await signInUser(server, "ann.new@corp.example", PASSWORD)).cookie !== "");
  // the old address is told (a positive marker: the mail itself)
  const told = await mailTo("ann@corp.example");
  assert.is(told.subject, "Your hcd email was changed");
  assert.match(told.text ?? "", "is now ann.new@corp.example");
  const listed = await ok<{ users: UserJson[] }>(call(server.url, "GET", "/admin/v1/users", { headers: admin }));
  assert.is(listed.users.find((u) => u.id === users["ann@corp.example"].id)?.email, "ann.new@corp.example");
  const event = (await auditEvents()).find((e) => e.action === "account.email_changed");
  assert.ok(
    event !== undefined &&
      event.actor === "ann.new@corp.example" &&
      event.target.includes("from ann@corp.example, by an emailed confirmation link"),
    JSON.stringify((await auditEvents()).slice(0, 3)),
  );
  // used: refused, and gone from the store
  const again = await postForm(server.url, path, {});
  assert.is(again.status, 404);
  assert.match(again.text, "This link is unknown, used or expired");
  assert.not.ok(readFileSync(join(dir.path, "accounts.json"), "utf8").includes(sha256(token)), "the used link's hash is gone");
  assert.not.ok(server.output().includes(token), "the token is in no log");
});

test("the address waiting for its link is not held: another user's change made first has it, and the later link is refused", async () => {
  const bob = await session("bob@corp.example"),
    dave = await session("dave@corp.example");
  const ask = async (cookie: string, email: string) => {
    const asked = await postForm(
      server.url,
      "/account/email",
      { csrf: await csrfOf(server.url, cookie), email, password: PASSWORD },
      { cookie },
    );
    assert.is(asked.status, 200, asked.text.slice(0, 300));
    return new URL(LINK.exec((await mailTo(email)).text ?? "")?.[0] ?? "http://x/").pathname;
  };
  const bobsFirst = await ask(bob, "bob.first@corp.example");
  const bobs = await ask(bob, "shared@corp.example");
  assert.is((await postForm(server.url, bobsFirst, {})).status, 404, "a second change asked replaces the first");
  const daves = await ask(dave, "shared@corp.example");
  const davesFollowed = await postForm(server.url, daves, {}); // in a browser not signed in
  assert.is(davesFollowed.status, 200, davesFollowed.text.slice(0, 300));
  assert.match(davesFollowed.text, "Your email is now <strong>shared@corp.example</strong>");
  const bobsFollowed = await postForm(server.url, bobs, {});
  assert.is(bobsFollowed.status, 409, bobsFollowed.text.slice(0, 300));
  assert.match(bobsFollowed.text, "Another user has this email by now: nothing was changed.");
  const { users: listed } = await ok<{ users: UserJson[] }>(call(server.url, "GET", "/admin/v1/users", { headers: admin }));
  assert.equal(
    [users["bob@corp.example"].id, users["dave@corp.example"].id].map((id) => listed.find((u) => u.id === id)?.email),
    ["bob@corp.example", "shared@corp.example"],
  );
  assert.ok(await signedIn(bob), "bob's session goes on");
  assert.not.ok(await signedIn(dave), "dave's ended with the change");
  const refused = await postForm(
    server.url,
    "/account/email",
    { csrf: await csrfOf(server.url, bob), email: "shared@corp.example", password: PASSWORD },
    { cookie: bob },
  );
  assert.is(refused.status, 400);
  assert.match(refused.text, "Another user has this email.");
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
