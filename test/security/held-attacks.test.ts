// The attacks an outside review tried that held, kept holding, against a real server (those not pinned
// elsewhere: the role matrix is role-routes.test.ts, CSRF on every form csrf-every-form.test.ts, cookies
// session-cookies.test.ts, hostile HTTP hostile-input.test.ts, keys across projects isolation.test.ts):
// a post with `Origin: null`; login CSRF on the invitation and reset forms; a key session after its key is
// replaced; a user of one project on another's pages; another project's objects on a check and a status
// page; 100 second-factor codes at once; invitation tokens never kept; security headers; tokens in the
// access log; a provider's email_verified "true" as a string.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import { stepNow, totp } from "../totp-codes.ts";
import { verifiedEmailOf } from "../../host/oidc.ts";
import type { ProjectJson, RealServer } from "./real-server.ts";
import { addChannel, call, createProject, ok, startServer, stopServer } from "./real-server.ts";
import { csrfOf, getPage, postForm, signInKey, signInUser, statusCounts } from "./form-client.ts";

const TOKEN = "held-attacks-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "a held password";

const dir = tempDir();
let server: RealServer;
let a: ProjectJson, b: ProjectJson;
let checkA = "",
  checkB = "";

test.before(async () => {
  server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, LOG_ACCESS: "true", SMTP_URL: "smtp://127.0.0.1:9" } });
  a = await createProject(server, TOKEN, { name: "A" });
  b = await createProject(server, TOKEN, { name: "B" });
  checkA = (await ok<{ uuid: string }>(call(server.url, "POST", "/api/v3/checks/", { key: a.api_key, body: { name: "a-check" } }))).uuid;
  checkB = (await ok<{ uuid: string }>(call(server.url, "POST", "/api/v3/checks/", { key: b.api_key, body: { name: "b-check" } }))).uuid;
});
test.after(async () => {
  if (server) assert.is(await stopServer(server), 0, server.output());
  dir.remove();
});

async function userIn(project: ProjectJson, email: string, role: string): Promise<string> {
  const user = await ok<{ id: string }>(
    call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email, password: PASSWORD } }),
  );
  await ok(call(server.url, "PUT", `/admin/v1/projects/${project.id}/members/${user.id}`, { headers: admin, body: { role } }));
  return (await signInUser(server, email, PASSWORD)).cookie;
}
const statusOf = async () => (await ok<{ status: string }>(call(server.url, "GET", `/api/v3/checks/${checkA}`, { key: a.api_key }))).status;

test("a post with the session's cookie and token but Origin: null is refused", async () => {
  const cookie = await signInKey(server.url, a.api_key);
  const csrf = await csrfOf(server.url, cookie, `/projects/${a.id}/checks`);
  const refused = await postForm(server.url, `/checks/${checkA}/pause`, { csrf }, { cookie, headers: { origin: "null" } });
  assert.is(refused.status, 403);
  assert.match(refused.text, /cross-site request refused/);
  assert.is.not(await statusOf(), "paused");
});

test("login CSRF: a cross-site post to an invitation link or the reset form is refused and sets nothing", async () => {
  const made = await ok<{ invite_url: string }>(
    call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: "invited@corp.example" } }),
  );
  const link = new URL(made.invite_url).pathname;
  const evil = { origin: "https://evil.example" };
  const invited = await postForm(server.url, link, { password: "chosen by another site" }, { headers: evil });
  assert.equal([invited.status, invited.cookie], [403, ""]);
  assert.match((await getPage(server.url, link, "")).text, /Choose a password/, "the link still works");
  assert.is((await postForm(server.url, "/reset", { email: "invited@corp.example" }, { headers: evil })).status, 403);
});

test("a key's session ends once its key is created anew", async () => {
  const cookie = await signInKey(server.url, a.api_key);
  assert.is((await getPage(server.url, `/projects/${a.id}/checks`, cookie)).status, 200);
  const renewed = await ok<{ api_key: string }>(call(server.url, "POST", `/admin/v1/projects/${a.id}/keys/read-write`, { headers: admin }));
  assert.is((await getPage(server.url, `/projects/${a.id}/checks`, cookie)).status, 303, "sent to the sign-in page");
  a = { ...a, api_key: renewed.api_key };
});

test("a user of project A, in any role, finds none of B's pages and changes nothing of B", async () => {
  for (const role of ["readonly", "member", "manager", "owner"]) {
    const cookie = await userIn(a, `${role}-of-a@corp.example`, role);
    const csrf = await csrfOf(server.url, cookie);
    for (const path of [
      `/projects/${b.id}/checks`,
      `/projects/${b.id}/settings`,
      `/projects/${b.id}/members`,
      `/projects/${b.id}/audit`,
      `/checks/${checkB}`,
    ]) {
      assert.is((await getPage(server.url, path, cookie)).status, 404, `${role} GET ${path}`);
    }
    for (const path of [`/checks/${checkB}/pause`, `/checks/${checkB}/delete`, `/projects/${b.id}/rename`, `/projects/${b.id}/members`]) {
      assert.is(
        (await postForm(server.url, path, { csrf, name: "taken", email: "x@corp.example", role: "owner" }, { cookie })).status,
        404,
        `${role} POST ${path}`,
      );
    }
  }
  assert.is((await ok<{ status: string }>(call(server.url, "GET", `/api/v3/checks/${checkB}`, { key: b.api_key }))).status, "new");
  assert.is((await ok<{ name: string }>(call(server.url, "GET", `/admin/v1/projects/${b.id}`, { headers: admin }))).name, "B");
});

