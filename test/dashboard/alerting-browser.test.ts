// The dashboard's alerting, second part, in a real browser (Debian's chromium driven by playwright-core)
// against a real hcd process with CLOCK=virtual: max_duration (a number and a unit) and depends_on in the
// edit form (with errors next to their field), the "held by" and "acknowledged" marks on the checks table and a check's
// page, and the settings page's recurring maintenance windows (add, with the check form's time-zone picker;
// delete after a confirmation; nothing to change for a read-only key, whose writes the server refuses).
// Every change is verified through the APIs.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { ProjectJson, RealServer } from "../security/real-server.ts";
import { call, createProject, ok } from "../security/real-server.ts";
import { browserRig, whenChromium } from "./browser-harness.ts";

const TOKEN = "alerting-dashboard-admin-token-0123456789";

type CheckJson = {
  uuid: string;
  name: string;
  status: string;
  max_duration: number;
  depends_on: string;
  held_by?: string;
  acknowledged: boolean;
};
type WindowJson = { id: string; name: string; schedule: string; tz: string; duration: number };

await whenChromium("dashboard alerting browser tests", browserTests);

async function browserTests(): Promise<void> {
  let server: RealServer;
  let browser: Browser;
  let project: ProjectJson;
  const contexts: BrowserContext[] = [];
  const admin = { authorization: `Bearer ${TOKEN}` };

  const { rig } = browserRig({ ADMIN_TOKEN: TOKEN, CLOCK: "virtual" });
  test.before(async () => {
    ({ server, browser } = rig());
    project = await createProject(server, TOKEN, { name: "Ops" });
  });

  /** A fresh browser profile (its own cookies), signed in with `key`. */
  const signedIn = async (key: string): Promise<Page> => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
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
  const windows = async () =>
    (await ok<{ maintenance: WindowJson[] }>(call(server.url, "GET", `/admin/v1/projects/${project.id}/maintenance`, { headers: admin })))
      .maintenance;

  let database: CheckJson;
  let backup: CheckJson;
  let rw: Page;

  test("the edit form sets max_duration and depends_on; a bad max_duration is shown next to its field", async () => {
    database = await api<CheckJson>("POST", "/api/v3/checks/", { name: "Database", timeout: 60, grace: 60 });
    backup = await api<CheckJson>("POST", "/api/v3/checks/", { name: "Backup job", timeout: 60, grace: 60 });
    await api("POST", "/api/v3/checks/", { name: "Mail relay", timeout: 60, grace: 60 });
    rw = await signedIn(project.api_key);
    await rw.goto(`${server.url}/checks/${backup.uuid}/edit`);
    const choices = await rw.locator("#f-depends_on option").allTextContents();
    assert.equal(choices, ["Database", "Mail relay"], "the project's other checks by name, not the check itself");
    await rw.locator("details.alerting > summary").click(); // folded while at its defaults
    await rw.locator("#f-max_duration").fill("30");
    await rw.locator("#f-max_duration_unit").selectOption("seconds");
    await rw.getByRole("button", { name: "Save" }).click();
    await rw
      .locator("#e-max_duration")
      .getByText("The run time limit must be 0 (off), or between 1 minute and 7 days (60 to 604800 seconds).")
      .waitFor();
    assert.is(await rw.locator("#f-max_duration").getAttribute("aria-invalid"), "true");
    assert.is((await checkOf(backup.uuid)).max_duration, 0, "nothing was saved");
    assert.is(await rw.locator("#f-max_duration_unit").inputValue(), "seconds", "the unit typed stays");
    await rw.locator("#f-max_duration").fill("15");
    await rw.locator("#f-max_duration_unit").selectOption("minutes");
    await rw.locator("#f-depends_on").selectOption({ label: "Database" });
    await rw.getByRole("button", { name: "Save" }).click();
    await rw.getByText("Changes saved.").waitFor();
    const saved = await checkOf(backup.uuid);
    assert.is(saved.max_duration, 900);
    assert.is(saved.depends_on, database.uuid);
    await rw.goto(`${server.url}/checks/${backup.uuid}/edit`);
    assert.equal(await rw.locator("#f-depends_on option:checked").allTextContents(), ["Database"], "the saved choice is shown again");
    assert.equal(
      [await rw.locator("#f-max_duration").inputValue(), await rw.locator("#f-max_duration_unit").inputValue()],
      ["15", "minutes"],
      "900 seconds shown in the largest whole unit",
    );
  });

  test("a cycle in depends_on is the form's error, next to the field, and nothing changes", async () => {
    await rw.goto(`${server.url}/checks/${database.uuid}/edit`);
    await rw.locator("details.alerting > summary").click();
    await rw.locator("#f-depends_on").selectOption({ label: "Backup job" });
    await rw.getByRole("button", { name: "Save" }).click();
    await rw.locator("#e-depends_on").waitFor();
    assert.is((await checkOf(database.uuid)).depends_on, "", "the cycle was refused");
  });

  test('a held check shows "held by <dependency>" on the checks table and its page, then "acknowledged"', async () => {
    for (const check of [database, backup]) await call(server.url, "GET", `/ping/${check.uuid}`);
    await ok(call(server.url, "POST", "/admin/v1/clock", { headers: admin, body: { advance: 180 } }));
    const held = await checkOf(backup.uuid);
    assert.is(held.status, "down");
    assert.is(held.held_by, database.uuid, "the API's own account: held by the database check");
    await rw.goto(`${server.url}/projects/${project.id}/checks`);
    const row = rw.locator(`tr[data-ref="${backup.uuid}"]`);
    await row.getByText("held by Database").waitFor();
    assert.is(await rw.locator(`tr[data-ref="${database.uuid}"] .mark`).count(), 0, "the dependency itself is not held");
    await rw.goto(`${server.url}/checks/${backup.uuid}`);
    await rw.locator(".state").getByText("held by Database").waitFor();
    await rw.getByRole("button", { name: "Acknowledge" }).click();
    await rw.getByText("Outage acknowledged.").waitFor();
    assert.is((await checkOf(backup.uuid)).acknowledged, true);
    await rw.locator(".state .mark-acknowledged").getByText("acknowledged").waitFor();
    await rw.goto(`${server.url}/projects/${project.id}/checks`);
    await row.locator(".mark-acknowledged").waitFor();
  });

  let adminPage: Page;

  test("the admin token adds a recurring maintenance window on the settings page; a bad schedule is shown next to its field", async () => {
    adminPage = await signedIn(TOKEN);
    await adminPage.goto(`${server.url}/projects/${project.id}/settings`);
    await adminPage.getByText("No recurring maintenance windows.").waitFor();
    await adminPage.getByLabel("Window name").fill("Nightly backup");
    await adminPage.getByLabel("Cron or OnCalendar expression of its start").fill("every night");
    const zone = adminPage.locator(".maintenance-form").getByLabel("Time zone");
    assert.equal(
      await zone.locator("option").allTextContents(),
      ["UTC", ...Intl.supportedValuesOf("timeZone")],
      "the check form's picker: every IANA name, UTC first",
    );
    assert.is(await zone.inputValue(), "UTC", "chosen by default");
    await zone.selectOption("Europe/Riga");
    await adminPage.getByLabel("Duration (1 minute to 7 days)", { exact: true }).fill("2");
    await adminPage.getByLabel("Duration (1 minute to 7 days): unit").selectOption("hours");
    await adminPage.getByRole("button", { name: "Add maintenance window" }).click();
    await adminPage
      .locator("#e-m-schedule")
      .getByText("json validation error: schedule is required and must be a valid cron or OnCalendar expression")
      .waitFor();
    assert.equal(await windows(), [], "nothing was added");
    assert.is(await adminPage.getByLabel("Window name").inputValue(), "Nightly backup", "what was typed stays");
    assert.is(await zone.inputValue(), "Europe/Riga", "and the zone picked");
    await adminPage.getByLabel("Cron or OnCalendar expression of its start").fill("*-*-* 02:00:00");
    // the picker offers no such zone: a crafted request, as a page changed by hand would send
    await zone.evaluate((select: HTMLSelectElement) => {
      select.add(new Option("Mars/Olympus", "Mars/Olympus", true, true));
    });
    await adminPage.getByRole("button", { name: "Add maintenance window" }).click();
    assert.is(
      await adminPage.locator("#e-m-tz").textContent(),
      "Time zone must be an IANA time zone name, like UTC, Europe/Riga or America/New_York.",
    );
    assert.is(await zone.getAttribute("aria-invalid"), "true");
    assert.is(await zone.inputValue(), "Mars/Olympus", "the refused zone is shown as sent");
    assert.equal(await windows(), [], "nothing was added");
    await zone.selectOption("Europe/Riga");
    await adminPage.getByRole("button", { name: "Add maintenance window" }).click();
    await adminPage.locator(".maintenance-windows").getByText("Nightly backup").waitFor();
    const added = await windows();
    assert.is(added.length, 1);
    assert.equal(
      { ...added[0], id: "" },
      { id: "", name: "Nightly backup", schedule: "*-*-* 02:00:00", tz: "Europe/Riga", duration: 7200 },
    );
    assert.match((await adminPage.locator(".maintenance-windows tbody tr").textContent()) ?? "", /2 hours/);
  });

  test("a read-only key, and a project key, see the windows but no control, and the server refuses their writes", async () => {
    const ro = await signedIn(project.api_key_readonly);
    const [window] = await windows();
    for (const page of [ro, rw]) {
      // only the admin token changes windows, as only it mutes a project
      await page.goto(`${server.url}/projects/${project.id}/settings`);
      await page.locator(".maintenance-windows").getByText("Nightly backup").waitFor();
      assert.is(await page.getByRole("button", { name: "Add maintenance window" }).count(), 0);
      assert.is(await page.locator(".maintenance-windows").getByRole("link", { name: "Delete" }).count(), 0);
      const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
      const csrf = await page.locator("input[name=csrf]").first().inputValue(); // the sign-out form's
      const post = (path: string, form: Record<string, string>) =>
        fetch(server.url + path, {
          method: "POST",
          redirect: "manual",
          headers: { cookie, origin: server.url, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ csrf, ...form }),
        });
      const add = await post(`/projects/${project.id}/maintenance`, { name: "sneaky", schedule: "0 * * * *", tz: "UTC", duration: "600" });
      assert.is(add.status, 403);
      const remove = await post(`/projects/${project.id}/maintenance/${window.id}/delete`, {});
      assert.is(remove.status, 403);
      const confirm = await fetch(`${server.url}/projects/${project.id}/maintenance/${window.id}/delete`, { headers: { cookie } });
      assert.is(confirm.status, 403);
    }
    assert.equal(
      (await windows()).map((w) => w.name),
      ["Nightly backup"],
      "nothing added, nothing removed",
    );
  });

  test("deleting a window asks first; Cancel keeps it, Delete for good removes it", async () => {
    await adminPage.goto(`${server.url}/projects/${project.id}/settings`);
    await adminPage.locator(".maintenance-windows").getByRole("link", { name: "Delete" }).click();
    await adminPage.getByRole("heading", { name: "Delete the maintenance window “Nightly backup”?" }).waitFor();
    await adminPage.getByRole("link", { name: "Cancel" }).click();
    await adminPage.locator(".maintenance-windows").getByText("Nightly backup").waitFor();
    assert.is((await windows()).length, 1, "Cancel deleted nothing");
    await adminPage.locator(".maintenance-windows").getByRole("link", { name: "Delete" }).click();
    await adminPage.getByRole("button", { name: "Delete for good" }).click();
    await adminPage.getByText("No recurring maintenance windows.").waitFor();
    assert.equal(await windows(), []);
  });

  test("the edit form's Preview says how many down notifications the project's maintenance windows would have held", async () => {
    const sync = await api<CheckJson>("POST", "/api/v3/checks/", { name: "Sync", timeout: 60, grace: 60 });
    await call(server.url, "GET", `/ping/${sync.uuid}`);
    await ok(call(server.url, "POST", "/admin/v1/clock", { headers: admin, body: { advance: 180 } })); // down at 2 minutes
    await call(server.url, "GET", `/ping/${sync.uuid}`); // up again at 3
    await rw.goto(`${server.url}/checks/${sync.uuid}/edit`);
    const preview = async () => {
      await rw.getByRole("button", { name: "Preview: next pings and what these settings would have done" }).click();
      return rw.locator(".what-if").textContent();
    };
    assert.is(
      await preview(),
      "With these settings, the last 3 minutes would have gone down once, for 1 minute.",
      "no window: nothing held",
    );
    // a window on all the time (each minute, for an hour): the same history's down notification is held
    const window = await ok<WindowJson>(
      call(server.url, "POST", `/admin/v1/projects/${project.id}/maintenance`, {
        headers: admin,
        body: { name: "always", schedule: "* * * * *", tz: "UTC", duration: 3600 },
      }),
    );
    assert.is(
      await preview(),
      "With these settings, the last 3 minutes would have gone down once, for 1 minute. Maintenance windows would have held one of its down notifications.",
    );
    assert.is(
      (await call(server.url, "DELETE", `/admin/v1/projects/${project.id}/maintenance/${window.id}`, { headers: admin })).status,
      204,
    );
  });

  test.run();
}
