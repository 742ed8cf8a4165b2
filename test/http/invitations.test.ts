// Invitations from a project's members page against a real hcd process and a real SMTP receiver on
// loopback: a manager invites a new email with a role; the link is shown to the manager and arrives by
// email; it sets a password once, opens a session and gives the role; a second use is refused; a role the
// manager may not give invites nobody; one not used yet can be cancelled; the admin API's invitations are
// emailed too. Without SMTP_URL the link is still shown.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { smtpReceiver } from "../notify/receivers.ts";
import type { ProjectJson, RealServer } from "../security/real-server.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";

const TOKEN = "invitations-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "correct horse battery";
const LINK = /https?:\/\/[^\s"<]+\/invite\/[\w-]{43}/;

let smtp: Awaited<ReturnType<typeof smtpReceiver>>;
const dir = tempDir();
let server: RealServer;
let project: ProjectJson;

test.before(async () => {
  smtp = await smtpReceiver();
  server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, SMTP_URL: smtp.url } });
  project = await createProject(server, TOKEN, { name: "Ops" });
});
test.after(async () => {
  if (server) assert.is(await stopServer(server), 0, server.output());
  await smtp?.close();
  dir.remove();
});

async function post(url: string, fields: Record<string, string>, cookie = "") {
  const response = await fetch(url, { method: "POST", body: new URLSearchParams(fields), redirect: "manual", headers: { cookie } });
  return { status: response.status, text: await response.text(), cookie: (response.headers.get("set-cookie") ?? "").split(";")[0] };
}
async function get(url: string, cookie = "") {
  const response = await fetch(url, { redirect: "manual", headers: { cookie } });
  return { status: response.status, text: await response.text() };
}
/** A user with `role` in the project, signed in: their session cookie and the members form's CSRF token. */
async function signedIn(base: string, email: string, role: string) {
  const user = await ok<{ id: string }>(call(base, "POST", "/admin/v1/users", { headers: admin, body: { email, password: PASSWORD } }));
  await ok(call(base, "PUT", `/admin/v1/projects/${project.id}/members/${user.id}`, { headers: admin, body: { role } }));
  const { cookie } = await post(`${base}/signin/password`, { email, password: PASSWORD });
  const page = await get(`${base}/projects/${project.id}/members`, cookie);
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? "" };
}
const membersOf = async (base: string, projectId: string) =>
  (
    await ok<{ members: { email: string; role: string }[] }>(
      call(base, "GET", `/admin/v1/projects/${projectId}/members`, { headers: admin }),
    )
  ).members;

test("a manager's invitation: the link is shown and emailed, sets a password once and gives the role; the second use is refused", async () => {
  const manager = await signedIn(server.url, "mgr@example.org", "manager");
  const invited = await post(
    `${server.url}/projects/${project.id}/members`,
    { csrf: manager.csrf, email: "New@Example.org", role: "member" },
    manager.cookie,
  );
  assert.is(invited.status, 200, invited.text);
  const shown = LINK.exec(invited.text)?.[0] ?? "";
  assert.ok(shown !== "", "the link is on the inviter's page");
  assert.match(invited.text, /It was sent to that email/);
  // hcd answers once the SMTP server has taken the message, which the receiver records before taking it
  assert.equal(
    smtp.mails.map((m) => (m.to && "text" in m.to ? m.to.text : "")),
    ["new@example.org"],
  );
  const mailed = LINK.exec(smtp.mails[0].text ?? "")?.[0] ?? "";
  assert.is(mailed, shown, "the email carries the same link");
  assert.match(smtp.mails[0].text ?? "", /member of the project Ops/);

  const members = await get(`${server.url}/projects/${project.id}/members`, manager.cookie);
  assert.match(members.text, /Invitations not used yet[\s\S]*new@example\.org<\/td><td>member/);
  assert.not.ok(
    (await membersOf(server.url, project.id)).some((m) => m.email === "new@example.org"),
    "no role before the link is used",
  );

  const path = new URL(mailed).pathname;
  assert.match((await get(server.url + path)).text, /new@example\.org/);
  const accepted = await post(server.url + path, { password: PASSWORD });
  assert.is(accepted.status, 303);
  assert.match(accepted.cookie, /^hcd_session=./);
  assert.is((await get(`${server.url}/projects/${project.id}/members`, accepted.cookie)).status, 200, "the new session opens the project");
  assert.ok((await membersOf(server.url, project.id)).some((m) => m.email === "new@example.org" && m.role === "member"));

  const again = await post(server.url + path, { password: "another long password" });
  assert.is(again.status, 404);
  assert.match(again.text, /unknown, used or expired/);
  assert.is((await get(server.url + path)).status, 404);
  assert.is(
    (await post(`${server.url}/signin/password`, { email: "new@example.org", password: "another long password" })).status,
    401,
    "the second use set nothing",
  );
  assert.not.match((await get(`${server.url}/projects/${project.id}/members`, manager.cookie)).text, /Invitations not used yet/);
});

