// The check form's errors in plain words that name the limit, next to their field, in a real browser
// (Debian's chromium driven by playwright-core) against a real hcd process on loopback; a full project
// says what its check limit is.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Page } from "playwright-core";
import type { ProjectJson } from "../security/real-server.ts";
import { call, createProject, ok } from "../security/real-server.ts";
import { browserRig, newContext, signIn, whenChromium } from "./browser-harness.ts";

const TOKEN = "form-errors-admin-token-0123456789";

await whenChromium("dashboard form error browser tests", async () => {
  const { rig } = browserRig({ ADMIN_TOKEN: TOKEN });
  let page: Page;
  let project: ProjectJson;
  const url = () => rig().server.url;

  test.before(async () => {
    project = await createProject(rig().server, TOKEN, { name: "Ops", check_limit: 1 });
    page = await (await newContext(rig().browser)).newPage();
    await signIn(page, url(), TOKEN);
  });

  // [what is typed, the field (its id after f-), the value, the words next to it, the value's unit when it has one]
  const rows: [string, string, string, string, string?][] = [
    ["a period below a minute", "timeout", "0", "Period must be a number between 1 minute and 365 days (60 to 31536000 seconds)."],
    ["a period that is no number", "timeout", "ten", "Period must be a number between 1 minute and 365 days (60 to 31536000 seconds)."],
    ["a grace time above a year", "grace", "9000", "Grace time must be a number between 1 minute and 365 days (60 to 31536000 seconds)."],
    ["a threshold of 0", "failure_threshold", "0", "Failures in a row must be a whole number from 1 to 100."],
    [
      "a reminder every minute",
      "reminder_interval",
      "60",
      "The reminder interval must be 0 (none), or between 5 minutes and 365 days (300 to 31536000 seconds).",
      "seconds",
    ],
    [
      "a run time limit of 30 seconds",
      "max_duration",
      "30",
      "The run time limit must be 0 (off), or between 1 minute and 7 days (60 to 604800 seconds).",
      "seconds",
    ],
    ["a name of 101 letters", "name", "n".repeat(101), "Name must be at most 100 characters."],
    [
      "a mute until 'next tuesday'",
      "muted_until",
      "next tuesday",
      "Muted until must be a date and time like 2026-01-01T00:00:00Z (ISO 8601; UTC unless an offset is given), or empty.",
    ],
  ];
  for (const [what, field, value, words, unit] of rows) {
    test(`${what}: '${words}' next to the field, which is marked invalid`, async () => {
      await page.goto(`${url()}/projects/${project.id}/checks/new`);
      const folded = page.locator("details.form-section:not([open]) > summary");
      while ((await folded.count()) > 0) await folded.first().click(); // alerting and filtering, folded at their defaults
      await page.locator(`#f-${field}`).fill(value);
      if (unit !== undefined) await page.locator(`#f-${field}_unit`).selectOption(unit);
      await page.getByRole("button", { name: "Save" }).click();
      assert.is(await page.locator(`#e-${field}`).textContent(), words);
      assert.is(await page.locator(`#f-${field}`).getAttribute("aria-invalid"), "true");
      assert.is(await page.locator(`#f-${field}`).inputValue(), value, "the typed value is kept");
      if (unit !== undefined) assert.is(await page.locator(`#f-${field}_unit`).inputValue(), unit, "and its unit");
      assert.not.ok((await page.content()).includes("json validation error"), "no API jargon");
    });
  }

  test("a bad cron expression and an unknown time zone say what a good one looks like; a cron field out of range is named", async () => {
    await page.goto(`${url()}/projects/${project.id}/checks/new`);
    await page.getByRole("radio", { name: "Cron expression" }).check();
    await page.locator("#f-schedule").fill("every night");
    await page.getByRole("button", { name: "Save" }).click();
    assert.is(
      await page.locator("#e-schedule").textContent(),
      "The schedule must be a cron expression of 5 fields (like 0 3 * * *) or an OnCalendar expression (like Mon *-*-* 03:00:00).",
    );
    await page.locator("#f-schedule").fill("61 * * * *");
    await page.getByRole("button", { name: "Save" }).click();
    assert.is(
      await page.locator("#e-schedule").textContent(),
      "The cron expression's minute field is wrong: 61 is out of range 0-59. Its five fields are minute (0-59), hour (0-23), day of month (1-31), month (1-12) and day of week (0-7, 0 and 7 are Sunday).",
    );
    await page.locator("#f-schedule").fill("0 3 * * *");
    // the picker offers no such zone: a crafted request, as a page changed by hand would send
    await page.locator("#f-tz").evaluate((select: HTMLSelectElement) => {
      select.add(new Option("Mars/Olympus", "Mars/Olympus", true, true));
    });
    await page.getByRole("button", { name: "Save" }).click();
    assert.is(
      await page.locator("#e-tz").textContent(),
      "Time zone must be an IANA time zone name, like UTC, Europe/Riga or America/New_York.",
    );
  });

  test("a project at its check limit says what the limit is and how to go on", async () => {
    assert.is((await call(url(), "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "the one" } })).status, 201);
    await page.goto(`${url()}/projects/${project.id}/checks/new`);
    await page.getByLabel("Name").fill("one too many");
    await page.getByRole("button", { name: "Save" }).click();
    await page
      .getByText(
        "This project has reached its limit of 1 check: delete a check first, or ask an instance admin to raise the check limit (on the project's Manage page).",
      )
      .waitFor();
    const { checks } = await ok<{ checks: unknown[] }>(call(url(), "GET", "/api/v3/checks/", { key: project.api_key }));
    assert.is(checks.length, 1, "nothing more was made");
  });

  test.run();
});
