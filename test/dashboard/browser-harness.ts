// What the dashboard's browser tests share: Chromium (Debian's, driven by playwright-core), the loud skip
// when it is absent (a failure under HCD_REQUIRE_EXTRAS=1), and a page signed in with a key.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { existsSync } from "node:fs";
import type { Browser, Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

/** Runs `tests` when Chromium is installed; otherwise registers one loud skip (or a failure under HCD_REQUIRE_EXTRAS=1) and runs it. */
export async function withChromium(what: string, tests: () => Promise<void>): Promise<void> {
  if (existsSync(CHROMIUM)) return tests();
  if (process.env.HCD_REQUIRE_EXTRAS === "1") {
    test("chromium is installed (HCD_REQUIRE_EXTRAS=1)", () => assert.unreachable(`${CHROMIUM} is missing`));
  } else {
    console.log(`SKIP: ${what}: ${CHROMIUM} not installed`);
    test(`${what} skipped: chromium not installed`, () => {});
  }
  test.run();
}

/** Launches headless Chromium. */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
}

/** A fresh browser profile signed in to the dashboard at `url` with `key`; console messages and dialogs go to `messages`. */
export async function signedInPage(browser: Browser, url: string, key: string, messages: string[]): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  page.on("console", (message) => messages.push(`console: ${message.text()}`));
  page.on("dialog", (dialog) => { messages.push(`dialog: ${dialog.message()}`); void dialog.dismiss(); });
  await page.goto(url + "/");
  await page.getByLabel("Admin token or API key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
  return page;
}