test("inviting an email again before it joined makes a new link in place of the inviter's older one, and gives no role", async () => {
  const manager = await signedIn(server.url, "mgr3@example.org", "manager");
  const invite = async (role: string) => {
    const answer = await post(
      `${server.url}/projects/${project.id}/members`,
      { csrf: manager.csrf, email: "twice@example.org", role },
      manager.cookie,
    );
    assert.is(answer.status, 200, answer.text);
    return new URL(LINK.exec(answer.text)?.[0] ?? "http://x/").pathname;
  };
  const first = await invite("readonly");
  const second = await invite("member");
  assert.is.not(second, first);
  assert.not.ok(
    (await membersOf(server.url, project.id)).some((m) => m.email === "twice@example.org"),
    "no role before a link is used",
  );
  assert.is((await post(server.url + second, { password: PASSWORD })).status, 303);
  assert.equal(
    (await membersOf(server.url, project.id)).filter((m) => m.email === "twice@example.org").map((m) => m.role),
    ["member"],
    "the newest invitation's role",
  );
  assert.is((await post(server.url + first, { password: "another long password" })).status, 404, "the older link was replaced");
  const joined = await post(
    `${server.url}/projects/${project.id}/members`,
    { csrf: manager.csrf, email: "twice@example.org", role: "readonly" },
    manager.cookie,
  );
  assert.is(joined.status, 303, "once joined, the form changes the role at once");
  assert.equal(
    (await membersOf(server.url, project.id)).filter((m) => m.email === "twice@example.org").map((m) => m.role),
    ["readonly"],
  );
  const { events } = await ok<{ events: { actor: string; action: string; target: string }[] }>(
    call(server.url, "GET", `/admin/v1/projects/${project.id}/audit`, { headers: admin }),
  );
  assert.equal(
    events.filter((e) => e.target.includes("twice@example.org")).map((e) => [e.actor, e.action, / as (\w+)$/.exec(e.target)?.[1]]),
    [
      ["mgr3@example.org", "member.role_set", "readonly"],
      ["twice@example.org", "member.accepted", "member"],
      ["mgr3@example.org", "member.invited", "member"],
      ["mgr3@example.org", "member.invited", "readonly"],
    ],
    "the audit log, newest first",
  );
});

test("a manager cancels an invitation not used yet: its link no longer works, the audit log says who; an owner's invitation is the owner's to cancel", async () => {
  const manager = await signedIn(server.url, "mgr4@example.org", "manager");
  const owner = await signedIn(server.url, "owner4@example.org", "owner");
  const invite = async (who: { cookie: string; csrf: string }, email: string, role: string) => {
    const answer = await post(`${server.url}/projects/${project.id}/members`, { csrf: who.csrf, email, role }, who.cookie);
    assert.is(answer.status, 200, answer.text);
    return new URL(LINK.exec(answer.text)?.[0] ?? "http://x/").pathname;
  };
  const link = await invite(manager, "typo@exmaple.org", "member");
  await invite(owner, "next-owner@example.org", "owner");
  const users = await ok<{ users: { id: string; email: string }[] }>(call(server.url, "GET", "/admin/v1/users", { headers: admin }));
  const idOf = (email: string) => users.users.find((u) => u.email === email)?.id ?? "";
  const page = (await get(`${server.url}/projects/${project.id}/members`, manager.cookie)).text;
  assert.match(page, `aria-label="Cancel the invitation of typo@exmaple.org"`);
  assert.not.match(page, `aria-label="Cancel the invitation of next-owner@example.org"`, "a manager does not take the owner role");
  const cancel = (who: { cookie: string; csrf: string }, email: string) =>
    post(`${server.url}/projects/${project.id}/invitations/${idOf(email)}/cancel`, { csrf: who.csrf }, who.cookie);
  assert.is((await cancel(manager, "next-owner@example.org")).status, 403);
  const cancelled = await cancel(manager, "typo@exmaple.org");
  assert.is(cancelled.status, 303, cancelled.text);
  const after = await get(`${server.url}/projects/${project.id}/members?done=cancelled`, manager.cookie);
  assert.match(after.text, "Invitation cancelled: its link no longer works.");
  assert.not.match(after.text, "typo@exmaple.org");
  assert.is((await get(server.url + link)).status, 404, "the link opens nothing");
  assert.is((await post(server.url + link, { password: PASSWORD })).status, 404, "nor sets a password");
  assert.is((await cancel(manager, "typo@exmaple.org")).status, 404, "cancelled already");
  assert.is((await cancel(owner, "next-owner@example.org")).status, 303);
  const { events } = await ok<{ events: { actor: string; action: string; target: string }[] }>(
    call(server.url, "GET", `/admin/v1/projects/${project.id}/audit`, { headers: admin }),
  );
  assert.equal(
    events.filter((e) => e.action === "member.invitation_cancelled").map((e) => [e.actor, e.target]),
    [
      ["owner4@example.org", `user "next-owner@example.org" ${idOf("next-owner@example.org")} as owner`],
      ["mgr4@example.org", `user "typo@exmaple.org" ${idOf("typo@exmaple.org")} as member`],
    ],
  );
});

