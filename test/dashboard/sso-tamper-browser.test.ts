// "Sign in with SSO" callbacks tampered with or replayed, in a real browser (Debian's chromium driven by
// playwright-core) against a real hcd process and a real OpenID Connect provider (oidc-provider) on
// loopback: the browser goes through the provider's pages; the test holds the provider's redirect back to
// hcd and opens a changed callback URL in that browser, or the used one again. Each is refused with a
// plain page and no session.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchChromium, newContext, whenChromium } from "./browser-harness.ts";
import { clickThroughProvider, ssoRig } from "./oidc-provider-rig.ts";

const TOKEN = "sso-tamper-admin-token-0123456789";
const CLIENT_SECRET = "sso-tamper-client-secret-0123456789";
const UNKNOWN = /This sign-in is unknown, already used or expired/;
const UNVERIFIED = /could not be verified/;

await whenChromium("SSO tampered callback browser tests", async () => {
  const sso = ssoRig(
    { ann: { email: "ann@example.com", email_verified: true } },
    { token: TOKEN, clientSecret: CLIENT_SECRET, users: ["ann@example.com"] },
  );
  let browser: Browser;
  test.before(async () => {
    browser = await launchChromium();
  });
  test.after(async () => {
    await browser?.close();
  });
  const contexts: BrowserContext[] = [];
  test.after.each(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });

  /** A fresh browser profile at hcd's sign-in page. */
  const freshPage = async (): Promise<Page> => {
    const context = await newContext(browser);
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(sso().site + "/");
    return page;
  };
  const isCallback = (url: URL) => url.origin === sso().site && url.pathname === "/signin/oidc/callback";
  /**
   * Goes through the provider's pages as `login`, and returns the URL of the provider's redirect back to hcd,
   * which is held: hcd never sees it. (A route sees no redirect the browser follows itself, so the provider's
   * redirects are followed here, with the browser's cookies, and the browser is given the page they end on.)
   */
  const heldCallback = async (page: Page, login: string): Promise<URL> => {
    let held: (url: URL) => void = () => {};
    const reached = new Promise<URL>((resolve) => {
      held = resolve;
    });
    const atProvider = (url: URL) => url.origin === sso().provider.issuer;
    await page.route(atProvider, async (route) => {
      let at = new URL(route.request().url());
      let response = await route.fetch({ maxRedirects: 0 });
      for (let hop = 0; hop < 10; hop++) {
        const location = response.headers()["location"];
        const next = location === undefined ? null : new URL(location, at);
        if (next !== null && isCallback(next)) {
          held(next);
          await route.fulfill({ status: 200, contentType: "text/plain", body: "held" });
          return;
        }
        if (next === null || !atProvider(next)) break;
        response = await page.request.get(next.href, { maxRedirects: 0 }); // the browser's cookies: one profile
        at = next;
      }
      await route.fulfill({ response });
    });
    await clickThroughProvider(page, login);
    let timer: NodeJS.Timeout | undefined;
    const url = await Promise.race([
      reached,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("no redirect back to hcd within 10 s")), 10_000);
      }),
    ]);
    clearTimeout(timer);
    await page.unroute(atProvider);
    return url;
  };
  /** Opens `url` in `page`: asserts a plain refusal with `words`, no session cookie, and the sign-in page after it. */
  const refused = async (page: Page, url: URL | string, words: RegExp) => {
    const answer = await page.goto(String(url));
    assert.is(answer?.status(), 400);
    assert.match((await page.locator("body").textContent()) ?? "", words);
    assert.not.ok(
      ((await answer?.headersArray()) ?? []).some((h) => h.name.toLowerCase() === "set-cookie" && /^hcd_session=[^;]/.test(h.value)),
      "no session cookie set",
    );
    assert.not.ok(
      (await page.context().cookies()).some((c) => c.name === "hcd_session" && c.value !== ""),
      "no session in the browser",
    );
    await page.goto(sso().site + "/");
    await page.getByRole("button", { name: "Sign in with SSO" }).waitFor(); // still signed out
  };

  test("the held callback, opened unchanged in the browser that started the sign-in, signs in", async () => {
    const page = await freshPage();
    const callback = await heldCallback(page, "ann");
    const answer = await page.goto(callback.href);
    assert.is(answer?.status(), 200);
    await page.getByRole("link", { name: "Account" }).waitFor();
    assert.match((await page.locator("header .who").textContent()) ?? "", /ann@example\.com/);
  });

  test("a callback whose state was changed on its way to hcd is refused in the browser that started the sign-in", async () => {
    const page = await freshPage();
    const callback = await heldCallback(page, "ann");
    assert.ok(callback.searchParams.get("state"), callback.href);
    const changed = new URL(callback);
    changed.searchParams.set("state", "a-state-this-server-never-started");
    await refused(page, changed, UNKNOWN);
  });

  test("a callback whose code was changed on its way to hcd is refused", async () => {
    const page = await freshPage();
    const changed = await heldCallback(page, "ann");
    changed.searchParams.set("code", "a-code-the-provider-never-issued");
    await refused(page, changed, UNVERIFIED);
  });

  test("the callback that signed in once is refused when opened again, in a fresh browser and in the same one", async () => {
    const page = await freshPage();
    const answered = page.waitForResponse((r) => isCallback(new URL(r.url())));
    await clickThroughProvider(page, "ann");
    const first = await answered;
    assert.is(first.status(), 200);
    await page.getByRole("link", { name: "Account" }).waitFor(); // signed in
    const used = first.url();

    await refused(await freshPage(), used, UNKNOWN);
    const again = await page.goto(used);
    assert.is(again?.status(), 400);
    assert.match((await page.locator("body").textContent()) ?? "", UNKNOWN);
  });

  test.run();
});
