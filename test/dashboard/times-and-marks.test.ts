// Times in the viewer's time zone and the marks next to a check's status, in a real browser (Debian's
// chromium driven by playwright-core, its time zone America/New_York) against a real hcd process on
// loopback with CLOCK=virtual: times read in the browser's zone with the UTC time on hover, also after a
// refresh swapped them in; a check page going late and down by itself, saying when it will be down; "muted", "2 of 3 failures", "acknowledged" and "held by ..." in the checks
// list and on the check's page; a mute's mark goes by itself when the mute ends.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Page } from "playwright-core";
import type { ProjectJson } from "../security/real-server.ts";
import { call, createProject, ok } from "../security/real-server.ts";
import { browserRig, newContext, signIn, whenChromium } from "./browser-harness.ts";

const TOKEN = "times-marks-admin-token-0123456789";
const NEW_YORK = / E[SD]T$/; // the zone's short name, winter or summer
const UTC = / UTC$/;

await whenChromium("dashboard times and marks browser tests", async () => {
  const { rig } = browserRig({ ADMIN_TOKEN: TOKEN, CLOCK: "virtual" });
  let page: Page;
  let project: ProjectJson;
  const url = () => rig().server.url;
  const admin = { authorization: `Bearer ${TOKEN}` };
  const api = <T>(method: string, path: string, body?: unknown) => ok<T>(call(url(), method, path, { key: project.api_key, body }));
  const createCheck = async (body: Record<string, unknown>) => (await api<{ uuid: string }>("POST", "/api/v3/checks/", body)).uuid;
  const ping = async (uuid: string, suffix = "") => assert.is((await call(url(), "GET", `/ping/${uuid}${suffix}`)).status, 200);
  const now = async () => Date.parse((await ok<{ now: string }>(call(url(), "GET", "/admin/v1/clock", { headers: admin }))).now);

  test.before(async () => {
    project = await createProject(rig().server, TOKEN, { name: "Ops" });
    page = await (await newContext(rig().browser, { timezoneId: "America/New_York", locale: "en-US" })).newPage();
    await signIn(page, url(), TOKEN);
  });

  /** Every <time> under `selector`: its text, its title (hover) and its instant. */
  const timesIn = (selector: string) =>
    page
      .locator(`${selector} time`)
      .evaluateAll((all) =>
        all.map((t) => ({ text: t.textContent ?? "", title: t.getAttribute("title") ?? "", at: t.getAttribute("datetime") ?? "" })),
      );
  /** A <time> shows its instant in New York's zone ("2026-11-27 08:00:00 EST"), and the same instant in UTC as its title. */
  const checkTime = (time: { text: string; title: string; at: string }) => {
    const atSecond = Math.floor(Date.parse(time.at) / 1000) * 1000; // the texts show whole seconds
    assert.match(time.text, NEW_YORK, `shown in the viewer's zone: ${time.text}`);
    assert.match(time.title, UTC, `UTC on hover: ${time.title}`);
    assert.is(Date.parse(time.title.replace(" UTC", "Z").replace(" ", "T")), atSecond, "the title is the instant in UTC");
    const offsetHours = Number(/E([SD])T$/.exec(time.text)?.[1] === "S" ? 5 : 4);
    const shownAsUtc = Date.parse(time.text.replace(NEW_YORK, "Z").replace(" ", "T")) + offsetHours * 3_600_000;
    assert.is(shownAsUtc, atSecond, "the shown time is the same instant");
  };

  test("a cron check's preview lists its next pings in the viewer's zone, with UTC on hover", async () => {
    await page.goto(`${url()}/projects/${project.id}/checks/new`);
    await page.getByLabel("Name").fill("eight in New York");
    await page.getByRole("radio", { name: "Cron expression" }).check();
    await page.locator("#f-schedule").fill("0 8 * * *");
    await page.locator("#f-tz").selectOption("America/New_York");
    await page.getByRole("button", { name: "Preview the next pings" }).click();
    const times = await timesIn(".next");
    assert.is(times.length, 5);
    for (const time of times) {
      assert.match(time.text, / 08:00:00 E[SD]T$/, "8 o'clock where the viewer is, as the schedule says");
      checkTime(time);
    }
  });

  test("the events of a check's page read in the viewer's zone, also the ones a refresh brings in", async () => {
    const uuid = await createCheck({ name: "events in New York" });
    await ping(uuid);
    await page.goto(`${url()}/checks/${uuid}`);
    const first = await timesIn("#live-events");
    assert.ok(first.length >= 1);
    first.forEach(checkTime);
    await ok(call(url(), "POST", "/admin/v1/clock", { headers: admin, body: { advance: 3600 } }));
    await ping(uuid, "/fail");
    await page.locator("#live-events tr.ping-fail").waitFor();
    const after = await timesIn("#live-events");
    assert.ok(after.length > first.length);
    after.forEach(checkTime);
  });

  test("an open check page goes late and then down by itself, and while late says when it will be down", async () => {
    const uuid = await createCheck({ name: "late one", timeout: 60, grace: 60 });
    await ping(uuid);
    const lastPingAt = Date.parse((await api<{ last_ping: string }>("GET", `/api/v3/checks/${uuid}`)).last_ping);
    await page.goto(`${url()}/checks/${uuid}`);
    await page.evaluate(() => {
      document.documentElement.dataset.loadedOnce = "yes";
    });
    assert.is(await page.locator("#live-state .word").textContent(), "up");
    await ok(call(url(), "POST", "/admin/v1/clock", { headers: admin, body: { advance: 90 } }));
    await page.locator("#live-state .word", { hasText: "grace" }).waitFor();
    await page.locator("#status-text").getByText("unless a ping comes first").waitFor();
    const [due] = await timesIn("#status-text");
    checkTime(due);
    assert.is(
      Math.floor(Date.parse(due.at) / 1000) * 1000,
      lastPingAt + 120_000,
      "down at: the last ping (the API gives whole seconds), plus the period, plus the grace",
    );
    await ok(call(url(), "POST", "/admin/v1/clock", { headers: admin, body: { advance: 60 } }));
    await page.locator("#live-state .word", { hasText: "down" }).waitFor();
    assert.is(await page.evaluate(() => document.documentElement.dataset.loadedOnce), "yes", "the page was not reloaded");
  });

  /** The marks of the check named `name`, in its row of the checks list and on its page. */
  const marksOf = async (name: string, uuid: string) => {
    await page.goto(`${url()}/projects/${project.id}/checks`);
    const row = await page
      .locator("#check-rows tr", { has: page.getByRole("link", { name, exact: true }) })
      .locator(".mark")
      .allTextContents();
    await page.goto(`${url()}/checks/${uuid}`);
    const own = await page.locator("#live-state .state .mark").allTextContents();
    return { row, own };
  };

  test("'2 of 3 failures' while a threshold is partly reached, gone after a success", async () => {
    const uuid = await createCheck({ name: "threshold three", failure_threshold: 3 });
    await ping(uuid);
    await ping(uuid, "/fail");
    await ping(uuid, "/fail");
    assert.equal(await marksOf("threshold three", uuid), { row: ["2 of 3 failures"], own: ["2 of 3 failures"] });
    await ping(uuid);
    assert.equal(await marksOf("threshold three", uuid), { row: [], own: [] });
  });

  test("'muted' on a muted check, and the project's mute said above its checks", async () => {
    const uuid = await createCheck({ name: "quiet one", muted_until: "2099-01-01T00:00:00Z" });
    assert.equal(await marksOf("quiet one", uuid), { row: ["muted"], own: ["muted"] });
    await ok(call(url(), "POST", `/admin/v1/projects/${project.id}/mute`, { headers: admin, body: { until: "2099-01-01T00:00:00Z" } }));
    await page.goto(`${url()}/projects/${project.id}/checks`);
    await page.locator(".project-muted").getByText("Notifications of every check of this project are muted until").waitFor();
    await page.goto(`${url()}/checks/${uuid}`);
    await page.locator(".project-muted").waitFor();
    await ok(call(url(), "POST", `/admin/v1/projects/${project.id}/mute`, { headers: admin, body: { until: null } }));
  });

  test("a check's 'muted' mark leaves the open checks list by itself when its mute ends", async () => {
    // a project of its own: no other row whose "... ago" would make the table change anyway
    const quiet = await createProject(rig().server, TOKEN, { name: "Quiet" });
    const until = new Date((await now()) + 120_000).toISOString();
    await ok(call(url(), "POST", "/api/v3/checks/", { key: quiet.api_key, body: { name: "briefly quiet", muted_until: until } }));
    await page.goto(`${url()}/projects/${quiet.id}/checks`);
    const row = page.locator("#check-rows tr", { has: page.getByRole("link", { name: "briefly quiet", exact: true }) });
    await row.locator(".mark-muted").waitFor();
    await ok(call(url(), "POST", "/admin/v1/clock", { headers: admin, body: { advance: 180 } }));
    await row.locator(".mark-muted").waitFor({ state: "detached" });
  });

  test("'acknowledged' and 'held by <the dependency>' on down checks", async () => {
    const base = await createCheck({ name: "database" });
    const dependent = await createCheck({ name: "reports", depends_on: base });
    await ping(base, "/fail");
    await ping(dependent, "/fail");
    assert.equal(await marksOf("reports", dependent), { row: ["held by database"], own: ["held by database"] });
    await api("POST", `/api/v3/checks/${base}/acknowledge`);
    assert.equal(await marksOf("database", base), { row: ["acknowledged"], own: ["acknowledged"] });
  });

  test.run();
});
