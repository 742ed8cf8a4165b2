// Email reports and the downtime export in a real browser (Debian's chromium driven by playwright-core)
// against a real hcd process (CONTRACT "Alerting, third part"): a user signed in by email chooses monthly
// reports on their account page (kept, shown again, and through the admin API), then off again; the
// project's settings page downloads the downtime CSV; and the project's escalation policy is set on its
// settings page (each step's after a number and a unit). Every change is verified through the admin API.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, readFileSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { tempDir } from "../helpers.ts";
import type { ProjectJson, RealServer } from "../security/real-server.ts";
import { addChannel, call, createProject, ok, startServer, stopServer, troubleIn } from "../security/real-server.ts";
import { smtpReceiver } from "../notify/receivers.ts";

const CHROMIUM = "/usr/bin/chromium";
const TOKEN = "reports-dashboard-admin-token-0123456789";
const PASSWORD = "a long enough password";

if (!existsSync(CHROMIUM)) {
  if (process.env.HCD_REQUIRE_EXTRAS === "1") {
    test("chromium is installed (HCD_REQUIRE_EXTRAS=1)", () => assert.unreachable(`${CHROMIUM} is missing`));
  } else {
    console.log(`SKIP: dashboard reports browser tests: ${CHROMIUM} not installed`);
    test("dashboard reports browser tests skipped: chromium not installed", () => {});
  }
  test.run();
} else {
  await browserTests();
}

async function browserTests(): Promise<void> {
  const { chromium } = await import("playwright-core");
  const dir = tempDir();
  let server: RealServer;
  let browser: Browser;
  let project: ProjectJson;
  let smtp: Awaited<ReturnType<typeof smtpReceiver>>;
  const contexts: BrowserContext[] = [];
  const admin = { authorization: `Bearer ${TOKEN}` };

  test.before(async () => {
    smtp = await smtpReceiver();
    server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, CLOCK: "virtual", SMTP_URL: smtp.url } });
    project = await createProject(server, TOKEN, { name: "Ops" });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
  });

  test.after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    if (server) {
      const trouble = troubleIn(server.output());
      await stopServer(server);
      await smtp.close();
      dir.remove();
      assert.equal(trouble, [], "no unexpected errors in the server's output");
    }
  });

  const newPage = async (): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, acceptDownloads: true });
    contexts.push(context);
    context.setDefaultTimeout(10_000);
    return context.newPage();
  };

  test("a user chooses monthly email reports on their account page, and off again", async () => {
    const user = await ok<{ id: string }>(
      call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: "ann@example.com", password: PASSWORD } }),
    );
    await ok(call(server.url, "PUT", `/admin/v1/projects/${project.id}/members/${user.id}`, { headers: admin, body: { role: "member" } }));
    const page = await newPage();
    await page.goto(server.url + "/");
    await page.getByLabel("Email").fill("ann@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.locator("form[action='/signin/password']").getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    await page.goto(server.url + "/account");
    const reports = () => ok<{ reports: string }>(call(server.url, "GET", `/admin/v1/users/${user.id}/reports`, { headers: admin }));
    assert.equal(await reports(), { reports: "off" });
    assert.is(await page.getByLabel("Email reports").inputValue(), "off");
    await page.getByLabel("Email reports").selectOption({ label: "Monthly (each 1st)" });
    await page.getByRole("button", { name: "Save reports" }).click();
    await page.getByText("Email reports: monthly.").waitFor();
    assert.equal(await reports(), { reports: "monthly" });
    await page.goto(server.url + "/account");
    assert.is(await page.getByLabel("Email reports").inputValue(), "monthly", "the saved choice is shown again");
    await page.getByLabel("Email reports").selectOption({ label: "Off" });
    await page.getByRole("button", { name: "Save reports" }).click();
    await page.getByText("Email reports are off.").waitFor();
    assert.equal(await reports(), { reports: "off" });
  });

  test("the settings page sets the project's escalation policy and downloads the downtime CSV", async () => {
    const pager = await addChannel(server, TOKEN, project.id, { kind: "email", name: "pager", value: "pager@example.com" });
    await ok(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: 'Nightly, "backup"' } }));
    const page = await newPage();
    await page.goto(server.url + "/");
    await page.getByLabel("Admin token or API key").fill(TOKEN);
    await page.locator("form[action='/signin']").getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    await page.goto(`${server.url}/projects/${project.id}/settings`);
    const policy = () =>
      ok<{ escalation: { after: number; channels: string }[] }>(
        call(server.url, "GET", `/admin/v1/projects/${project.id}/escalation`, { headers: admin }),
      );
    const after = page.getByLabel("Project escalation step 1: after this long down and not acknowledged (1 minute and more)", {
      exact: true,
    });
    const unit = page.getByLabel("Project escalation step 1: after this long down and not acknowledged (1 minute and more): unit");
    assert.is(await unit.inputValue(), "minutes", "a number and a unit, as on the check form");
    await after.fill("30");
    await unit.selectOption("seconds");
    await page.getByLabel("Project escalation step 1: also notify").selectOption({ label: "pager (email)" });
    await page.getByRole("button", { name: "Save escalation policy" }).click();
    await page
      .locator("#e-project-escalation")
      .getByText("Escalation: step 1: it must come between 1 minute and 7 days (60 to 604800 seconds).")
      .waitFor();
    assert.equal(await policy(), { escalation: [] }, "nothing was saved");
    assert.equal([await after.inputValue(), await unit.inputValue()], ["30", "seconds"], "what was typed stays");
    await after.fill("15");
    await unit.selectOption("minutes");
    await page.getByRole("button", { name: "Save escalation policy" }).click();
    await page.getByText("Escalation policy saved.").waitFor();
    assert.equal(await policy(), { escalation: [{ after: 900, channels: pager.id }] });
    await page
      .locator(".project-escalation")
      .getByText("Step 1: after 15 minutes down, also pager; unless the outage is acknowledged.")
      .waitFor();
    assert.equal([await after.inputValue(), await unit.inputValue()], ["15", "minutes"], "shown again in the largest whole unit");

    const download = page.waitForEvent("download");
    await page.getByRole("link", { name: "by month" }).click();
    const file = await (await download).path();
    const csv = readFileSync(file, "utf8");
    assert.match(csv, /^period,check,uuid,incidents,downtime_seconds,unknown_seconds,uptime_percent\r\n/);
    assert.match(csv, '"Nightly, ""backup"""', "the check's name quoted as CSV quotes it");
  });

  test.run();
}
