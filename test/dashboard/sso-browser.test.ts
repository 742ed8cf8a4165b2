// "Sign in with SSO" in a real browser (Debian's chromium driven by playwright-core) against a real hcd
// process and a real OpenID Connect provider (oidc-provider from npm, its development login pages), both
// on loopback: discovery, the code flow with PKCE (the provider requires it), landing signed in; and the
// refusals of an unverified email and of an email without an account.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { tempDir } from "../helpers.ts";
import type { RealServer } from "../security/real-server.ts";
import { call, ok, startServer, stopServer, troubleIn } from "../security/real-server.ts";
import { launchChromium, newContext, whenChromium } from "./browser-harness.ts";
import type { OidcProviderRig, Person } from "./oidc-provider-rig.ts";
import { startOidcProvider } from "./oidc-provider-rig.ts";

const TOKEN = "sso-browser-admin-token-0123456789";
const CLIENT_SECRET = "sso-browser-client-secret-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
/** The provider's people, by the login typed on its page: the email it vouches for, verified or not. */
const PEOPLE: Record<string, Person> = {
  ann: { email: "Ann@Example.com", email_verified: true },
  bob: { email: "bob@example.com", email_verified: false },
  cat: { email: "cat@example.com", email_verified: true },
};

await whenChromium("SSO browser tests", async () => {
  const dir = tempDir();
  let provider: OidcProviderRig;
  let server: RealServer;
  let browser: Browser;
  let site = ""; // hcd as its SITE_ROOT names it (the cookies' host)
  const contexts: BrowserContext[] = [];

  test.before(async () => {
    provider = await startOidcProvider(PEOPLE); // its port first (hcd needs OIDC_ISSUER), its client once hcd's callback URL is known
    server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: "hcd", OIDC_CLIENT_SECRET: CLIENT_SECRET } });
    site = `http://localhost:${server.port}`;
    provider.configure(site, "hcd", CLIENT_SECRET);
    for (const email of ["ann@example.com", "bob@example.com"]) { // cat has no account in hcd
      await ok(call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email, password: "a long enough password" } }));
    }
    browser = await launchChromium();
  });

  test.after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await provider?.close();
    if (server) {
      const output = server.output();
      await stopServer(server);
      dir.remove();
      assert.equal(troubleIn(output), [], "no unexpected errors in the server's output");
      assert.not.ok(output.includes(CLIENT_SECRET), "the client secret is never logged");
    }
  });

  /** A fresh browser profile at hcd's sign-in page. */
  const freshPage = async (): Promise<Page> => {
    const context = await newContext(browser);
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(site + "/");
    return page;
  };
  /** Clicks "Sign in with SSO" and goes through the provider's login and consent pages as `login`. */
  const throughProvider = async (page: Page, login: string): Promise<void> => {
    await page.getByRole("button", { name: "Sign in with SSO" }).click();
    await page.getByPlaceholder("Enter any login").fill(login);
    await page.getByPlaceholder("and password").fill("anything");
    await page.getByRole("button", { name: "Sign-in" }).click();
    await page.getByRole("button", { name: "Continue" }).click();
  };
  test("discovery, the code flow with PKCE, and the user whose verified email matches lands signed in", async () => {
    const page = await freshPage();
    await throughProvider(page, "ann");
    await page.getByRole("link", { name: "Account" }).waitFor();
    assert.ok(page.url().startsWith(site + "/"), page.url());
    assert.ok((await page.locator("header .who").textContent())?.includes("ann@example.com"), "signed in as ann@example.com");
  });

  for (const [login, status, words] of [["bob", 403, "not verified"], ["cat", 403, "No account has this email"]] as const) {
    test(`${login === "bob" ? "an unverified email" : "an email without an account"} is refused with a plain page and no session`, async () => {
      const page = await freshPage();
      const answered = page.waitForResponse((r) => r.url().startsWith(`${site}/signin/oidc/callback`));
      await throughProvider(page, login);
      const answer = await answered;
      assert.is(answer.status(), status);
      assert.match(await answer.text(), words);
      assert.not.ok((await answer.headersArray()).some((h) => h.name.toLowerCase() === "set-cookie" && h.value.startsWith("hcd_session=")), "no session cookie");
      await page.goto(site + "/");
      await page.getByRole("button", { name: "Sign in with SSO" }).waitFor(); // still signed out
    });
  }

  test.run();
});
