// "Sign in with SSO" and the users it finds or makes, against a real hcd process and a real OpenID Connect
// provider (oidc-provider) on loopback, walked with plain fetch: with OIDC_DEFAULT_ROLE set, a first sign-in
// with a verified email makes its user with the default role; an unverified one makes nobody; an email the
// ID token lacks is taken from the userinfo endpoint, verified there too.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import type { OidcProviderRig } from "../dashboard/oidc-provider-rig.ts";
import { startOidcProvider, startSignIn, throughProvider } from "../dashboard/oidc-provider-rig.ts";
import type { RealServer } from "../security/real-server.ts";
import { call, ok, startServer, stopServer, troubleIn } from "../security/real-server.ts";
import { csrfOf, getPage, postForm, signInUser } from "../security/form-client.ts";
import { stepNow, totp } from "../totp-codes.ts";

const TOKEN = "sso-users-admin-token-0123456789";
const CLIENT_SECRET = "sso-users-client-secret-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };

const dir = tempDir();
let provider: OidcProviderRig;
let server: RealServer;
let projectId = "";

test.before(async () => {
  provider = await startOidcProvider({
    dan: { email: "Dan@Example.com", email_verified: true },
    eve: { email: "eve@example.com", email_verified: false },
    fay: { email: "fay@example.com", email_verified: true, emailIn: "userinfo" },
    gus: { email: "gus@example.com", email_verified: false, emailIn: "userinfo" },
    ida: { email: "ida@example.com", email_verified: true, emailIn: "userinfo" },
  });
  // the project first (OIDC_DEFAULT_ROLE names it), then hcd again on the same data with the setting
  const first = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
  try {
    projectId = (await ok<{ id: string }>(call(first.url, "POST", "/admin/v1/projects", { headers: admin, body: { name: "ops" } }))).id;
    await ok(
      call(first.url, "POST", "/admin/v1/users", {
        headers: admin,
        body: { email: "ida@example.com", password: "a long enough password" },
      }),
    );
  } finally {
    await stopServer(first);
  }
  server = await startServer({
    dataDir: dir.path,
    env: {
      ADMIN_TOKEN: TOKEN,
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: "hcd",
      OIDC_CLIENT_SECRET: CLIENT_SECRET,
      OIDC_DEFAULT_ROLE: `member:${projectId}`,
    },
  });
  provider.configure(`http://localhost:${server.port}`, "hcd", CLIENT_SECRET);
});

test.after(async () => {
  await provider?.close();
  if (server) {
    const output = server.output();
    await stopServer(server);
    dir.remove();
    assert.equal(troubleIn(output), [], "no unexpected errors in the server's output");
  }
});

/** Signs in through the provider as `login`: the callback's status and page, and the email the session opens (null: no session). */
async function ssoSignIn(login: string) {
  const started = await startSignIn(server.url);
  const url = await throughProvider(started.providerUrl, login);
  const response = await fetch(url, { redirect: "manual", headers: { cookie: started.stateCookie } });
  const page = await response.text();
  const session = response.headers
    .getSetCookie()
    .find((c) => /^hcd_session=[^;]/.test(c))
    ?.split(";")[0];
  if (session === undefined) return { status: response.status, page, email: null };
  const account = await fetch(`${server.url}/account`, { redirect: "manual", headers: { cookie: session } });
  return { status: response.status, page, email: /[\w.]+@example\.com/.exec(await account.text())?.[0] ?? null };
}

const users = async () =>
  (await ok<{ users: { id: string; email: string }[] }>(call(server.url, "GET", "/admin/v1/users", { headers: admin }))).users;
const members = async () =>
  (
    await ok<{ members: { email: string; role: string }[] }>(
      call(server.url, "GET", `/admin/v1/projects/${projectId}/members`, { headers: admin }),
    )
  ).members;

test("a first sign-in with a verified email makes its user, member of the default project; the next finds the same user", async () => {
  const first = await ssoSignIn("dan");
  assert.is(first.status, 200, first.page);
  assert.is(first.email, "dan@example.com");
  assert.equal(
    (await members()).map((m) => [m.email, m.role]),
    [["dan@example.com", "member"]],
  );
  const audit = await ok<{ events: { actor: string; action: string; target: string }[] }>(
    call(server.url, "GET", `/admin/v1/projects/${projectId}/audit`, { headers: admin }),
  );
  assert.ok(
    audit.events.some(
      (e) => e.actor === "OIDC_DEFAULT_ROLE" && e.action === "member.role_set" && /"dan@example\.com" .* as member$/.test(e.target),
    ),
    `the role OIDC_DEFAULT_ROLE gave is recorded: ${JSON.stringify(audit.events)}`,
  );
  const again = await ssoSignIn("dan");
  assert.is(again.email, "dan@example.com");
  assert.equal((await users()).filter((u) => u.email === "dan@example.com").length, 1, "one user, not two");
});

test("an unverified email makes nobody and signs in nobody, from the ID token or from userinfo", async () => {
  for (const [login, email] of [
    ["eve", "eve@example.com"],
    ["gus", "gus@example.com"],
  ]) {
    const answer = await ssoSignIn(login);
    assert.is(answer.status, 403, login);
    assert.match(answer.page, /not verified/);
    assert.is(answer.email, null);
    assert.not.ok(
      (await users()).some((u) => u.email === email),
      `no user ${email}`,
    );
  }
});

test("an ID token without an email: the email and its verification come from the userinfo endpoint", async () => {
  const existing = await ssoSignIn("ida"); // a user made beforehand with a password
  assert.is(existing.status, 200, existing.page);
  assert.is(existing.email, "ida@example.com");
  const made = await ssoSignIn("fay");
  assert.is(made.status, 200, made.page);
  assert.is(made.email, "fay@example.com");
  assert.ok((await members()).some((m) => m.email === "fay@example.com" && m.role === "member"));
});

test("a user who turned on hcd's own second factor is asked its code after the provider too", async () => {
  const password = "a long enough password";
  const cookie = (await signInUser(server, "ida@example.com", password)).cookie;
  const secret = /class="totp-secret">([A-Z2-7]+)</.exec((await getPage(server.url, "/account", cookie)).text)?.[1] ?? "";
  const step = stepNow();
  const on = await postForm(
    server.url,
    "/account/second-factor/on",
    { csrf: await csrfOf(server.url, cookie), secret, code: totp(secret, step), password },
    { cookie },
  );
  assert.is(on.status, 200, on.text.slice(0, 300));
  const sso = await ssoSignIn("ida");
  assert.is(sso.status, 200, sso.page);
  assert.is(sso.email, null, "no session from the provider alone");
  const pending = /name="pending" value="([^"]+)"/.exec(sso.page)?.[1] ?? "";
  assert.ok(pending !== "", sso.page);
  assert.is(
    (await postForm(server.url, "/signin/code", { pending, code: "000000" === totp(secret, step + 1) ? "111111" : "000000" })).status,
    401,
  );
  const signedIn = await postForm(server.url, "/signin/code", { pending, code: totp(secret, step + 1) });
  assert.is(signedIn.status, 303, signedIn.text.slice(0, 300));
  assert.match((await getPage(server.url, "/account", signedIn.cookie)).text, /ida@example\.com/);
});

test.run();
