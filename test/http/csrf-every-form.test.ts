// CSRF on every dashboard form against a real hcd process on loopback: signed in with the admin token,
// as a project's owner and with a project API key, the dashboard is crawled from "/" along its links,
// every <form method="post"> is collected with its fields (test/http/dashboard-crawl.ts), and each is
// posted as the page would post it but with no CSRF token, an empty one, and another live session's
// token: every post is refused with the 403 of a bad token, and nothing the admin API, the API or the
// account page shows has changed. A post from another site (its Origin) is refused even with the right
// token, the sign-in forms too.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { generateSync } from "otplib"; // only to type a right code into the second-factor forms: TOTP itself is test/http/second-factor.test.ts's
import { tempDir } from "../helpers.ts";
import type { ProjectJson, RealServer } from "../security/real-server.ts";
import { call, createProject, dumpProject, ok, startServer, stopServer } from "../security/real-server.ts";
import type { FoundForm } from "./dashboard-crawl.ts";
import { crawlForms, formsAndLinks } from "./dashboard-crawl.ts";

const TOKEN = "csrf-every-form-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "correct horse battery";
const OWNER = "owner@example.org";

const dir = tempDir();
let server: RealServer;
let project: ProjectJson;
let checkId = "";
let ownerSecret = ""; // the owner's TOTP secret, once turned on
/** The session cookies and CSRF tokens of the admin token's and the owner's sign-ins. */
const signedIn = { admin: { cookie: "", csrf: "" }, owner: { cookie: "", csrf: "" } };

test.before(async () => {
  // API_RATE_LIMIT=0: the before/after reads of every field of the project are more than 100 API calls a minute
  server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, API_RATE_LIMIT: "0" } });
  project = await createProject(server, TOKEN, { name: "Ops" });
  const base = `/admin/v1/projects/${project.id}`;
  const adminPost = (path: string, body: Record<string, unknown>) =>
    ok<Record<string, unknown>>(call(server.url, "POST", path, { headers: admin, body }));
  checkId = (
    await ok<{ uuid: string }>(
      call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "backup", channels: "*" } }),
    )
  ).uuid;
  const newCheck = async (name: string) =>
    (await ok<{ uuid: string }>(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name } }))).uuid;
  const failing = await newCheck("nightly"); // down: its page has "Acknowledge"
  const paused = await newCheck("weekly"); // paused: its page has "Resume"
  await call(server.url, "GET", `/ping/${checkId}`);
  await call(server.url, "POST", `/ping/${failing}/fail`, { body: "disk full" });
  await ok(call(server.url, "POST", `/api/v3/checks/${paused}/pause`, { key: project.api_key }));
  await adminPost(`${base}/channels`, { name: "hook", kind: "webhook", value: "http://127.0.0.1:9/hook" });
  await adminPost(`${base}/maintenance`, { name: "nightly backup", schedule: "0 3 * * *", tz: "UTC", duration: 3600 });
  await adminPost(`${base}/status-pages`, { slug: "ops", title: "Ops status", checks: [checkId] });
  for (const [email, role] of [
    [OWNER, "owner"],
    ["member@example.org", "member"],
  ]) {
    const user = await adminPost("/admin/v1/users", { email, password: PASSWORD });
    await ok(call(server.url, "PUT", `${base}/members/${String(user.id)}`, { headers: admin, body: { role } }));
  }
  signedIn.admin = await signIn("/signin", { key: TOKEN });
  signedIn.owner = await signIn("/signin/password", { email: OWNER, password: PASSWORD });
});
test.after(async () => {
  if (server) assert.is(await stopServer(server), 0, server.output());
  dir.remove();
});

/** Posts a form body (fields in order, repeated names kept) with a cookie; never follows a redirect. */
async function post(url: string, fields: readonly [string, string][], cookie: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    body: new URLSearchParams(fields.map(([k, v]) => [k, v])),
    redirect: "manual",
    headers: { cookie, ...headers },
  });
  return { status: response.status, text: await response.text(), setCookie: response.headers.get("set-cookie") ?? "" };
}
/** Signs in with a form of the sign-in page; returns the session cookie (name=value) and its pages' CSRF token. */
async function signIn(path: string, fields: Record<string, string>): Promise<{ cookie: string; csrf: string }> {
  const answer = await post(server.url + path, Object.entries(fields), "");
  assert.is(answer.status, 303, answer.text);
  const cookie = answer.setCookie.split(";")[0];
  const page = `${server.url}/projects/${project.id}/checks`;
  const html = await (await fetch(page, { headers: { cookie } })).text();
  const csrf = formsAndLinks(html, page).forms[0]?.fields.find(([name]) => name === "csrf")?.[1] ?? "";
  assert.ok(csrf.length >= 32, html);
  return { cookie, csrf };
}