test("another project's integration on a check, or its check on a status page, is refused (400)", async () => {
  const channelB = (await addChannel(server, TOKEN, b.id, { kind: "webhook", name: "b-hook", value: "http://127.0.0.1:9/b" })).id;
  const owner = await userIn(a, "owner2-of-a@corp.example", "owner");
  const csrf = await csrfOf(server.url, owner);
  assert.is(
    (await postForm(server.url, `/checks/${checkA}/integrations`, { csrf, channel: channelB, on: "1" }, { cookie: owner })).status,
    400,
  );
  assert.is((await call(server.url, "POST", `/api/v3/checks/${checkA}`, { key: a.api_key, body: { channels: channelB } })).status, 400);
  assert.is(
    (
      await postForm(
        server.url,
        `/projects/${a.id}/status-pages`,
        { csrf, slug: "mixed", title: "Mixed", check: checkB },
        { cookie: owner },
      )
    ).status,
    400,
  );
  assert.is((await call(server.url, "GET", "/status/mixed")).status, 404);
});

test("100 second-factor codes at once on one waiting sign-in check at most 10", async () => {
  await userIn(a, "tf-held@corp.example", "member");
  const cookie = (await signInUser(server, "tf-held@corp.example", PASSWORD)).cookie;
  const secret = /class="totp-secret">([A-Z2-7]+)</.exec((await getPage(server.url, "/account", cookie)).text)?.[1] ?? "";
  const step = stepNow();
  assert.is(
    (
      await postForm(
        server.url,
        "/account/second-factor/on",
        { csrf: await csrfOf(server.url, cookie), secret, code: totp(secret, step), password: PASSWORD },
        { cookie },
      )
    ).status,
    200,
  );
  const pending =
    /name="pending" value="([^"]+)"/.exec((await signInUser(server, "tf-held@corp.example", PASSWORD, "127.0.0.80")).text)?.[1] ?? "";
  const current = new Set([-1, 0, 1, 2].map((d) => totp(secret, stepNow() + d)));
  const wrong = Array.from({ length: 100 }, (_, i) => String(100_000 + i * 7919)).filter((code) => !current.has(code));
  const answers = await Promise.all(wrong.map((code) => postForm(server.url, "/signin/code", { pending, code }, { from: "127.0.0.80" })));
  const counts = statusCounts(answers);
  assert.ok((counts[401] ?? 0) <= 10, JSON.stringify(counts));
  assert.is((counts[401] ?? 0) + (counts[429] ?? 0), answers.length, JSON.stringify(counts));
});

test("invitation and reset tokens are never kept: accounts.json holds their SHA-256 only", async () => {
  const made = await ok<{ invite_url: string }>(
    call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: "kept@corp.example" } }),
  );
  const token = made.invite_url.split("/").pop() ?? "";
  assert.match(token, /^[A-Za-z0-9_-]{43}$/, "32 random bytes");
  const file = readFileSync(join(dir.path, "accounts.json"), "utf8");
  assert.not.match(file, token);
  assert.match(file, /"tokenHash":"[0-9a-f]{64}"/);
});

test("security headers on a dashboard page, its 404 page and a public status page", async () => {
  await ok(
    call(server.url, "POST", `/admin/v1/projects/${a.id}/status-pages`, {
      headers: admin,
      body: { slug: "held", title: "Held", checks: [checkA] },
    }),
  );
  const cookie = await signInKey(server.url, a.api_key);
  for (const path of [`/projects/${a.id}/checks`, "/no/such/page"]) {
    const answer = await fetch(server.url + path, { headers: { cookie } });
    assert.match(answer.headers.get("content-security-policy") ?? "", /default-src 'self'.*frame-ancestors 'none'/, path);
    assert.is(answer.headers.get("x-content-type-options"), "nosniff", path);
    assert.match(answer.headers.get("cache-control") ?? "", /no-store/, path);
  }
  const status = await fetch(`${server.url}/status/held`);
  assert.match(status.headers.get("content-security-policy") ?? "", /default-src 'none'/);
});

test("the access log names routes, never a key, a token or a ping key in a path", async () => {
  const made = await ok<{ invite_url: string }>(
    call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: "logged@corp.example" } }),
  );
  const token = made.invite_url.split("/").pop() ?? "";
  await getPage(server.url, `/invite/${token}`, "");
  await call(server.url, "GET", `/ping/${a.ping_key}/some-slug`);
  await call(server.url, "GET", `/projects/${a.id}/metrics/${a.api_key_readonly}`);
  const deadline = Date.now() + 5_000; // the access line is written once the answer is sent
  while (!server.output().includes("route=/projects/:id/metrics/:key") && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
  assert.match(server.output(), /route=\/ping\/:key\/:key/, "the requests were logged");
  assert.match(server.output(), /route=\/projects\/:id\/metrics\/:key/);
  for (const secret of [token, a.ping_key, a.api_key_readonly, a.api_key])
    assert.not.ok(server.output().includes(secret), "a secret in the log");
});

test('a provider\'s email_verified must be true itself: the string "true" verifies nothing', () => {
  assert.equal(verifiedEmailOf({ email: "ann@corp.example", email_verified: "true" }).ok, false);
  assert.equal(verifiedEmailOf({ email: "ann@corp.example", email_verified: 1 }).ok, false);
  assert.equal(verifiedEmailOf({ email: " Ann@Corp.Example ", email_verified: true }), { ok: true, email: "ann@corp.example" });
});

test.run();
