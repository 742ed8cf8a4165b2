// Invitations are scoped to their inviter and project, against a real server (the review's steps): a
// manager of A who "invites" an email with a pending invitation to B gets a link that sets no password and
// gives nothing of B; the person's own B link still works and gives B's role alone; A's invitation is a
// separate grant the person accepts signed in. In the other order, B's later invitation can't be taken by
// A's inviter either. Every role given by a link is in its project's audit log.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import type { ProjectJson, RealServer } from "./real-server.ts";
import { call, createProject, ok, startServer, stopServer } from "./real-server.ts";
import { csrfOf, getPage, postForm, signInKey, signInUser } from "./form-client.ts";

const TOKEN = "invitations-scoped-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const LINK = /\/invite\/[A-Za-z0-9_-]{43}/;

const dir = tempDir();
let server: RealServer;
let a: ProjectJson, b: ProjectJson;
let adminCookie = "";

test.before(async () => {
  server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
  a = await createProject(server, TOKEN, { name: "A" });
  b = await createProject(server, TOKEN, { name: "B" });
  adminCookie = await signInKey(server.url, TOKEN);
});
test.after(async () => {
  if (server) assert.is(await stopServer(server), 0, server.output());
  dir.remove();
});

/** Invites `email` as `role` on the project's Members page through `cookie`'s session; the link shown. */
async function invite(project: ProjectJson, cookie: string, email: string, role: string): Promise<{ link: string; text: string }> {
  const csrf = await csrfOf(server.url, cookie, `/projects/${project.id}/members`);
  const answer = await postForm(server.url, `/projects/${project.id}/members`, { csrf, email, role }, { cookie });
  assert.is(answer.status, 200, answer.text.slice(0, 300));
  const link = LINK.exec(answer.text)?.[0] ?? "";
  assert.ok(link !== "", answer.text.slice(0, 500));
  return { link, text: answer.text };
}
/** A user with a password and `role` in `project`, signed in. */
async function member(email: string, project: ProjectJson, role: string): Promise<string> {
  const user = await ok<{ id: string }>(
    call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email, password: `${email} password` } }),
  );
  await ok(call(server.url, "PUT", `/admin/v1/projects/${project.id}/members/${user.id}`, { headers: admin, body: { role } }));
  return (await signInUser(server, email, `${email} password`)).cookie;
}
const roleIn = async (project: ProjectJson, email: string) =>
  (
    await ok<{ members: { email: string; role: string }[] }>(
      call(server.url, "GET", `/admin/v1/projects/${project.id}/members`, { headers: admin }),
    )
  ).members.find((m) => m.email === email)?.role ?? null;
const auditOf = async (project: ProjectJson) =>
  (
    await ok<{ events: { actor: string; action: string; target: string }[] }>(
      call(server.url, "GET", `/admin/v1/projects/${project.id}/audit`, { headers: admin }),
    )
  ).events;

test("a manager of A can't take over an invitation pending in B: their link sets no password and gives nothing of B", async () => {
  const owed = await invite(b, adminCookie, "victim@corp.example", "owner"); // the admin invites the victim to B as owner
  const mallory = await member("mallory@corp.example", a, "manager");
  assert.is((await getPage(server.url, `/projects/${b.id}/settings`, mallory)).status, 404);
  const theirs = await invite(a, mallory, "victim@corp.example", "readonly");
  const taken = await postForm(server.url, theirs.link, { password: "chosen by mallory 1" });
  assert.is(await roleIn(b, "victim@corp.example"), null, "B's role not given");
  assert.is(taken.status, 403, taken.text.slice(0, 300));
  assert.is(taken.cookie, "", "no session");
  assert.is((await signInUser(server, "victim@corp.example", "chosen by mallory 1")).status, 401, "the victim's password was not set");
  assert.match(theirs.text, /has not set up its account yet/, "the inviter is told the link gives the role only");
  assert.match((await getPage(server.url, theirs.link, "")).text, /not set up yet/);
  // the victim's own link, from B's invitation: sets their password and gives B's role alone
  const own = await postForm(server.url, owed.link, { password: "the victim's own password" });
  assert.is(own.status, 303, own.text.slice(0, 300));
  assert.is(await roleIn(b, "victim@corp.example"), "owner");
  assert.is(await roleIn(a, "victim@corp.example"), null, "A's invitation is a separate grant");
  // A's invitation: accepted by the victim signed in
  const page = await getPage(server.url, theirs.link, own.cookie);
  assert.match(page.text, /the role <strong>readonly<\/strong> in the project <strong>A<\/strong>/);
  const accepted = await postForm(server.url, theirs.link, { csrf: await csrfOf(server.url, own.cookie) }, { cookie: own.cookie });
  assert.is(accepted.status, 303, accepted.text.slice(0, 300));
  assert.is(await roleIn(a, "victim@corp.example"), "readonly");
  assert.is((await getPage(server.url, `/projects/${b.id}/settings`, mallory)).status, 404, "mallory has nothing of B");
  // each project's audit log names the role its link gave, by the victim
  assert.ok(
    (await auditOf(b)).some((e) => e.action === "member.accepted" && e.actor === "victim@corp.example" && /as owner$/.test(e.target)),
    JSON.stringify(await auditOf(b)),
  );
  assert.ok(
    (await auditOf(a)).some((e) => e.action === "member.accepted" && e.actor === "victim@corp.example" && /as readonly$/.test(e.target)),
  );
});

test("in the other order: A's inviter sets up the account their invitation made, and still can't take B's later invitation", async () => {
  const mallory = await member("mallory2@corp.example", a, "manager");
  const first = await invite(a, mallory, "second@corp.example", "readonly"); // A invites first: its link makes the account
  const bManager = await member("bmanager@corp.example", b, "manager");
  const later = await invite(b, bManager, "second@corp.example", "manager");
  // mallory uses her own link: the account her invitation made, with A's role alone
  const squat = await postForm(server.url, first.link, { password: "chosen by mallory 2" });
  assert.is(squat.status, 303);
  assert.is(await roleIn(b, "second@corp.example"), null, "B's pending role is not hers");
  assert.is(await roleIn(a, "second@corp.example"), "readonly");
  assert.match(later.text, /has not set up its account yet/, "B's link only gives B's role");
  assert.is((await getPage(server.url, `/projects/${b.id}/checks`, squat.cookie)).status, 404, "B stays closed to the account she set up");
  // B's link gives B's role to that account signed in, which takes the link B's inviter gave (or the email got)
  const accepted = await postForm(server.url, later.link, { csrf: await csrfOf(server.url, squat.cookie) }, { cookie: squat.cookie });
  assert.is(accepted.status, 303);
  assert.is(await roleIn(b, "second@corp.example"), "manager", "only with B's own link");
});

test.run();
