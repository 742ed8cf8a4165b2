// The dashboard's alerting, third part, in a real browser (Debian's chromium driven by playwright-core)
// against a real hcd process with CLOCK=virtual: min_duration, max_runs_per_period and alert_on_overlap in
// the edit form, the check's own escalation steps (each with its integrations) or its project's policy,
// min_duration and each step's `after` as a number and a unit,
// errors next to their field, and the check page's escalation line and mark once the virtual clock has
// moved past a step. Every change is verified through the API.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { existsSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { tempDir } from "../helpers.ts";
import type { ProjectJson, RealServer } from "../security/real-server.ts";
import { addChannel, call, createProject, ok, startServer, stopServer, troubleIn } from "../security/real-server.ts";

const CHROMIUM = "/usr/bin/chromium";
const TOKEN = "alerting-third-dashboard-admin-token-0123456789";

type CheckJson = {
  uuid: string;
  name: string;
  status: string;
  min_duration: number;
  max_runs_per_period: number;
  alert_on_overlap: boolean;
  escalation: { after: number; channels: string }[] | null;
  escalated: number;
};

if (!existsSync(CHROMIUM)) {
  if (process.env.HCD_REQUIRE_EXTRAS === "1") {
    test("chromium is installed (HCD_REQUIRE_EXTRAS=1)", () => assert.unreachable(`${CHROMIUM} is missing`));
  } else {
    console.log(`SKIP: dashboard alerting (third part) browser tests: ${CHROMIUM} not installed`);
    test("dashboard alerting (third part) browser tests skipped: chromium not installed", () => {});
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
  let pager: { id: string };
  let boss: { id: string };
  const contexts: BrowserContext[] = [];
  const admin = { authorization: `Bearer ${TOKEN}` };

  test.before(async () => {
    server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, CLOCK: "virtual" } });
    project = await createProject(server, TOKEN, { name: "Ops" });
    pager = await addChannel(server, TOKEN, project.id, { kind: "email", name: "pager", value: "pager@example.com" });
    boss = await addChannel(server, TOKEN, project.id, { kind: "email", name: "boss", value: "boss@example.com" });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
  });

  test.after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    if (server) {
      const trouble = troubleIn(server.output());
      await stopServer(server);
      dir.remove();
      assert.equal(trouble, [], "no unexpected errors in the server's output");
    }
  });

  const signedIn = async (key: string): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    contexts.push(context);
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    await page.goto(server.url + "/");
    await page.getByLabel("Admin token or API key").fill(key);
    await page.locator("form[action='/signin']").getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    return page;
  };
  const api = <T>(method: string, path: string, body?: unknown) => ok<T>(call(server.url, method, path, { key: project.api_key, body }));
  const checkOf = (uuid: string) => api<CheckJson>("GET", `/api/v3/checks/${uuid}`);

  let job: CheckJson;
  let rw: Page;

  test("the edit form sets min_duration, max_runs_per_period and alert_on_overlap; a bad value is shown next to its field", async () => {
    job = await api<CheckJson>("POST", "/api/v3/checks/", { name: "Nightly export", timeout: 3600, grace: 600, channels: "pager" });
    rw = await signedIn(project.api_key);
    await rw.goto(`${server.url}/checks/${job.uuid}/edit`);
    await rw.locator("details.alerting > summary").click(); // folded while at its defaults
    const shortest = rw.getByLabel("Down when a run succeeds sooner than this after its start (0 = off)", { exact: true });
    const shortestUnit = rw.getByLabel("Down when a run succeeds sooner than this after its start (0 = off): unit");
    assert.is(await shortestUnit.inputValue(), "minutes", "a number and a unit, as the reminder interval");
    await shortest.fill("8");
    await shortestUnit.selectOption("days");
    await rw.getByRole("button", { name: "Save" }).click();
    await rw
      .locator("#e-min_duration")
      .getByText("The shortest run must be 0 (off), or up to 7 days (a whole number of seconds, at most 604800).")
      .waitFor();
    assert.is(await rw.locator("#f-min_duration").getAttribute("aria-invalid"), "true");
    assert.equal([await shortest.inputValue(), await shortestUnit.inputValue()], ["8", "days"], "what was typed stays");
    assert.is((await checkOf(job.uuid)).min_duration, 0, "nothing was saved");
    await shortest.fill("1.5");
    await shortestUnit.selectOption("minutes");
    await rw.getByLabel("Down when it succeeds more than N times in one period (0 = off)").fill("1");
    await rw.getByLabel(/Down when runs overlap/).check();
    await rw.getByRole("button", { name: "Save" }).click();
    await rw.getByText("Changes saved.").waitFor();
    const saved = await checkOf(job.uuid);
    assert.equal([saved.min_duration, saved.max_runs_per_period, saved.alert_on_overlap], [90, 1, true], "1.5 minutes sent as 90 seconds");
    await rw
      .locator(".alerting")
      .getByText(/a run that succeeds in less than 1 minute 30 seconds is a failure/)
      .waitFor();
    await rw
      .locator(".alerting")
      .getByText(/overlapping runs are a failure/)
      .waitFor();
    await rw.goto(`${server.url}/checks/${job.uuid}/edit`);
    assert.equal([await shortest.inputValue(), await shortestUnit.inputValue()], ["90", "seconds"], "not whole minutes: seconds");
    assert.is(await rw.getByLabel(/Down when runs overlap/).isChecked(), true, "the saved flag is shown again");
    await rw.getByLabel(/Down when runs overlap/).uncheck();
    await rw.getByRole("button", { name: "Save" }).click();
    await rw.getByText("Changes saved.").waitFor();
    assert.is((await checkOf(job.uuid)).alert_on_overlap, false, "unticked: off");
  });

  test("the check's own escalation steps: a step not later than the one before is refused next to the fieldset; then saved", async () => {
    await rw.goto(`${server.url}/checks/${job.uuid}/edit`);
    assert.is(await rw.getByLabel("The project's escalation policy").isChecked(), true, "a new check follows its project");
    await rw.getByLabel("This check's own steps (none filled in: no escalation)").check();
    const after = (n: number) =>
      rw.getByLabel(`Escalation step ${n}: after this long down and not acknowledged (1 minute and more)`, { exact: true });
    const afterUnit = (n: number) =>
      rw.getByLabel(`Escalation step ${n}: after this long down and not acknowledged (1 minute and more): unit`);
    assert.equal([await afterUnit(1).inputValue(), await afterUnit(2).inputValue()], ["minutes", "minutes"]);
    await after(1).fill("30");
    await afterUnit(1).selectOption("seconds");
    await rw.getByLabel("Escalation step 1: also notify").selectOption({ label: "boss (email)" });
    await rw.getByRole("button", { name: "Save" }).click();
    await rw
      .locator("#e-escalation")
      .getByText("Escalation: step 1: it must come between 1 minute and 7 days (60 to 604800 seconds).")
      .waitFor();
    await after(1).fill("15");
    await afterUnit(1).selectOption("minutes");
    await after(2).fill("10");
    await rw.getByLabel("Escalation step 2: also notify").selectOption({ label: "pager (email)" });
    await rw.getByRole("button", { name: "Save" }).click();
    await rw.locator("#e-escalation").getByText("Escalation: step 2: after must be later than the step before.").waitFor();
    assert.is((await checkOf(job.uuid)).escalation, null, "nothing was saved");
    assert.equal([await after(2).inputValue(), await afterUnit(2).inputValue()], ["10", "minutes"], "what was typed stays");
    await after(2).fill("1");
    await afterUnit(2).selectOption("hours");
    await rw.getByRole("button", { name: "Save" }).click();
    await rw.getByText("Changes saved.").waitFor();
    assert.equal((await checkOf(job.uuid)).escalation, [
      { after: 900, channels: boss.id },
      { after: 3600, channels: pager.id },
    ]);
    await rw
      .locator(".escalation")
      .getByText(
        /after 15 minutes down, also boss \(email\); after 1 hour down, also pager \(email\); unless the outage is acknowledged \(this check's own policy\)/,
      )
      .waitFor();
    await rw.goto(`${server.url}/checks/${job.uuid}/edit`);
    assert.equal(
      await rw.locator("#f-escalation_1_channels option:checked").allTextContents(),
      ["boss (email)"],
      "the saved choice is shown again",
    );
    assert.equal(
      [await after(1).inputValue(), await afterUnit(1).inputValue(), await after(2).inputValue(), await afterUnit(2).inputValue()],
      ["15", "minutes", "1", "hours"],
      "each in the largest whole unit",
    );
  });

  test("once the virtual clock passes a step, the check page says the outage reached it and shows the mark", async () => {
    await call(server.url, "GET", `/ping/${job.uuid}/fail`);
    await ok(call(server.url, "POST", "/admin/v1/clock", { headers: admin, body: { advance: 901 } }));
    assert.is((await checkOf(job.uuid)).escalated, 1);
    await rw.goto(`${server.url}/checks/${job.uuid}`);
    await rw.locator(".state .mark-escalated").getByText("escalated (step 1)").waitFor();
    await rw
      .locator(".escalation")
      .getByText(/this outage reached step 1 of 2; the next step comes/)
      .waitFor();
    await rw.getByRole("button", { name: "Acknowledge" }).click();
    await rw.getByText("Outage acknowledged.").waitFor();
    assert.not.match((await rw.locator(".escalation").textContent()) ?? "", "the next step comes", "acknowledged: no next step");
  });

  test("choosing the project's policy again sends escalation null", async () => {
    await rw.goto(`${server.url}/checks/${job.uuid}/edit`);
    await rw.getByLabel("The project's escalation policy").check();
    await rw.getByRole("button", { name: "Save" }).click();
    await rw.getByText("Changes saved.").waitFor();
    assert.is((await checkOf(job.uuid)).escalation, null);
  });

  test('an integration\'s form sets "Notify on every failure" (every_failure), shown again when edited', async () => {
    const adminPage = await signedIn(TOKEN);
    await adminPage.goto(`${server.url}/projects/${project.id}/integrations/add/webhook`);
    await adminPage.getByLabel("Name", { exact: true }).fill("every hook");
    await adminPage.getByLabel("URL when down").fill("https://hooks.example.com/down");
    assert.is(await adminPage.getByLabel("Notify on every failure").isChecked(), false, "off unless chosen");
    await adminPage.getByLabel("Notify on every failure").check();
    await adminPage.getByRole("button", { name: "Save integration" }).click();
    await adminPage.getByText("Integration “every hook” added.").waitFor();
    const listed = async () =>
      (
        await ok<{ channels: { name: string; every_failure: boolean; id: string }[] }>(
          call(server.url, "GET", `/admin/v1/projects/${project.id}/channels`, { headers: admin }),
        )
      ).channels.find((c) => c.name === "every hook");
    const saved = await listed();
    assert.is(saved?.every_failure, true);
    await adminPage.getByText("notified on every failure").waitFor();
    await adminPage.goto(`${server.url}/projects/${project.id}/integrations/${saved?.id}/edit`);
    assert.is(await adminPage.getByLabel("Notify on every failure").isChecked(), true, "the saved choice is shown again");
    await adminPage.getByLabel("Notify on every failure").uncheck();
    await adminPage.getByRole("button", { name: "Save integration" }).click();
    await adminPage.waitForURL(/done=saved/);
    assert.is((await listed())?.every_failure, false);
  });

  test("the Prometheus Alertmanager integration's form: its URL, labels and token, a bad label refused in the form", async () => {
    const adminPage = await signedIn(TOKEN);
    await adminPage.goto(`${server.url}/projects/${project.id}/integrations/add/alertmanager`);
    await adminPage.getByLabel("Name", { exact: true }).fill("am");
    await adminPage.getByLabel("Alertmanager URL").fill("https://am.example.com/");
    await adminPage.getByLabel("Labels").fill("check=x");
    await adminPage.getByRole("button", { name: "Save integration" }).click();
    await adminPage.getByText("is set by hcd").waitFor();
    await adminPage.getByLabel("Labels").fill("team=ops\nenv=prod");
    await adminPage.getByLabel("Bearer token").fill("am-token");
    await adminPage.getByRole("button", { name: "Save integration" }).click();
    await adminPage.getByText("Integration “am” added.").waitFor();
    const listed = await ok<{ channels: { id: string; name: string; kind: string }[] }>(
      call(server.url, "GET", `/admin/v1/projects/${project.id}/channels`, { headers: admin }),
    );
    const saved = listed.channels.find((c) => c.name === "am");
    assert.is(saved?.kind, "alertmanager");
    // the stored value as the edit form shows it again: the URL without its slash, one label a line
    await adminPage.goto(`${server.url}/projects/${project.id}/integrations/${saved?.id}/edit`);
    assert.is(await adminPage.getByLabel("Alertmanager URL").inputValue(), "https://am.example.com");
    assert.is(await adminPage.getByLabel("Labels").inputValue(), "team=ops\nenv=prod");
  });

  test.run();
}
