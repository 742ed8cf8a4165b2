// What ends a user's sessions, against a real server: turning the second factor on asks for the password
// and ends every other session of the user (a stolen cookie can't enrol its own authenticator, and does not
// survive it); turning it off and changing the password end them too. The browser that made the change
// goes on with a new session.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { stepNow, totp } from "../totp-codes.ts";
import type { RealServer } from "./real-server.ts";
import { call, ok, startServer, stopServer } from "./real-server.ts";
import { csrfOf, getPage, postForm, signInUser } from "./form-client.ts";

const TOKEN = "session-ends-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const PASSWORD = "the first password";

const dir = tempDir();
let server: RealServer;
let users = 0;

test.before(async () => {
  server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
});
test.after(async () => {
  if (server) assert.is(await stopServer(server), 0, server.output());
  dir.remove();
});

/** A new user signed in twice (the browser making the change, and another session, as a stolen cookie). */
async function twoSessions(): Promise<{ email: string; mine: string; other: string }> {
  const email = `s${++users}@corp.example`;
  await ok(call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email, password: PASSWORD } }));
  const mine = (await signInUser(server, email, PASSWORD)).cookie,
    other = (await signInUser(server, email, PASSWORD)).cookie;
  assert.ok(mine !== "" && other !== "" && mine !== other);
  return { email, mine, other };
}
const accountStatus = async (cookie: string) => (await getPage(server.url, "/account", cookie)).status;
const secretOf = async (cookie: string) =>
  /class="totp-secret">([A-Z2-7]+)</.exec((await getPage(server.url, "/account", cookie)).text)?.[1] ?? "";

test("turning the second factor on asks for the password, and ends every other session of the user", async () => {
  const { mine, other } = await twoSessions();
  const secret = await secretOf(mine);
  const csrf = await csrfOf(server.url, mine);
  const step = stepNow();
  const withoutPassword = await postForm(
    server.url,
    "/account/second-factor/on",
    { csrf, secret, code: totp(secret, step) },
    { cookie: mine },
  );
  assert.is(withoutPassword.status, 400, "the session alone does not turn it on");
  const wrongPassword = await postForm(
    server.url,
    "/account/second-factor/on",
    { csrf, secret, code: totp(secret, step), password: "not the password" },
    { cookie: mine },
  );
  assert.is(wrongPassword.status, 400);
  assert.match(wrongPassword.text, /The password is wrong/);
  assert.match((await getPage(server.url, "/account", mine)).text, /Off\. To turn it on/, "still off");
  const on = await postForm(
    server.url,
    "/account/second-factor/on",
    { csrf, secret, code: totp(secret, step), password: PASSWORD },
    { cookie: mine },
  );
  assert.is(on.status, 200, on.text.slice(0, 400));
  assert.match(on.text, /recovery codes/);
  assert.is(await accountStatus(other), 303, "the other session has ended");
  assert.is(await accountStatus(mine), 303, "the session that made the change is replaced ...");
  assert.match(on.cookie, /^hcd_session=./);
  assert.is(await accountStatus(on.cookie), 200, "... by a new one for this browser");
});

test("turning the second factor off ends every other session of the user", async () => {
  const { email, mine } = await twoSessions();
  const secret = await secretOf(mine);
  const step = stepNow();
  const on = await postForm(
    server.url,
    "/account/second-factor/on",
    { csrf: await csrfOf(server.url, mine), secret, code: totp(secret, step), password: PASSWORD },
    { cookie: mine },
  );
  assert.is(on.status, 200);
  const recovery = [...on.text.matchAll(/<li><code>([0-9a-f-]{19})<\/code><\/li>/g)].map((m) => m[1]);
  // another session, opened with the code
  const pending = /name="pending" value="([^"]+)"/.exec((await signInUser(server, email, PASSWORD)).text)?.[1] ?? "";
  const other = (await postForm(server.url, "/signin/code", { pending, code: recovery[0] })).cookie;
  assert.is(await accountStatus(other), 200);
  const off = await postForm(
    server.url,
    "/account/second-factor/off",
    { csrf: await csrfOf(server.url, on.cookie), code: recovery[1] },
    { cookie: on.cookie },
  );
  assert.is(off.status, 200, off.text.slice(0, 400));
  assert.match(off.text, /The second factor is off/);
  assert.is(await accountStatus(other), 303, "the other session has ended");
  assert.is(await accountStatus(off.cookie), 200, "this browser goes on");
});

test("changing the password needs the current one and ends every other session of the user", async () => {
  const { email, mine, other } = await twoSessions();
  const csrf = await csrfOf(server.url, mine);
  const wrong = await postForm(
    server.url,
    "/account/password",
    { csrf, current: "not the password", password: "a brand new password" },
    { cookie: mine },
  );
  assert.is(wrong.status, 400);
  assert.match(wrong.text, /The current password is wrong\./);
  assert.is(await accountStatus(other), 200, "nothing ended");
  const short = await postForm(server.url, "/account/password", { csrf, current: PASSWORD, password: "short" }, { cookie: mine });
  assert.is(short.status, 400);
  const changed = await postForm(
    server.url,
    "/account/password",
    { csrf, current: PASSWORD, password: "a brand new password" },
    { cookie: mine },
  );
  assert.is(changed.status, 200, changed.text.slice(0, 400));
  assert.match(changed.text, /Password changed/);
  assert.is(await accountStatus(other), 303, "the other session has ended");
  assert.is(await accountStatus(changed.cookie), 200, "this browser goes on");
  assert.is((await signInUser(server, email, PASSWORD)).status, 401, "the old password no longer signs in");
  assert.is((await signInUser(server, email, "a brand new password")).status, 303);
});

test.run();
