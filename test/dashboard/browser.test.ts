// The dashboard in a real browser (Debian's chromium driven by playwright-core) against a real hcd
// process on loopback with CLOCK=virtual: sign-in with each kind of key, create / edit / pause /
// resume / delete through the pages (verified through the API), the checks table updating itself when
// the virtual clock makes a check go down, ping bodies shown as text, and the XSS, CSRF and read-only
// cases. Screenshots of every page go to screenshots/dashboard/ (ignored by git).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { ProjectJson, RealServer } from "../security/real-server.ts";
import { call, createProject, ok } from "../security/real-server.ts";
import { browserRig, whenChromium } from "./browser-harness.ts";

const TOKEN = "dashboard-test-admin-token-0123456789";
const SHOTS = fileURLToPath(new URL("../../../screenshots/dashboard/", import.meta.url));
const XSS_NAME = `<img src=x onerror="console.log('xss-fired');alert('xss')">`;

type CheckJson = {
  uuid: string;
  name: string;
  slug: string;
  tags: string;
  status: string;
  timeout?: number;
  grace: number;
  n_pings: number;
  desc: string;
};

await whenChromium("dashboard browser tests", browserTests);

async function browserTests(): Promise<void> {
  let server: RealServer;
  let browser: Browser;
  let project: ProjectJson;
  let other: ProjectJson;
  const contexts: BrowserContext[] = [];
  const messages: string[] = []; // every console message and dialog of every page
  const admin = { authorization: `Bearer ${TOKEN}` };
  // a local webhook receiver: keeps every body; waitForBody resolves once one matches
  const received: string[] = [];
  let wake = () => {};
  const receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      res.end("ok");
      received.push(body);
      wake();
    });
  });
  const waitForBody = async (match: (json: { name?: string; status?: string }) => boolean): Promise<{ name?: string; status?: string }> => {
    const failAt = Date.now() + 15_000; // a failure deadline, not a wait that makes the test pass
    for (;;) {
      const found = received.map((b) => JSON.parse(b) as { name?: string; status?: string }).find(match);
      if (found) return found;
      if (Date.now() > failAt) throw new Error(`no matching notification; received: ${received.join(" | ")}`);
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 1_000);
      });
    }
  };
  const receiverUrl = () => `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  test.before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    receiver.listen(0, "127.0.0.1");
    await new Promise((resolve) => receiver.once("listening", resolve));
  });
  test.after(() => {
    receiver.close();
  });
  const { rig } = browserRig(() => ({
    ADMIN_TOKEN: TOKEN,
    CLOCK: "virtual",
    INTEGRATIONS_ALLOW_PRIVATE_IPS: "true",
    TELEGRAM_BOT_TOKEN: "1:browser-bot",
    TELEGRAM_API_URL: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/tg`,
  }));
  test.before(async () => {
    ({ server, browser } = rig());
    project = await createProject(server, TOKEN, { name: "Ops" });
    other = await createProject(server, TOKEN, { name: "Other team" });
  });

  /** A fresh browser profile (its own cookies), signed in with `key`. */
  const signedIn = async (key: string): Promise<Page> => {
    // times show in the browser's zone: UTC here, whatever the machine's zone, so the texts below hold
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 }, timezoneId: "UTC" });
    contexts.push(context);
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    page.on("console", (message) => messages.push(`console: ${message.text()}`));
    page.on("dialog", (dialog) => {
      messages.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    await page.goto(server.url + "/");
    await page.getByLabel("Admin token or API key").fill(key);
    await page.locator("form[action='/signin']").getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    return page;
  };
  const shot = (page: Page, name: string, fullPage = true) => page.screenshot({ path: `${SHOTS}${name}.png`, fullPage });
  const api = <T>(method: string, path: string, body?: unknown, key = project.api_key) =>
    ok<T>(call(server.url, method, path, { key, body }));
  const checkBySlug = async (slug: string): Promise<CheckJson | undefined> =>
    (await api<{ checks: CheckJson[] }>("GET", `/api/v3/checks/?slug=${slug}`)).checks[0];
  /** Returns the CSRF token rendered into the page's forms. */
  const csrfOf = (page: Page) => page.locator("input[name=csrf]").first().inputValue();
  const cookieHeader = async (page: Page) => (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");

  test("without a session / shows the sign-in form; a wrong key is refused", async () => {
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    const response = await page.goto(server.url + "/");
    assert.match(response?.headers()["content-security-policy"] ?? "", /default-src 'self'/);
    await shot(page, "sign-in");
    await page.getByLabel("Admin token or API key").fill("not-a-key");
    await page.locator("form[action='/signin']").getByRole("button", { name: "Sign in" }).click();
    await page.getByText("Wrong admin token or API key.").waitFor();
    assert.is(await page.getByRole("button", { name: "Sign out" }).count(), 0);
  });

  let adminPage: Page;

  test("the admin token lists every project by name", async () => {
    adminPage = await signedIn(TOKEN);
    await adminPage.getByRole("link", { name: "Other team" }).waitFor();
    await shot(adminPage, "projects");
    await adminPage.getByLabel("Name").fill("Made in the dashboard");
    await adminPage.getByRole("button", { name: "Create project" }).click();
    await adminPage.getByRole("heading", { name: "Checks" }).waitFor();
    const { projects } = await ok<{ projects: ProjectJson[] }>(call(server.url, "GET", "/admin/v1/projects", { headers: admin }));
    const made = projects.find((p) => p.name === "Made in the dashboard");
    assert.ok(made);
    assert.ok(adminPage.url().endsWith(`/projects/${made.id}/checks`));
    await adminPage.goto(server.url + "/");
    await adminPage.getByRole("link", { name: "Ops" }).click();
    await adminPage.getByRole("heading", { name: "Checks" }).waitFor();
  });

  test("the session cookie is HttpOnly and SameSite=Strict; the key is in no URL", async () => {
    const response = await fetch(`${server.url}/signin`, {
      method: "POST",
      body: new URLSearchParams({ key: project.api_key }),
      redirect: "manual",
    });
    assert.is(response.status, 303);
    const cookie = response.headers.get("set-cookie") ?? "";
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    assert.not.match(cookie, new RegExp(project.api_key));
    assert.not.match(response.headers.get("location") ?? "", new RegExp(project.api_key));
  });

  let uuid = "";
  let rw: Page;

  test("a project key adds a check through the form; the API's rules and error texts apply", async () => {
    rw = await signedIn(project.api_key);
    await rw.getByRole("heading", { name: "Checks" }).waitFor();
    assert.is(await rw.getByRole("link", { name: "Other team" }).count(), 0, "a project key sees only its project");
    await rw.getByRole("link", { name: "Add check" }).click();
    await rw.getByLabel("Name").fill("Nightly backup");
    await rw.getByLabel("Slug").fill("backup");
    await rw.getByLabel("Tags (separated by spaces)").fill("prod db");
    await rw.getByLabel("Description").fill("pg_dump to S3");
    await rw.locator("#f-timeout").fill("10");
    await rw.locator("#f-timeout_unit").selectOption("seconds");
    await rw.locator("#f-grace").fill("10");
    await rw.locator("#f-grace_unit").selectOption("minutes");
    await rw.getByRole("button", { name: "Save" }).click();
    await rw.locator("#e-timeout").getByText("Period must be a number between 1 minute and 365 days").waitFor();
    const apiError = await call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "x", timeout: 10 } });
    assert.is(JSON.parse(apiError.text).error, "json validation error: timeout is too small", "the API keeps its own terse text");
    assert.is(await checkBySlug("backup"), undefined, "nothing was created");
    await shot(rw, "add-check-error");
    await rw.locator("#f-timeout").fill("1");
    await rw.locator("#f-timeout_unit").selectOption("hours");
    await rw.getByRole("button", { name: "Save" }).click();
    await rw.getByText("Check created.").waitFor();
    const created = await checkBySlug("backup");
    assert.ok(created);
    assert.is(created.name, "Nightly backup");
    assert.is(created.tags, "prod db");
    assert.is(created.desc, "pg_dump to S3");
    assert.is(created.timeout, 3600);
    assert.is(created.grace, 600);
    uuid = created.uuid;
    assert.ok(rw.url().endsWith(`/checks/${uuid}?done=created`));
    assert.ok(await rw.getByText(`/ping/${uuid}`, { exact: false }).first().isVisible(), "the ping URL is shown");
  });

  test("a cron schedule's form previews the next expected pings", async () => {
    await rw.goto(`${server.url}/projects/${project.id}/checks/new`);
    await rw.getByLabel("Name").fill("Hourly sync");
    await rw.getByRole("radio", { name: "Cron expression" }).check();
    await rw.locator("#f-schedule").fill("5 * * * *");
    await rw.getByLabel("Time zone").selectOption("Europe/Riga");
    await rw.getByRole("button", { name: "Preview the next pings" }).click();
    assert.is(await rw.locator(".next").count(), 5);
    for (const text of await rw.locator(".next time").allTextContents()) assert.match(text, /:05:00 UTC$/);
    await shot(rw, "add-check-cron");
    await rw.getByRole("button", { name: "Save" }).click();
    await rw.getByText("Check created.").waitFor();
    const made = await api<{ schedule: string; tz: string }>("GET", `/api/v3/checks/${rw.url().split("/checks/")[1].split("?")[0]}`);
    assert.is(made.schedule, "5 * * * *");
    assert.is(made.tz, "Europe/Riga");
  });

  test("Pause, Resume, Edit and Ping now act on the check, as the API then shows", async () => {
    await rw.goto(`${server.url}/checks/${uuid}`);
    await rw.getByRole("button", { name: "Pause" }).click();
    await rw.getByText("Check paused.").waitFor();
    assert.is((await api<CheckJson>("GET", `/api/v3/checks/${uuid}`)).status, "paused");
    await rw.getByRole("button", { name: "Resume" }).click();
    await rw.getByText("Check resumed.").waitFor();
    assert.is((await api<CheckJson>("GET", `/api/v3/checks/${uuid}`)).status, "new");
    await rw.getByRole("link", { name: "Edit" }).click();
    await rw.getByLabel("Name").fill("Nightly backup (db1)");
    await rw.getByRole("button", { name: "Save" }).click();
    await rw.getByText("Changes saved.").waitFor();
    assert.is((await api<CheckJson>("GET", `/api/v3/checks/${uuid}`)).name, "Nightly backup (db1)");
    await rw.getByRole("button", { name: "Ping now" }).click();
    await rw.getByText("Success ping sent.").waitFor();
    const pinged = await api<CheckJson>("GET", `/api/v3/checks/${uuid}`);
    assert.is(pinged.status, "up");
    assert.is(pinged.n_pings, 1);
  });

  test("Acknowledge is offered on a down check only; it acknowledges the outage, as the API then shows", async () => {
    const made = await api<CheckJson & { acknowledged: boolean }>("POST", "/api/v3/checks/", { name: "Flaky job" });
    await rw.goto(`${server.url}/checks/${made.uuid}`);
    await rw.getByRole("button", { name: "Ping now" }).waitFor();
    assert.is(await rw.getByRole("button", { name: "Acknowledge" }).count(), 0, "not while new");
    assert.is((await fetch(`${server.url}/ping/${made.uuid}/fail`)).status, 200);
    await rw.goto(`${server.url}/checks/${made.uuid}`);
    await rw.getByRole("button", { name: "Acknowledge" }).click();
    await rw.getByText("Outage acknowledged.").waitFor();
    await rw.getByText(/outage acknowledged .* by API key \(read-write\)/).waitFor(); // who: the session's key
    assert.is(await rw.getByRole("button", { name: "Acknowledge" }).count(), 0, "not twice");
    assert.is((await api<{ acknowledged: boolean }>("GET", `/api/v3/checks/${made.uuid}`)).acknowledged, true);
    await api("DELETE", `/api/v3/checks/${made.uuid}`);
  });

  test("the alerting fields are edited through the form with the API's rules; the API then shows them", async () => {
    type AlertingJson = { failure_threshold: number; reminder_interval: number; muted_until: string | null };
    await rw.goto(`${server.url}/checks/${uuid}/edit`);
    await rw.locator("details.alerting > summary").click(); // folded while at its defaults
    await rw.getByLabel("Down after this many failures in a row (1-100)").fill("101");
    await rw.getByRole("button", { name: "Save" }).click();
    await rw.locator("#e-failure_threshold").getByText("Failures in a row must be a whole number from 1 to 100.").waitFor();
    await rw.getByLabel("Down after this many failures in a row (1-100)").fill("3");
    const reminder = rw.getByLabel(/^Reminder while down, every/);
    await reminder.first().fill("60");
    await rw.locator("#f-reminder_interval_unit").selectOption("seconds");
    await rw.getByRole("button", { name: "Save" }).click();
    await rw
      .locator("#e-reminder_interval")
      .getByText("The reminder interval must be 0 (none), or between 5 minutes and 365 days")
      .waitFor();
    await reminder.first().fill("1");
    await rw.locator("#f-reminder_interval_unit").selectOption("hours");
    await rw.getByLabel(/^Muted until/).fill("next tuesday");
    await rw.getByRole("button", { name: "Save" }).click();
    await rw.locator("#e-muted_until").getByText("Muted until must be a date and time like 2026-01-01T00:00:00Z").waitFor();
    const unchanged = await api<AlertingJson>("GET", `/api/v3/checks/${uuid}`);
    assert.equal(
      [unchanged.failure_threshold, unchanged.reminder_interval, unchanged.muted_until],
      [1, 0, null],
      "a refused form changes nothing",
    );
    await rw.getByLabel(/^Muted until/).fill("2099-01-02T03:04:05Z");
    await rw.getByRole("button", { name: "Save" }).click();
    await rw.getByText("Changes saved.").waitFor();
    await rw
      .locator(".alerting")
      .getByText("down after 3 failures in a row; a reminder every 1 hour while down; muted until 2099-01-02 03:04:05 UTC")
      .waitFor();
    const saved = await api<AlertingJson>("GET", `/api/v3/checks/${uuid}`);
    assert.is(saved.failure_threshold, 3);
    assert.is(saved.reminder_interval, 3600);
    assert.is(Date.parse(saved.muted_until ?? ""), Date.UTC(2099, 0, 2, 3, 4, 5));
    await shot(rw, "check-alerting", false);
    // the edit form shows the saved values; emptying the mute unmutes, the other fields go back to their defaults
    await rw.getByRole("link", { name: "Edit" }).click();
    assert.is(await rw.getByLabel("Down after this many failures in a row (1-100)").inputValue(), "3");
    assert.equal([await reminder.first().inputValue(), await rw.locator("#f-reminder_interval_unit").inputValue()], ["1", "hours"]);
    assert.is(Date.parse(await rw.getByLabel(/^Muted until/).inputValue()), Date.UTC(2099, 0, 2, 3, 4, 5));
    await rw.getByLabel("Down after this many failures in a row (1-100)").fill("1");
    await reminder.first().fill("0");
    await rw.getByLabel(/^Muted until/).fill("");
    await rw.getByRole("button", { name: "Save" }).click();
    await rw.getByText("Changes saved.").waitFor();
    const cleared = await api<AlertingJson>("GET", `/api/v3/checks/${uuid}`);
    assert.equal([cleared.failure_threshold, cleared.reminder_interval, cleared.muted_until], [1, 0, null]);
  });

  test("the admin mutes the project on its settings page with the admin API's rules; the admin API then shows it", async () => {
    const mutedUntil = async () => {
      const { projects } = await ok<{ projects: (ProjectJson & { muted_until: string | null })[] }>(
        call(server.url, "GET", "/admin/v1/projects", { headers: admin }),
      );
      return projects.find((p) => p.id === project.id)?.muted_until;
    };
    const label = /^Mute the project's notifications until/;
    await adminPage.goto(`${server.url}/projects/${project.id}/settings`);
    await adminPage.getByText("Notifications are not muted.").waitFor();
    await adminPage.getByLabel(label).fill("2099-02-30T00:00:00Z");
    await adminPage.getByRole("button", { name: "Save mute" }).click();
    await adminPage.getByText("json validation error: until is not an ISO 8601 date and time, or null").waitFor();
    const apiError = await call(server.url, "POST", `/admin/v1/projects/${project.id}/mute`, {
      headers: admin,
      body: { until: "2099-02-30T00:00:00Z" },
    });
    assert.is(
      JSON.parse(apiError.text).error,
      "json validation error: until is not an ISO 8601 date and time, or null",
      "the same text as the admin API",
    );
    assert.is(await mutedUntil(), null, "a refused form changes nothing");
    await adminPage.getByLabel(label).fill("2099-03-04T05:06:07Z");
    await adminPage.getByRole("button", { name: "Save mute" }).click();
    await adminPage.getByText("Notifications of every check are muted until 2099-03-04 05:06:07 UTC; monitoring continues.").waitFor();
    assert.is(Date.parse((await mutedUntil()) ?? ""), Date.UTC(2099, 2, 4, 5, 6, 7));
    await shot(adminPage, "settings-mute", false);
    // a project key sees the mute but gets no form, and the server refuses its POST
    await rw.goto(`${server.url}/projects/${project.id}/settings`);
    await rw.getByText("Notifications of every check are muted until 2099-03-04 05:06:07 UTC; monitoring continues.").waitFor();
    assert.is(await rw.getByRole("button", { name: "Save mute" }).count(), 0);
    const refused = await fetch(`${server.url}/projects/${project.id}/mute`, {
      method: "POST",
      headers: { cookie: await cookieHeader(rw), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: await csrfOf(rw), until: "" }),
      redirect: "manual",
    });
    assert.is(refused.status, 403);
    assert.is(Date.parse((await mutedUntil()) ?? ""), Date.UTC(2099, 2, 4, 5, 6, 7), "still muted");
    // emptying the field unmutes (the later tests need notifications)
    await adminPage.getByLabel(label).fill("");
    await adminPage.getByRole("button", { name: "Save mute" }).click();
    await adminPage.getByText("Notifications are not muted.").waitFor();
    assert.is(await mutedUntil(), null);
  });

  test("a ping's body is shown as text, never as markup", async () => {
    const body = "<b id=bold>done</b> 3 files";
    assert.is((await call(server.url, "POST", `/ping/${uuid}`, { body, headers: { "user-agent": "<i>agent</i>" } })).status, 200);
    await rw.goto(`${server.url}/checks/${uuid}`);
    await rw.getByText("<i>agent</i>").waitFor(); // the user agent, literally
    await shot(rw, "check");
    await shot(rw, "check-top", false);
    await rw
      .getByRole("link", { name: /^body \(/ })
      .first()
      .click();
    assert.is(await rw.locator("body").innerText(), body);
    assert.is(await rw.locator("#bold").count(), 0);
  });

  test("the admin adds a webhook integration with its form (a bad URL shown next to it), tests it; a project key turns it on for a check", async () => {
    const page = adminPage;
    await page.goto(`${server.url}/projects/${project.id}/integrations`);
    await page.getByRole("link", { name: "Add an integration" }).click();
    // kinds this server cannot send are not offered: no SMTP_URL, no shell, no Twilio account
    for (const absent of ["Email", "Shell command", "SMS"])
      assert.is(await page.locator("ul.kinds").getByRole("link", { name: absent, exact: true }).count(), 0, absent);
    await page.locator("ul.kinds").getByRole("link", { name: "Webhook", exact: true }).click();
    await page.getByRole("heading", { name: "Add Webhook" }).waitFor();
    await page.getByLabel("Name", { exact: true }).fill("local hook");
    await page.getByLabel("URL when down").fill("ftp://nowhere");
    await page.getByLabel("Body when down").fill("$JSON");
    await page.getByRole("button", { name: "Save integration" }).click();
    // the error next to its field, the other values kept
    await page
      .locator("#k-url_down-error")
      .getByText(/http\(s\) URL/)
      .waitFor();
    assert.is(await page.getByLabel("Body when down").inputValue(), "$JSON");
    await page.getByLabel("URL when down").fill(receiverUrl());
    await page.getByLabel("Headers when down").fill("Content-Type: application/json");
    await page.getByRole("button", { name: "Save integration" }).click();
    // saved: "Send test notification" right away
    await page.getByText("Integration “local hook” added.").waitFor();
    await page.getByRole("button", { name: "Send test notification local hook" }).click();
    await page.getByText("Test notification sent through local hook: accepted.").waitFor();
    assert.is((await waitForBody((json) => json.name === "TEST")).status, "down");
    await page.getByRole("cell", { name: "local hook", exact: true }).waitFor();
    const { channels } = await api<{ channels: { id: string; name: string }[] }>("GET", "/api/v3/channels/");
    const hook = channels.find((c) => c.name === "local hook");
    assert.ok(hook);
    // a project key sees the list but gets no form
    await rw.goto(`${server.url}/projects/${project.id}/integrations`);
    await rw.getByRole("cell", { name: "local hook", exact: true }).waitFor();
    assert.is(await rw.getByRole("link", { name: "Add an integration" }).count(), 0);
    await rw.goto(`${server.url}/checks/${uuid}`);
    await rw.getByRole("button", { name: "Turn on local hook" }).click();
    await rw.getByText("Changes saved.").waitFor();
    assert.is((await api<{ channels: string }>("GET", `/api/v3/checks/${uuid}`)).channels, hook.id);
    await rw.goto(`${server.url}/projects/${project.id}/integrations`);
    await rw.getByRole("link", { name: "Nightly backup (db1)" }).waitFor();
    // "Test" sends a sample notification at once and shows the outcome
    await rw.getByRole("button", { name: "Test local hook" }).click();
    await rw.getByText("Test notification sent through local hook: accepted.").waitFor();
    await shot(rw, "integrations");
    await page.goto(`${server.url}/projects/${project.id}/integrations/add/webhook`);
    await page.getByLabel("Name", { exact: true }).fill("dead hook");
    await page.getByLabel("URL when down").fill("http://127.0.0.1:9/nobody-listens");
    await page.getByRole("button", { name: "Save integration" }).click();
    await page.getByRole("button", { name: "Test dead hook" }).click();
    await page.getByText(/^Test notification through dead hook failed: \S/).waitFor();
  });

  test("the admin adds a telegram and an ntfy integration with their forms (a bad chat id shown next to it); Tests reach them; edit shows the stored values", async () => {
    const page = adminPage;
    await page.goto(`${server.url}/projects/${project.id}/integrations/add`);
    await page.locator("ul.kinds").getByRole("link", { name: "Telegram", exact: true }).click();
    await page.getByText("paste the chat's id").waitFor(); // what to paste where
    await page.getByLabel("Name", { exact: true }).fill("ops chat");
    await page.getByLabel("Chat id").fill("not a chat");
    await page.getByRole("button", { name: "Save integration" }).click();
    await page
      .locator("#k-chat_id-error")
      .getByText(/must be a chat id/)
      .waitFor();
    await page.getByLabel("Chat id").fill("12345");
    await page.getByRole("button", { name: "Save integration" }).click();
    await page.getByRole("button", { name: "Send test notification ops chat" }).click();
    await page.getByText("Test notification sent through ops chat: accepted.").waitFor();
    const sent = (await waitForBody((json) => (json as { chat_id?: number }).chat_id === 12345)) as { text?: string };
    assert.match(sent.text ?? "", /^🔴 The check <a href="[^"]+">TEST<\/a> is <b>DOWN<\/b>/);
    // ntfy: server, topic, a token for a protected topic, priorities as choices
    await page.goto(`${server.url}/projects/${project.id}/integrations/add/ntfy`);
    await page.getByLabel("Name", { exact: true }).fill("phones");
    await page.getByLabel("Server").fill(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}`);
    await page.getByLabel("Topic").fill("ops-alerts");
    await page.getByLabel("Access token").fill("tk_browser_secret");
    await page.getByLabel("Priority when down").selectOption("5");
    await page.getByRole("button", { name: "Save integration" }).click();
    await page.getByRole("button", { name: "Send test notification phones" }).click();
    await page.getByText("Test notification sent through phones: accepted.").waitFor();
    const published = (await waitForBody((json) => (json as { topic?: string }).topic === "ops-alerts")) as { priority?: number };
    assert.is(published.priority, 5);
    // its edit page shows what is stored, but not the token
    await page.getByRole("link", { name: "Edit phones" }).click();
    assert.equal(
      [
        await page.getByLabel("Topic").inputValue(),
        await page.getByLabel("Priority when down").inputValue(),
        await page.getByLabel("Priority when up").inputValue(),
        await page.getByLabel("Access token").inputValue(),
      ],
      ["ops-alerts", "5", "3", ""],
      "the up priority as the form first held it: the reference's 3",
    );
    assert.not.match(await page.content(), "tk_browser_secret");
    await shot(page, "integration-edit");
  });

  test("a project key removes an integration (confirmed, CSRF-checked); the API no longer lists it, nor its check", async () => {
    const { channels } = await api<{ channels: { id: string; name: string }[] }>("GET", "/api/v3/channels/");
    const dead = channels.find((c) => c.name === "dead hook");
    assert.ok(dead);
    const target = await api<CheckJson & { channels: string }>("POST", "/api/v3/checks/", { name: "Removal target", channels: dead.id });
    assert.is(target.channels, dead.id);
    await rw.goto(`${server.url}/projects/${project.id}/integrations`);
    const cookie = await cookieHeader(rw);
    const post = (form: Record<string, string>) =>
      fetch(`${server.url}/projects/${project.id}/integrations/${dead.id}/remove`, {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(form),
        redirect: "manual",
      });
    assert.is((await post({ csrf: "forged" })).status, 403, "a forged CSRF token is refused");
    const readOnly = await signedIn(project.api_key_readonly);
    const refused = await fetch(`${server.url}/projects/${project.id}/integrations/${dead.id}/remove`, {
      method: "POST",
      headers: { cookie: await cookieHeader(readOnly), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: await csrfOf(readOnly) }),
      redirect: "manual",
    });
    assert.is(refused.status, 403, "a read-only session may not remove");
    await readOnly.getByRole("button", { name: "Sign out" }).click();
    await readOnly.getByLabel("Admin token or API key").waitFor();
    assert.ok(
      (await api<{ channels: { id: string }[] }>("GET", "/api/v3/channels/")).channels.some((c) => c.id === dead.id),
      "still there",
    );
    await rw.getByRole("link", { name: "Remove dead hook" }).click();
    await rw.getByRole("heading", { name: /Remove the webhook integration “dead hook”\?/ }).waitFor();
    await rw.getByText("1 check will stop notifying it.").waitFor();
    await shot(rw, "integration-remove");
    await rw.getByRole("button", { name: "Remove for good" }).click();
    await rw.getByRole("heading", { name: "Integrations" }).waitFor();
    await rw.getByRole("cell", { name: "local hook", exact: true }).waitFor();
    assert.is(await rw.getByRole("cell", { name: "dead hook", exact: true }).count(), 0);
    const after = await api<{ channels: { id: string }[] }>("GET", "/api/v3/channels/");
    assert.not.ok(
      after.channels.some((c) => c.id === dead.id),
      "the API no longer lists it",
    );
    assert.is((await api<{ channels: string }>("GET", `/api/v3/checks/${target.uuid}`)).channels, "", "nor does its check");
    const gone = await ok<unknown>(call(server.url, "GET", `/admin/v1/projects/${project.id}/channels`, { headers: admin }));
    assert.not.ok(JSON.stringify(gone).includes(dead.id));
    await api("DELETE", `/api/v3/checks/${target.uuid}`);
  });

  test("the checks table updates itself when the virtual clock makes a check go down", async () => {
    await rw.goto(`${server.url}/projects/${project.id}/checks`);
    const row = rw.getByRole("row", { name: /Nightly backup/ });
    await row.getByText("up", { exact: true }).waitFor();
    assert.not.match(await rw.title(), /down/);
    await rw.evaluate(() => {
      (window as unknown as { stayed: boolean }).stayed = true;
    }); // gone if the page reloads
    // nothing changes meanwhile: the script's refresh sends the rows' ETag and gets a 304
    const unchanged = await rw.waitForResponse((r) => r.url().includes("/checks/rows") && r.status() === 304, { timeout: 10_000 });
    assert.ok((await unchanged.request().allHeaders())["if-none-match"]?.startsWith('W/"'));
    const refreshed = rw.waitForResponse((r) => r.url().includes("/checks/rows") && r.status() === 200, { timeout: 10_000 });
    await ok(call(server.url, "POST", "/admin/v1/clock", { headers: admin, body: { advance: 3600 + 601 } }));
    await row.getByText("down", { exact: true }).waitFor({ timeout: 10_000 });
    await rw.waitForFunction(() => document.title.startsWith("(1 down)"));
    assert.ok(await rw.evaluate(() => (window as unknown as { stayed?: boolean }).stayed === true), "updated without a reload");
    // the unchanged row came as a placeholder; the page shows the row it had in its place
    assert.match(await (await refreshed).text(), /<tr data-keep="[^"]+"><\/tr>/);
    await rw
      .getByRole("row", { name: /Hourly sync/ })
      .getByText("new", { exact: true })
      .waitFor();
    assert.is(await rw.locator("tr[data-keep]").count(), 0);
    const sent = await waitForBody((json) => json.name === "Nightly backup (db1)");
    assert.is(sent.name, "Nightly backup (db1)", "the integration turned on in the dashboard was notified");
    assert.is(sent.status, "down");
    await shot(rw, "checks");
    // chromium's own accessibility tree (not this library's reading of the markup) still has a table of
    // rows, column headers and cells, although the stylesheet lays its rows out as flex rows
    const cdp = await rw.context().newCDPSession(rw);
    const { nodes } = (await cdp.send("Accessibility.getFullAXTree")) as {
      nodes: { ignored: boolean; role?: { value: string }; name?: { value: string } }[];
    };
    const named = (role: string) => nodes.filter((n) => !n.ignored && n.role?.value === role).map((n) => n.name?.value ?? "");
    assert.is(named("table").length, 1);
    assert.equal(named("columnheader"), ["Status", "Name", "Tags", "Period / schedule", "Last ping", "Last duration"]);
    assert.is(named("row").length, 3, "the header row and two checks");
    assert.ok(named("cell").length >= 12, "six cells a check");
    await cdp.detach();
    // filters: by status and by search
    await rw.goto(`${server.url}/projects/${project.id}/checks?status=up`);
    assert.is(await rw.getByRole("row", { name: /Nightly backup/ }).count(), 0);
    await rw.goto(`${server.url}/projects/${project.id}/checks?q=backup`);
    assert.is(await rw.getByRole("row", { name: /Nightly backup/ }).count(), 1);
    assert.is(await rw.getByRole("row", { name: /Hourly sync/ }).count(), 0);
  });

  test("a check named like markup runs nothing and shows its name literally", async () => {
    const made = await api<CheckJson>("POST", "/api/v3/checks/", {
      name: XSS_NAME,
      tags: "<script>t</script>",
      desc: "<svg onload=alert(1)>",
      slug: "xss",
    });
    const page = rw;
    await page.goto(`${server.url}/projects/${project.id}/checks`);
    await page.getByRole("cell", { name: XSS_NAME }).waitFor();
    // wait for one auto-refresh (the rows are replaced) so the refreshed markup is checked too: a ping
    // changes the project, so the next refresh brings the rows instead of a 304
    await page.evaluate(() => {
      document.getElementById("check-rows")?.setAttribute("data-old", "1");
    });
    assert.is((await fetch(`${server.url}/ping/${made.uuid}`)).status, 200);
    await page.waitForFunction(() => document.getElementById("check-rows")?.getAttribute("data-old") === null, undefined, {
      timeout: 10_000,
    });
    assert.is(await page.locator("img[src=x]").count(), 0);
    await page.getByRole("link", { name: XSS_NAME }).click();
    await page.getByRole("heading", { name: XSS_NAME }).waitFor();
    await page.getByText("<svg onload=alert(1)>").waitFor();
    assert.is(await page.locator("img[src=x], svg, script:not([src])").count(), 0);
    await page.evaluate(() => console.log("marker-after-xss-page"));
    await page.waitForFunction(() => true);
    assert.ok(messages.includes("console: marker-after-xss-page"), "console messages are collected");
    assert.equal(
      messages.filter((m) => /xss/.test(m) && !/marker/.test(m)),
      [],
      "no script of the check's name ran",
    );
    await api("DELETE", `/api/v3/checks/${made.uuid}`);
  });

  test("a POST without the session's CSRF token is refused", async () => {
    await rw.goto(`${server.url}/checks/${uuid}`);
    const cookie = await cookieHeader(rw);
    const post = (form: Record<string, string>) =>
      fetch(`${server.url}/checks/${uuid}/pause`, {
        method: "POST",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(form),
        redirect: "manual",
      });
    assert.is((await post({})).status, 403);
    assert.is((await post({ csrf: "forged" })).status, 403);
    assert.is((await api<CheckJson>("GET", `/api/v3/checks/${uuid}`)).status, "down", "nothing changed");
    const crossSite = await fetch(`${server.url}/signin`, {
      method: "POST",
      headers: { origin: "http://evil.example" },
      body: new URLSearchParams({ key: project.api_key }),
      redirect: "manual",
    });
    assert.is(crossSite.status, 403, "a sign-in posted from another site is refused");
    assert.is(crossSite.headers.get("set-cookie"), null);
    assert.is((await post({ csrf: await csrfOf(rw) })).status, 303, "the same request with the token works");
    assert.is((await api<CheckJson>("GET", `/api/v3/checks/${uuid}`)).status, "paused");
    await api("POST", `/api/v3/checks/${uuid}/resume`);
  });

  test("a read-only key sees no write controls and the server refuses its writes", async () => {
    const page = await signedIn(project.api_key_readonly);
    await page.getByRole("row", { name: /Nightly backup/ }).waitFor();
    assert.is(await page.getByRole("link", { name: "Add check" }).count(), 0);
    await page.getByRole("link", { name: "Nightly backup (db1)" }).click();
    await page.getByRole("heading", { name: "Nightly backup (db1)" }).waitFor();
    await shot(page, "check-read-only");
    for (const name of ["Pause", "Resume", "Ping now", "Edit", "Delete"]) {
      assert.is(
        (await page.getByRole("button", { name, exact: true }).count()) + (await page.getByRole("link", { name, exact: true }).count()),
        0,
        name,
      );
    }
    assert.not.ok((await page.content()).includes(uuid), "the uuid (a ping capability) is not shown");
    const before = (await api<CheckJson>("GET", `/api/v3/checks/${uuid}`)).status;
    const cookie = await cookieHeader(page);
    const ref = page.url().split("/checks/")[1];
    const refused = await fetch(`${server.url}/checks/${ref}/pause`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: await csrfOf(page) }),
      redirect: "manual",
    });
    assert.is(refused.status, 403);
    assert.is((await api<CheckJson>("GET", `/api/v3/checks/${uuid}`)).status, before);
    const add = await fetch(`${server.url}/projects/${project.id}/checks/new`, { headers: { cookie }, redirect: "manual" });
    assert.is(add.status, 403);
    // Sign out ends the session: the old cookie opens nothing any more
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Admin token or API key").waitFor();
    const after = await fetch(`${server.url}/projects/${project.id}/checks`, { headers: { cookie }, redirect: "manual" });
    assert.is(after.status, 303);
    assert.is(
      after.headers.get("location"),
      `/?next=${encodeURIComponent(`/projects/${project.id}/checks`)}`,
      "the sign-in page, then back",
    );
  });

  test("a project key cannot open another project or its checks", async () => {
    const foreign = await ok<CheckJson>(call(server.url, "POST", "/api/v3/checks/", { key: other.api_key, body: { name: "theirs" } }));
    const cookie = await cookieHeader(rw);
    for (const path of [`/projects/${other.id}/checks`, `/checks/${foreign.uuid}`, `/projects/${other.id}/settings`]) {
      const answer = await fetch(server.url + path, { headers: { cookie }, redirect: "manual" });
      assert.is(answer.status, 404, path);
      assert.not.match(await answer.text(), /theirs/);
    }
  });

  test("settings show the keys on demand and the badge URLs", async () => {
    await rw.goto(`${server.url}/projects/${project.id}/settings`);
    assert.not.ok(await rw.getByText(project.api_key).isVisible());
    await rw.getByText("Read-write API key").click();
    assert.ok(await rw.getByText(project.api_key).isVisible());
    await rw.locator("img").first().waitFor();
    await shot(rw, "settings");
  });

  test("Delete asks first, then removes the check (the API answers 404)", async () => {
    await rw.goto(`${server.url}/checks/${uuid}`);
    await rw.getByRole("link", { name: "Delete" }).click();
    await shot(rw, "delete");
    assert.is((await call(server.url, "GET", `/api/v3/checks/${uuid}`, { key: project.api_key })).status, 200, "not yet");
    await rw.getByRole("button", { name: "Delete for good" }).click();
    await rw.getByRole("heading", { name: "Checks" }).waitFor();
    assert.is((await call(server.url, "GET", `/api/v3/checks/${uuid}`, { key: project.api_key })).status, 404);
  });

  test("a phone-sized screen shows the checks list", async () => {
    await rw.setViewportSize({ width: 390, height: 800 });
    await rw.goto(`${server.url}/projects/${project.id}/checks`);
    await rw.getByRole("row", { name: /Hourly sync/ }).waitFor();
    await shot(rw, "checks-phone");
    const overflow = await rw.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `no sideways scrolling (${overflow}px)`);
  });

  test("the edit form's Preview says what the settings would have done to the check's ping history", async () => {
    await rw.setViewportSize({ width: 1200, height: 800 });
    const made = await api<CheckJson>("POST", "/api/v3/checks/", { name: "What-if", timeout: 3600, grace: 60 });
    const preview = async () => {
      await rw.getByRole("button", { name: "Preview: next pings and what these settings would have done" }).click();
      return (await rw.locator(".what-if").innerText()).trim();
    };
    await rw.goto(`${server.url}/checks/${made.uuid}/edit`);
    assert.is(await preview(), "No pings are logged yet: there is no history to try these settings on.");
    // history: a ping, then the next one 2 hours later (virtual clock)
    assert.is((await call(server.url, "POST", `/ping/${made.uuid}`)).status, 200);
    await ok(call(server.url, "POST", "/admin/v1/clock", { headers: admin, body: { advance: 7200 } }));
    assert.is((await call(server.url, "POST", `/ping/${made.uuid}`)).status, 200);
    // its own settings: down at 1 hour 1 minute, up again at the second ping
    await rw.goto(`${server.url}/checks/${made.uuid}/edit`);
    assert.is(await preview(), "With these settings, the last 2 hours would have gone down once, for 59 minutes.");
    await shot(rw, "edit-what-if", false);
    // a grace longer than the gap: never down
    await rw.locator("#f-grace").fill("3700");
    await rw.locator("#f-grace_unit").selectOption("seconds");
    assert.is(await preview(), "With these settings, the last 2 hours would have gone down 0 times.");
    // the API's simulate says the same of the same settings
    const simulated = await api<{ down_count: number; downtime_seconds: number }>("POST", `/api/v3/checks/${made.uuid}/simulate`, {
      timeout: 3600,
      grace: 60,
    });
    assert.equal([simulated.down_count, simulated.downtime_seconds], [1, 3540]);
    // the API's rules: a bad value is refused with its text, and a preview saves nothing
    await rw.locator("#f-grace").fill("5");
    await rw.getByRole("button", { name: "Preview: next pings and what these settings would have done" }).click();
    await rw.locator("#e-grace").getByText("Grace time must be a number between 1 minute and 365 days").waitFor();
    assert.is((await api<CheckJson>("GET", `/api/v3/checks/${made.uuid}`)).grace, 60);
  });

  // last: it blocks this address's sign-ins for the rest of the minute
  test("sign-in attempts are rate limited per address", async () => {
    const attempt = (key: string) =>
      fetch(`${server.url}/signin`, { method: "POST", body: new URLSearchParams({ key }), redirect: "manual" });
    // at most 10 failures a minute (one earlier test failed once already, in this or the last minute)
    const statuses: number[] = [];
    for (let i = 0; i < 11 && !statuses.includes(429); i++) statuses.push((await attempt(`wrong-${i}`)).status);
    assert.is(statuses.at(-1), 429, String(statuses));
    assert.ok(statuses.length >= 9 && statuses.slice(0, -1).every((s) => s === 401), String(statuses));
    assert.is((await attempt(TOKEN)).status, 429, "even the right token waits");
  });

  test.run();
}
