// The audit log is complete and can't be flushed, against a real server: a user's removal is recorded in
// every project they held a role in, a check a ping made with ?create=1 is recorded; sign-ins, failed
// sign-ins, the second factor on and off, a password changed and a backup are in the instance's log
// (GET /admin/v1/audit); and a member's flood of clicks pushes out only their own older events of the same
// action, never their deletion nor anyone else's events (the count cap is per actor and action).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { stepNow, totp } from "../totp-codes.ts";
import type { ProjectJson, RealServer } from "./real-server.ts";
import { call, createProject, ok, startServer, stopServer } from "./real-server.ts";
import { csrfOf, getPage, postForm, signInKey, signInUser } from "./form-client.ts";

const TOKEN = "audit-complete-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "an audited password";

const dir = tempDir();
let server: RealServer;
let project: ProjectJson;

test.before(async () => {
  server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, AUDIT_MAX_EVENTS: "5" } });
  project = await createProject(server, TOKEN, { name: "Audited" });
});
test.after(async () => {
  if (server) assert.is(await stopServer(server), 0, server.output());
  dir.remove();
});

type Event = { actor: string; action: string; target: string };
const logOf = async (path: string): Promise<Event[]> => {
  const events: Event[] = [];
  for (let before: string | null = null, first = true; first || before !== null; first = false) {
    const page: { events: Event[]; next: string | null } = await ok(
      call(server.url, "GET", `${path}?limit=100${before === null ? "" : `&before=${before}`}`, { headers: admin }),
    );
    events.push(...page.events);
    before = page.next;
  }
  return events;
};
const lines = (events: Event[]) => events.map((e) => `${e.actor} | ${e.action} | ${e.target}`);
async function user(email: string, role: string | null, target = project): Promise<string> {
  const made = await ok<{ id: string }>(
    call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email, password: PASSWORD } }),
  );
  if (role !== null)
    await ok(call(server.url, "PUT", `/admin/v1/projects/${target.id}/members/${made.id}`, { headers: admin, body: { role } }));
  return made.id;
}

test("a user removed through the admin API leaves member.removed in every project they held a role in", async () => {
  const other = await createProject(server, TOKEN, { name: "Other" });
  const id = await user("leaver@corp.example", "manager");
  await ok(call(server.url, "PUT", `/admin/v1/projects/${other.id}/members/${id}`, { headers: admin, body: { role: "readonly" } }));
  assert.is((await call(server.url, "DELETE", `/admin/v1/users/${id}`, { headers: admin })).status, 204);
  for (const p of [project, other]) {
    assert.ok(
      lines(await logOf(`/admin/v1/projects/${p.id}/audit`)).includes(`admin token | member.removed | user "leaver@corp.example" ${id}`),
      p.name,
    );
  }
  assert.ok(lines(await logOf("/admin/v1/audit")).includes(`admin token | user.deleted | user "leaver@corp.example" ${id}`));
});

test("a check made by a ping with ?create=1 is recorded", async () => {
  const made = await call(server.url, "GET", `/ping/${project.ping_key}/made-by-ping?create=1`);
  assert.is(made.status, 201);
  const uuid = (
    await ok<{ checks: { slug: string; uuid: string }[] }>(call(server.url, "GET", "/api/v3/checks/", { key: project.api_key }))
  ).checks.find((c) => c.slug === "made-by-ping")?.uuid;
  const log = lines(await logOf(`/admin/v1/projects/${project.id}/audit`));
  assert.ok(
    log.includes(`ping by slug (?create=1) | check.created | check "made-by-ping" ${uuid}`),
    `no check.created by the ping in: ${log.join("\n")}`,
  );
});

test("sign-ins, failed ones, the second factor on and off, a password change and a backup are in the instance's log", async () => {
  await user("ann@corp.example", "member");
  assert.is((await signInUser(server, "ann@corp.example", "not the password", "127.0.0.70")).status, 401);
  assert.is((await signInUser(server, "nobody@corp.example", "not the password", "127.0.0.70")).status, 401);
  const cookie = (await signInUser(server, "ann@corp.example", PASSWORD, "127.0.0.70")).cookie;
  const secret = /class="totp-secret">([A-Z2-7]+)</.exec((await getPage(server.url, "/account", cookie)).text)?.[1] ?? "";
  const step = stepNow();
  const on = await postForm(
    server.url,
    "/account/second-factor/on",
    { csrf: await csrfOf(server.url, cookie), secret, code: totp(secret, step), password: PASSWORD },
    { cookie },
  );
  const recovery = [...on.text.matchAll(/<li><code>([0-9a-f-]{19})<\/code><\/li>/g)].map((m) => m[1]);
  const off = await postForm(
    server.url,
    "/account/second-factor/off",
    { csrf: await csrfOf(server.url, on.cookie), code: recovery[0] },
    { cookie: on.cookie },
  );
  const changed = await postForm(
    server.url,
    "/account/password",
    { csrf: await csrfOf(server.url, off.cookie), current: PASSWORD, password: "a changed password" },
    { cookie: off.cookie },
  );
  assert.is(changed.status, 200);
  await signInKey(server.url, TOKEN);
  assert.is((await call(server.url, "POST", "/admin/v1/backup", { headers: admin })).status, 200);
  const actions = (await logOf("/admin/v1/audit")).reverse().map((e) => `${e.actor} | ${e.action}`);
  const expected = [
    "ann@corp.example | account.sign_in_failed",
    "unknown email | account.sign_in_failed",
    "ann@corp.example | account.signed_in",
    "ann@corp.example | account.second_factor_on",
    "ann@corp.example | account.second_factor_off",
    "ann@corp.example | account.password_changed",
    "admin token | account.signed_in",
    "admin token | backup.created",
  ];
  const seen = actions.filter((line) => expected.includes(line));
  assert.equal(seen, expected, actions.join("\n"));
  assert.match(
    lines(await logOf("/admin/v1/audit")).join("\n"),
    /unknown email \| account\.sign_in_failed \| user "nobody@corp\.example" by password from 127\.0\.0\.70/,
  );
});

test("a member's flood of clicks pushes out only their own older events of that action: their deletion and others' events stay", async () => {
  await user("flooder@corp.example", "member");
  const cookie = (await signInUser(server, "flooder@corp.example", PASSWORD)).cookie;
  const newCheck = async (name: string) =>
    (await ok<{ uuid: string }>(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name } }))).uuid;
  const doomed = await newCheck("doomed"),
    toggled = await newCheck("toggled");
  const csrf = await csrfOf(server.url, cookie, `/projects/${project.id}/checks`);
  assert.is((await postForm(server.url, `/checks/${doomed}/delete`, { csrf }, { cookie })).status, 303);
  for (let i = 0; i < 20; i++) {
    assert.is((await postForm(server.url, `/checks/${toggled}/${i % 2 === 0 ? "pause" : "resume"}`, { csrf }, { cookie })).status, 303);
  }
  const log = lines(await logOf(`/admin/v1/projects/${project.id}/audit`));
  assert.ok(log.includes(`flooder@corp.example | check.deleted | check "doomed" ${doomed}`), log.join("\n"));
  assert.ok(log.includes(`admin token | project.created | project "Audited" ${project.id}`), "another actor's oldest event stays");
  assert.is(
    log.filter((line) => line.startsWith("flooder@corp.example | check.paused")).length,
    5,
    "the cap: five of an actor's one action",
  );
  assert.is(log.filter((line) => line.startsWith("flooder@corp.example | check.resumed")).length, 5);
});

test.run();
