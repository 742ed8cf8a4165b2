// What the dashboard's browser tests share: whether Chromium is there (a loud skip, or a failure under
// HCD_REQUIRE_EXTRAS=1), one real hcd process and one Chromium for a test file, and signing in a page.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { existsSync } from "node:fs";
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";
import { tempDir } from "../helpers.ts";
import { smtpReceiver } from "../notify/receivers.ts";
import type { RealServer } from "../security/real-server.ts";
import { startServer, stopServer, troubleIn } from "../security/real-server.ts";

export const CHROMIUM = "/usr/bin/chromium";

/** Runs `tests` when Chromium is installed; else registers one skipped (or, with HCD_REQUIRE_EXTRAS=1, failing) test and runs it. */
export async function whenChromium(what: string, tests: () => Promise<void>): Promise<void> {
  if (existsSync(CHROMIUM)) return tests();
  if (process.env.HCD_REQUIRE_EXTRAS === "1") {
    test("chromium is installed (HCD_REQUIRE_EXTRAS=1)", () => assert.unreachable(`${CHROMIUM} is missing`));
  } else {
    console.log(`SKIP: ${what}: ${CHROMIUM} not installed`);
    test(`${what} skipped: chromium not installed`, () => {});
  }
  test.run();
}

/** One hcd process and one headless Chromium, started by test.before and stopped by test.after (which fails on errors in the server's output). */
export type BrowserRig = { readonly server: RealServer; readonly browser: Browser };

/** The SMTP receiver a rig made `withMail` starts (test/notify/receivers.ts): `mails` are the messages hcd sent. */
export type MailReceiver = Awaited<ReturnType<typeof smtpReceiver>>;

/**
 * The rig of a test file: its server started with `env` (or what `env()` answers in test.before, for
 * settings known only then), and one Chromium; a test makes a context of its own. `withMail`: a real SMTP
 * receiver is started first and hcd sends its mail there (SMTP_URL); `mail()` returns it. test.after closes
 * all of them and fails on errors in the server's output or a server that did not exit 0.
 */
export function browserRig(
  env: Record<string, string> | (() => Record<string, string>),
  options: { withMail?: boolean } = {},
): { rig: () => BrowserRig; mail: () => MailReceiver } {
  const dir = tempDir();
  let server: RealServer | undefined;
  let browser: Browser | undefined;
  let receiver: MailReceiver | undefined;
  test.before(async () => {
    if (options.withMail === true) receiver = await smtpReceiver();
    const given = typeof env === "function" ? env() : env;
    server = await startServer({ dataDir: dir.path, env: receiver === undefined ? given : { ...given, SMTP_URL: receiver.url } });
    browser = await launchChromium();
  });
  test.after(async () => {
    await browser?.close();
    if (server) {
      const trouble = troubleIn(server.output());
      const code = await stopServer(server);
      await receiver?.close();
      dir.remove();
      assert.equal(trouble, [], "no unexpected errors in the server's output");
      assert.is(code, 0, `the server exited ${code}:\n${server.output()}`);
    }
  });
  return {
    rig: () => {
      if (server === undefined || browser === undefined) throw new Error("the rig starts in test.before");
      return { server, browser };
    },
    mail: () => {
      if (receiver === undefined)
        throw new Error(options.withMail === true ? "the rig starts in test.before" : "the rig was made without withMail");
      return receiver;
    },
  };
}

/** The live pages' refresh period (http/dashboard/static/dashboard.js refreshLive). */
const LIVE_REFRESH_MS = 5_000;

/**
 * A fresh browser profile (its own cookies), 1200x800 unless `options` say otherwise. With `liveRefreshMs`,
 * its pages' 5 s live refreshes come that often instead (a test of what a refresh shows, not of its
 * period); other timers keep theirs. Not for tests that measure a layout a refresh may swap under them.
 */
export async function newContext(
  browser: Browser,
  options: BrowserContextOptions & { liveRefreshMs?: number } = {},
): Promise<BrowserContext> {
  const { liveRefreshMs, ...contextOptions } = options;
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 }, ...contextOptions });
  context.setDefaultTimeout(10_000);
  if (liveRefreshMs !== undefined) {
    await context.addInitScript(
      ([every, period]) => {
        const setTimeoutOf = window.setTimeout.bind(window);
        window.setTimeout = ((handler: TimerHandler, ms?: number, ...rest: unknown[]) =>
          setTimeoutOf(handler, ms === period ? every : ms, ...rest)) as typeof window.setTimeout;
      },
      [liveRefreshMs, LIVE_REFRESH_MS] as const,
    );
  }
  return context;
}

/** Signs `page` in with `key` through the sign-in form; resolves once the signed-in page shows "Sign out". */
export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(url + "/");
  await page.getByLabel("Admin token or API key").fill(key);
  await page.locator("form[action='/signin']").getByRole("button", { name: "Sign in" }).click(); // the key's form, not the email one
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

/**
 * Signs `page` in as a user through the Email and Password fields; resolves once the signed-in page shows
 * "Account". With `next`, that page is asked for signed out: the sign-in page shows, and then that page.
 */
export async function signInWithPassword(
  page: Page,
  url: string,
  email: string,
  password: string,
  opts: { next?: string } = {},
): Promise<void> {
  await page.goto(url + (opts.next ?? "/"));
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.locator("form[action='/signin/password']").getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("link", { name: "Account" }).waitFor();
}

/** Launches headless Chromium. */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
}

/** A fresh browser profile signed in to the dashboard at `url` with `key`; console messages and dialogs go to `messages`. */
export async function signedInPage(browser: Browser, url: string, key: string, messages: string[]): Promise<Page> {
  const page = await (await newContext(browser)).newPage();
  page.on("console", (message) => messages.push(`console: ${message.text()}`));
  page.on("dialog", (dialog) => {
    messages.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  await signIn(page, url, key);
  return page;
}
