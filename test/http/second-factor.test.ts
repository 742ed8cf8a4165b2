// The TOTP second factor against a real hcd process: turned on from the account page with a code, then
// asked after the password; a code is never taken twice, a recovery code only once, and turning it off
// needs a code. Codes come from test/totp-codes.ts (RFC 6238 with node:crypto), not from the library hcd uses.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { call, ok, startServer, stopServer } from "../security/real-server.ts";
import { stepNow, totp } from "../totp-codes.ts";

const TOKEN = "second-factor-admin-token-0123456789";
const PASSWORD = "password then code";

test("a second factor turned on is asked after the password; no code twice, recovery codes once; off needs a code", async () => {
  const dir = tempDir();
  const server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
  const post = async (path: string, fields: Record<string, string>, cookie = "") => {
    const response = await fetch(server.url + path, {
      method: "POST",
      body: new URLSearchParams(fields),
      redirect: "manual",
      headers: { cookie },
    });
    return { status: response.status, text: await response.text(), cookie: (response.headers.get("set-cookie") ?? "").split(";")[0] };
  };
  const password = () => post("/signin/password", { email: "tf@example.org", password: PASSWORD });
  const pendingOf = (page: string) => /name="pending" value="([^"]+)"/.exec(page)?.[1] ?? "";
  try {
    await ok(
      call(server.url, "POST", "/admin/v1/users", {
        headers: { authorization: `Bearer ${TOKEN}` },
        body: { email: "tf@example.org", password: PASSWORD },
      }),
    );
    const { cookie } = await password();
    const account = await (await fetch(server.url + "/account", { headers: { cookie } })).text();
    const secret = /class="totp-secret">([A-Z2-7]+)</.exec(account)?.[1] ?? "";
    const csrf = /name="csrf" value="([^"]+)"/.exec(account)?.[1] ?? "";
    assert.ok(secret.length >= 16, account);

    assert.is(
      (await post("/account/second-factor/on", { csrf, secret, code: totp(secret, stepNow() - 20), password: PASSWORD }, cookie)).status,
      400,
      "a code of ten minutes ago",
    );
    const enabledAt = stepNow();
    const on = await post("/account/second-factor/on", { csrf, secret, code: totp(secret, enabledAt), password: PASSWORD }, cookie);
    assert.is(on.status, 200, on.text);
    const recovery = [...on.text.matchAll(/<li><code>([0-9a-f-]{19})<\/code><\/li>/g)].map((m) => m[1]);
    assert.is(recovery.length, 10);

    const first = await password();
    assert.equal([first.status, first.cookie], [200, ""], "the password alone opens no session");
    const pending = pendingOf(first.text);
    assert.is((await post("/signin/code", { pending, code: totp(secret, enabledAt - 20) })).status, 401);
    assert.is((await post("/signin/code", { pending, code: totp(secret, enabledAt) })).status, 401, "the code used to turn it on is spent");
    const next = totp(secret, enabledAt + 1);
    const signedIn = await post("/signin/code", { pending, code: next });
    assert.is(signedIn.status, 303);
    assert.match(signedIn.cookie, /^hcd_session=./);
    assert.is((await post("/signin/code", { pending, code: next })).status, 401, "a pending sign-in is used once");
    assert.is((await post("/signin/code", { pending: pendingOf((await password()).text), code: next })).status, 401, "no code twice");

    const again = pendingOf((await password()).text);
    assert.is((await post("/signin/code", { pending: again, code: recovery[3] })).status, 303);
    assert.is(
      (await post("/signin/code", { pending: pendingOf((await password()).text), code: recovery[3] })).status,
      401,
      "a recovery code once",
    );

    const page = await (await fetch(server.url + "/account", { headers: { cookie: signedIn.cookie } })).text();
    const csrf2 = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
    assert.is((await post("/account/second-factor/off", { csrf: csrf2, code: "123" }, signedIn.cookie)).status, 400);
    // a TOTP code later than enabledAt + 1 may not be current yet: a recovery code serves as well
    assert.is((await post("/account/second-factor/off", { csrf: csrf2, code: recovery[5] }, signedIn.cookie)).status, 200);
    assert.is((await password()).status, 303, "off: the password alone signs in");
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    dir.remove();
  }
});

test.run();