/** A form's fields with the blanks a person would type filled in, so that each post, were it taken, would change something. */
function filled(form: FoundForm): [string, string][] {
  const secret = form.fields.find(([name]) => name === "secret")?.[1];
  const typed: Record<string, string> = {
    name: "forged",
    title: "Forged",
    slug: "forged",
    email: "forged@example.org",
    value: "http://127.0.0.1:9/forged",
    schedule: "0 4 * * *",
    until: "2100-01-01T00:00",
    "f.url": "http://127.0.0.1:9/forged",
    code: secret === undefined ? "" : generateSync({ secret }),
    current: PASSWORD,
    password: form.action.endsWith("/account/password") ? "a forged new password" : PASSWORD,
  };
  return form.fields.map(([name, value]) => [name, value === "" && Object.hasOwn(typed, name) ? typed[name] : value]);
}
/** A form's action with ids replaced, to compare with the list of the dashboard's POST routes. */
const routeOf = (action: string) =>
  new URL(action).pathname.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, ":id");
/** Each distinct form once: the same action with other fields (the integrations' kinds) counts apart. */
function distinct(forms: readonly FoundForm[]): FoundForm[] {
  const seen = new Map<string, FoundForm>();
  for (const form of forms) {
    const key = JSON.stringify([
      form.action,
      form.fields.map(([name, value]) => (name === "csrf" ? name : [name, name === "kind" ? value : ""])),
    ]);
    if (!seen.has(key)) seen.set(key, form);
  }
  return [...seen.values()];
}

/** Everything a form could change, as the admin API, the API and the owner's account page show it. */
async function everything(): Promise<string> {
  const adminGet = (path: string) => ok(call(server.url, "GET", path, { headers: admin }));
  const base = `/admin/v1/projects/${project.id}`;
  const account = await (await fetch(`${server.url}/account`, { headers: { cookie: signedIn.owner.cookie }, redirect: "manual" })).text();
  const accountForms = formsAndLinks(account, `${server.url}/account`).forms.map((form) => new URL(form.action).pathname);
  const home = await fetch(`${server.url}/`, { headers: { cookie: signedIn.admin.cookie }, redirect: "manual" });
  return JSON.stringify({
    api: await dumpProject(server.url, project),
    projects: await adminGet("/admin/v1/projects"),
    users: await adminGet("/admin/v1/users"),
    project: await adminGet(base),
    members: await adminGet(`${base}/members`),
    maintenance: await adminGet(`${base}/maintenance`),
    statusPages: await adminGet(`${base}/status-pages`),
    audit: await adminGet(`${base}/audit`),
    // the owner's sessions and second factor; the admin token's session still open
    ownerSessions: accountForms.filter((path) => path === "/account/sessions/signout").length,
    secondFactorOn: accountForms.includes("/account/second-factor/off"),
    adminSignedIn: home.status === 200 && (await home.text()).includes('action="/signout"'),
  });
}

/**
 * Posts each form as its page would, but with no CSRF token, an empty one and `otherToken` (another live
 * session's): each must be answered with the 403 of a bad token, and nothing may have changed.
 */
async function assertForgedRefused(forms: readonly FoundForm[], cookie: string, otherToken: string): Promise<void> {
  const before = await everything();
  assert.ok(before.includes('"ownerSessions":1') && before.includes('"adminSignedIn":true'), before.slice(-200));
  const wrong: string[] = [];
  for (const form of forms) {
    const fields = filled(form).filter(([name]) => name !== "csrf");
    const variants: [string, [string, string][]][] = [
      ["no", fields],
      ["an empty", [["csrf", ""], ...fields]],
      ["another session's", [["csrf", otherToken], ...fields]],
    ];
    for (const [label, body] of variants) {
      const answer = await post(form.action, body, cookie);
      if (answer.status !== 403 || !answer.text.includes("security token"))
        wrong.push(`${label} token: ${form.action} ${JSON.stringify(body)} -> ${answer.status} ${answer.text.slice(0, 120)}`);
    }
  }
  const after = await everything().catch((error: unknown) => `unreadable: ${String(error)}`);
  assert.equal(wrong, [], "every forged post refused with the 403 of a bad token");
  assert.is(after, before, "nothing changed");
}

