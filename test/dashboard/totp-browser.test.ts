// The TOTP second factor in a real browser (Debian's chromium driven by playwright-core) against a real hcd
// process on loopback: turned on from the account page with a code of the secret it shows, then asked after
// the password; a wrong code and a code already used are refused with no session; the next code signs in;
// a recovery code signs in once. Codes come from test/totp-codes.ts, not from the library hcd uses.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { BrowserContext, Page } from "playwright-core";
import { call, ok } from "../security/real-server.ts";
import { stepNow, totp } from "../totp-codes.ts";
import { browserRig, newContext, signInWithPassword, whenChromium } from "./browser-harness.ts";

const TOKEN = "totp-browser-admin-token-0123456789";
const EMAIL = "tf@example.org",
  PASSWORD = "password then code";

await whenChromium("second factor browser tests", async () => {
  const { rig } = browserRig({ ADMIN_TOKEN: TOKEN });
  let context: BrowserContext;
  let page: Page;
  const url = () => rig().server.url;
  test.before(async () => {
    await ok(
      call(url(), "POST", "/admin/v1/users", { headers: { authorization: `Bearer ${TOKEN}` }, body: { email: EMAIL, password: PASSWORD } }),
    );
    context = await newContext(rig().browser);
    page = await context.newPage();
  });

  const hasSession = async () => (await context.cookies()).some((c) => c.name === "hcd_session" && c.value !== "");
  const signOut = async () => {
    await page.locator("form[action='/signout']").getByRole("button", { name: "Sign out" }).click();
    await page.locator("form[action='/signin/password']").waitFor();
    assert.not.ok(await hasSession(), "signed out");
  };
  /** The password step: resolves on the page that asks for the code, with no session yet. */
  const passwordStep = async () => {
    await page.goto(url() + "/");
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.locator("form[action='/signin/password']").getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Second factor" }).waitFor();
    assert.not.ok(await hasSession(), "the password alone opens no session");
  };
  const typeCode = async (code: string) => {
    await page.getByLabel("Code").fill(code);
    await page.getByRole("button", { name: "Continue" }).click();
  };
  const refused = async (code: string, why: string) => {
    await typeCode(code);
    await page.getByRole("alert").getByText("Wrong code.").waitFor();
    assert.not.ok(await hasSession(), why);
  };
  const signedIn = async () => {
    await page.getByRole("link", { name: "Account" }).waitFor();
    assert.match((await page.locator("header .who").textContent()) ?? "", EMAIL);
    assert.ok(await hasSession());
  };

  let secret = "",
    enabledStep = 0,
    recovery: string[] = [];
  test("turned on from the account page with the code of the secret it shows; recovery codes shown once", async () => {
    await signInWithPassword(page, url(), EMAIL, PASSWORD);
    const blocked: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
    });
    await page.getByRole("link", { name: "Account" }).click();
    secret = (await page.locator("code.totp-secret").textContent()) ?? "";
    const qr = await page
      .getByRole("img", { name: /QR image/ })
      .locator("svg")
      .boundingBox();
    assert.ok(
      qr !== null && qr.width >= 150 && qr.height === qr.width,
      `the QR code drawn square and large enough to scan: ${JSON.stringify(qr)}`,
    );
    assert.equal(blocked, [], "nothing on the page blocked by its Content-Security-Policy");
    assert.match(secret, /^[A-Z2-7]{16,}$/);
    assert.is(await page.getByRole("link", { name: new RegExp(`^otpauth://totp/.*secret=${secret}`) }).count(), 1, "the link for a phone");
    await page.getByLabel("Code").fill(totp(secret, stepNow() - 20)); // ten minutes old
    await page.getByLabel("Your password").fill(PASSWORD);
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByRole("alert").getByText("the code is not the app's current one").waitFor();
    enabledStep = stepNow();
    await page.getByLabel("Code").fill(totp(secret, enabledStep));
    await page.getByLabel("Your password").fill(PASSWORD);
    await page.getByRole("button", { name: "Turn on" }).click();
    await page.getByText("The second factor is on.").waitFor();
    recovery = await page.locator("ul.recovery-codes code").allTextContents();
    assert.is(recovery.length, 10);
    assert.is(new Set(recovery).size, 10);
    await page.goto(url() + "/account");
    await page.getByText("On: a sign-in asks for the code").waitFor();
    assert.is(await page.locator("ul.recovery-codes").count(), 0, "shown only once");
  });

  test("while on, the session and the password cannot put another secret in its place (turning it off needs a code)", async () => {
    const csrf = await page.locator("input[name='csrf']").first().inputValue();
    const other = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"; // a secret of someone else's choosing, with its own valid code
    const answer = await page.request.post(`${url()}/account/second-factor/on`, {
      form: { csrf, secret: other, code: totp(other, stepNow()), password: PASSWORD },
      maxRedirects: 0,
    });
    assert.is(answer.status(), 400);
    assert.match(await answer.text(), "already on");
    // the next tests sign in with the codes of the first secret and its recovery codes: they still hold
  });

  test("after the password a wrong code and the code already used are refused; the next code signs in, once", async () => {
    await signOut();
    await passwordStep();
    const current = new Set([-1, 0, 1, 2].map((d) => totp(secret, stepNow() + d)));
    const wrong = ["000000", "111111", "222222", "333333", "444444"].find((code) => !current.has(code)) ?? "";
    await refused(wrong, "a wrong code opens no session");
    await refused(totp(secret, enabledStep), "the code that turned it on is spent");
    const next = totp(secret, Math.max(enabledStep + 1, stepNow()));
    await typeCode(next);
    await signedIn();

    await signOut();
    await passwordStep();
    await refused(next, "no code twice");
  });

  test("a recovery code signs in instead of a code, once", async () => {
    await page.goto(url() + "/");
    await passwordStep();
    await typeCode(recovery[3]);
    await signedIn();
    await signOut();
    await passwordStep();
    await refused(recovery[3], "a recovery code once");
    await typeCode(recovery[4]);
    await signedIn();
  });

  test.run();
});
