// "Sign in with SSO" in a real browser (Debian's chromium driven by playwright-core) against a real hcd
// process and a real OpenID Connect provider (oidc-provider from npm, its development login pages), both
// on loopback: discovery, the code flow with PKCE (the provider requires it), landing signed in; and the
// refusals of an unverified email and of an email without an account.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchChromium, newContext, whenChromium } from "./browser-harness.ts";
import type { Person } from "./oidc-provider-rig.ts";
import { clickThroughProvider, ssoRig } from "./oidc-provider-rig.ts";

const TOKEN = "sso-browser-admin-token-0123456789";
const CLIENT_SECRET = "sso-browser-client-secret-0123456789";
/** The provider's people, by the login typed on its page: the email it vouches for, verified or not. */
const PEOPLE: Record<string, Person> = {
  ann: { email: "Ann@Example.com", email_verified: true },
  bob: { email: "bob@example.com", email_verified: false },
  cat: { email: "cat@example.com", email_verified: true },
};

await whenChromium("SSO browser tests", async () => {
  const sso = ssoRig(PEOPLE, { token: TOKEN, clientSecret: CLIENT_SECRET, users: ["ann@example.com", "bob@example.com"] }); // cat has no account in hcd
  let browser: Browser;
  let site = ""; // hcd as its SITE_ROOT names it (the cookies' host)
  const contexts: BrowserContext[] = [];

  test.before(async () => {
    site = sso().site;
    browser = await launchChromium();
  });

  test.after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
  });

  /** A fresh browser profile at hcd's sign-in page. */
  const freshPage = async (): Promise<Page> => {
    const context = await newContext(browser);
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(site + "/");
    return page;
  };
  test("discovery, the code flow with PKCE, and the user whose verified email matches lands signed in", async () => {
    const page = await freshPage();
    await clickThroughProvider(page, "ann");
    await page.getByRole("link", { name: "Account" }).waitFor();
    assert.ok(page.url().startsWith(site + "/"), page.url());
    assert.ok((await page.locator("header .who").textContent())?.includes("ann@example.com"), "signed in as ann@example.com");
  });

  for (const [login, status, words] of [
    ["bob", 403, "not verified"],
    ["cat", 403, "No account has this email"],
  ] as const) {
    test(`${login === "bob" ? "an unverified email" : "an email without an account"} is refused with a plain page and no session`, async () => {
      const page = await freshPage();
      const answered = page.waitForResponse((r) => r.url().startsWith(`${site}/signin/oidc/callback`));
      await clickThroughProvider(page, login);
      const answer = await answered;
      assert.is(answer.status(), status);
      assert.match(await answer.text(), words);
      assert.not.ok(
        (await answer.headersArray()).some((h) => h.name.toLowerCase() === "set-cookie" && h.value.startsWith("hcd_session=")),
        "no session cookie",
      );
      await page.goto(site + "/");
      await page.getByRole("button", { name: "Sign in with SSO" }).waitFor(); // still signed out
    });
  }

  test.run();
});