/** The dashboard's POST routes behind a session that the admin token's pages have forms for. */
const ADMIN_ROUTES = [
  "/signout",
  "/projects",
  "/projects/:id/checks/new",
  "/projects/:id/mute",
  "/projects/:id/maintenance",
  "/projects/:id/maintenance/:id/delete",
  "/projects/:id/integrations/add/webhook",
  "/projects/:id/integrations/:id/edit",
  "/projects/:id/integrations/:id/remove",
  "/projects/:id/integrations/:id/test",
  "/projects/:id/status-pages",
  "/projects/:id/status-pages/ops/delete",
  "/projects/:id/members",
  "/projects/:id/members/:id/remove",
  "/projects/:id/rename",
  "/projects/:id/keys/read-write",
  "/projects/:id/keys/read-write/revoke",
  "/projects/:id/keys/read-only",
  "/projects/:id/keys/read-only/revoke",
  "/projects/:id/delete",
  "/checks/:id/edit",
  "/checks/:id/delete",
  "/checks/:id/pause",
  "/checks/:id/resume",
  "/checks/:id/ping",
  "/checks/:id/acknowledge",
  "/checks/:id/integrations",
];
/** Those an owner's pages have: the project's check, integration, member, status page, mute and management forms, and the account's. */
const OWNER_ROUTES = [
  "/projects/:id/status-pages",
  "/projects/:id/status-pages/ops/delete",
  "/projects/:id/rename",
  "/projects/:id/keys/read-write",
  "/projects/:id/keys/read-write/revoke",
  "/projects/:id/keys/read-only",
  "/projects/:id/keys/read-only/revoke",
  "/projects/:id/delete",
  "/signout",
  "/account/sessions/signout",
  "/account/second-factor/on",
  "/account/password",
  "/account/email",
  "/account/delete",
  "/projects/:id/checks/new",
  "/projects/:id/mute",
  "/projects/:id/maintenance",
  "/projects/:id/maintenance/:id/delete",
  "/projects/:id/integrations/add/webhook",
  "/projects/:id/integrations/:id/edit",
  "/projects/:id/integrations/:id/remove",
  "/projects/:id/integrations/:id/test",
  "/projects/:id/members",
  "/projects/:id/members/:id/remove",
  "/checks/:id/edit",
  "/checks/:id/delete",
  "/checks/:id/pause",
  "/checks/:id/resume",
  "/checks/:id/ping",
  "/checks/:id/acknowledge",
  "/checks/:id/integrations",
];

/**
 * Crawls the pages of a session, checks that the crawl found at least the forms of `routes` and the
 * number of distinct actions and forms given, and posts each form forged (`assertForgedRefused`).
 */
async function crawlAndForge(
  session: { cookie: string },
  otherToken: string,
  routes: readonly string[],
  least: { actions: number; forms: number },
): Promise<FoundForm[]> {
  const { pages, forms } = await crawlForms(server.url, session.cookie);
  const found = new Set(forms.map((form) => routeOf(form.action)));
  assert.equal(
    routes.filter((route) => !found.has(route)),
    [],
    `the crawl of ${pages.length} pages found every form`,
  );
  const actions = new Set(forms.map((form) => form.action));
  assert.ok(actions.size >= least.actions, `${actions.size} distinct form actions`);
  const posted = distinct(forms);
  assert.ok(posted.length >= least.forms, `${posted.length} distinct forms (the integrations' kinds apart)`);
  await assertForgedRefused(posted, session.cookie, otherToken);
  return forms;
}

test("every form of the admin token's pages refuses a post without the session's CSRF token, and nothing changes", async () => {
  const forms = await crawlAndForge(signedIn.admin, signedIn.owner.csrf, ADMIN_ROUTES, { actions: 30, forms: 50 });

  // the same session with its own token is taken: the refusals above were the token's
  const pause = forms.find((form) => form.action === `${server.url}/checks/${checkId}/pause`);
  assert.ok(pause);
  assert.is((await post(pause.action, [["csrf", signedIn.admin.csrf]], signedIn.admin.cookie)).status, 303);
  assert.is(
    (await ok<{ status: string }>(call(server.url, "GET", `/api/v3/checks/${checkId}`, { key: project.api_key }))).status,
    "paused",
  );
});