test("an invitation to a role the inviter may not give is refused: no user, no email", async () => {
  const manager = await signedIn(server.url, "mgr2@example.org", "manager");
  const mailsBefore = smtp.mails.length;
  const refused = await post(
    `${server.url}/projects/${project.id}/members`,
    { csrf: manager.csrf, email: "would-be-owner@example.org", role: "owner" },
    manager.cookie,
  );
  assert.is(refused.status, 403);
  const users = await ok<{ users: { email: string }[] }>(call(server.url, "GET", "/admin/v1/users", { headers: admin }));
  assert.not.ok(users.users.some((u) => u.email === "would-be-owner@example.org"));
  // a later invitation's email is the next one the receiver holds: none came for the refused one
  const ok2 = await post(
    `${server.url}/projects/${project.id}/members`,
    { csrf: manager.csrf, email: "reader@example.org", role: "readonly" },
    manager.cookie,
  );
  assert.is(ok2.status, 200);
  assert.equal(
    smtp.mails.slice(mailsBefore).map((m) => (m.to && "text" in m.to ? m.to.text : "")),
    ["reader@example.org"],
  );
});

test("an invitation made through the admin API is emailed too, with the link the answer carries", async () => {
  const before = smtp.mails.length;
  const made = await ok<{ invite_url: string }>(
    call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: "api@example.org" } }),
  );
  const failAt = Date.now() + 10_000; // a failure deadline: the mail must come (it is sent after the answer)
  while (smtp.mails.length === before) {
    if (Date.now() > failAt) throw new Error("no invitation mail within 10 s");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const mail = smtp.mails[before];
  assert.equal(mail.to && "text" in mail.to ? mail.to.text : "", "api@example.org");
  assert.is(LINK.exec(mail.text ?? "")?.[0], made.invite_url);
});

test("without SMTP_URL the inviter is shown the link and told to give it", async () => {
  const bare = tempDir();
  const plain = await startServer({ dataDir: bare.path, env: { ADMIN_TOKEN: TOKEN } });
  try {
    const other = await createProject(plain, TOKEN, { name: "Plain" });
    const { cookie } = await post(`${plain.url}/signin`, { key: TOKEN });
    const page = await get(`${plain.url}/projects/${other.id}/members`, cookie);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? "";
    const invited = await post(`${plain.url}/projects/${other.id}/members`, { csrf, email: "solo@example.org", role: "owner" }, cookie);
    assert.is(invited.status, 200, invited.text);
    assert.match(invited.text, /SMTP_URL is not set/);
    const path = new URL(LINK.exec(invited.text)?.[0] ?? "http://x/").pathname;
    assert.is((await post(plain.url + path, { password: PASSWORD })).status, 303);
    assert.ok((await membersOf(plain.url, other.id)).some((m) => m.email === "solo@example.org" && m.role === "owner"));
  } finally {
    assert.is(await stopServer(plain), 0, plain.output());
    bare.remove();
  }
});

test.run();