test("every form of an owner's pages, the account's too, refuses a post without the session's CSRF token, and nothing changes", async () => {
  const forms = await crawlAndForge(signedIn.owner, signedIn.admin.csrf, OWNER_ROUTES, { actions: 25, forms: 50 });

  // with its own token the turn-on form (and the code filled in for it) is taken: the second factor is on
  const on = forms.find((form) => routeOf(form.action) === "/account/second-factor/on");
  assert.ok(on);
  ownerSecret = on.fields.find(([name]) => name === "secret")?.[1] ?? "";
  const taken = await post(on.action, filled(on), signedIn.owner.cookie);
  assert.is(taken.status, 200, taken.text);
  assert.match(taken.text, /recovery codes/);
  // turning it on signed out the owner's other sessions and gave this browser a new one
  signedIn.owner.cookie = taken.setCookie.split(";")[0];
  signedIn.owner.csrf = /name="csrf" value="([^"]+)"/.exec(taken.text)?.[1] ?? "";
});

test("with the second factor on, the account page's turn-off form refuses a post without the CSRF token, and it stays on", async () => {
  const { forms } = await crawlForms(server.url, signedIn.owner.cookie);
  const off = forms.filter((form) => routeOf(form.action) === "/account/second-factor/off");
  assert.is(off.length, 1, "the account page has the turn-off form");
  // a right code, of the next time step (the turn-on took this one's): were the token not looked at, it would turn it off
  const code = generateSync({ secret: ownerSecret, epoch: Math.floor(Date.now() / 1000) + 30 });
  const withCode = off.map((form) => ({
    ...form,
    fields: [...form.fields.filter(([name]) => name !== "code"), ["code", code] as [string, string]],
  }));
  await assertForgedRefused(withCode, signedIn.owner.cookie, signedIn.admin.csrf);
  const again = await post(
    `${server.url}/signin/password`,
    [
      ["email", OWNER],
      ["password", PASSWORD],
    ],
    "",
  );
  assert.is(again.status, 200, "the password alone no longer signs in");
  assert.match(again.text, /name="pending"/);
  // the same form and code with the session's own token is taken: the refusals above were the token's
  const taken = await post(off[0].action, withCode[0].fields, signedIn.owner.cookie);
  assert.is(taken.status, 200, taken.text);
  assert.match(taken.text, /The second factor is off/);
  signedIn.owner.cookie = taken.setCookie.split(";")[0]; // turning it off signed out the owner's other sessions: this browser has a new one
  signedIn.owner.csrf = /name="csrf" value="([^"]+)"/.exec(taken.text)?.[1] ?? "";
});

test("a post from another site's page is refused even with the right token; so are the sign-in forms, which have none", async () => {
  const evil = { origin: "https://evil.example" };
  const before = await everything();
  const { forms } = await crawlForms(server.url, signedIn.admin.cookie);
  const rename = forms.find((form) => routeOf(form.action) === "/projects/:id/rename");
  assert.ok(rename);
  const renamed = await post(
    rename.action,
    [...filled(rename).filter(([name]) => name !== "name"), ["name", "Forged"]],
    signedIn.admin.cookie,
    evil,
  );
  assert.is(renamed.status, 403, renamed.text);
  assert.match(renamed.text, /cross-site request refused/);
  assert.is(await everything(), before, "nothing changed");

  const signInPage = await crawlForms(server.url, "");
  const typed: Record<string, string> = { key: TOKEN, email: OWNER.replace("owner", "member"), password: PASSWORD };
  const signIns = signInPage.forms.map((form) => ({
    ...form,
    fields: form.fields.map(([name, value]): [string, string] => [name, typed[name] ?? value]),
  }));
  assert.equal(signIns.map((form) => routeOf(form.action)).sort(), ["/signin", "/signin/password"], "the sign-in page's forms");
  for (const form of signIns) {
    const refused = await post(form.action, form.fields, "", evil);
    assert.is(refused.status, 403, `${form.action}: ${refused.text}`);
    assert.is(refused.setCookie, "", "no session");
    const taken = await post(form.action, form.fields, "", { origin: new URL(server.url).origin }); // the site's own page
    assert.is(taken.status, 303, `${form.action}: ${taken.text}`);
    assert.match(taken.setCookie, /^hcd_session=./);
  }
});

test("every form of a project API key's pages refuses a post without the session's CSRF token, and nothing changes", async () => {
  const key = await signIn("/signin", { key: project.api_key });
  const routes = [
    "/signout",
    "/projects/:id/checks/new",
    "/projects/:id/integrations/:id/test",
    "/projects/:id/integrations/:id/remove",
    "/checks/:id/edit",
    "/checks/:id/delete",
    "/checks/:id/pause",
    "/checks/:id/resume",
    "/checks/:id/ping",
    "/checks/:id/acknowledge",
    "/checks/:id/integrations",
  ];
  await crawlAndForge(key, signedIn.admin.csrf, routes, { actions: 15, forms: 18 });
});

test.run();
