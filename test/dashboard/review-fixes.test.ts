// Rough edges of the dashboard fixed, in a real browser (Debian's chromium driven by playwright-core)
// against a real hcd process on loopback, one server and one browser for every test: an open checks list
// says so when its session ends or the server stops answering, and recovers by itself; "Ping now" sends a
// success even through a body filter.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { ProjectJson, RealServer } from "../security/real-server.ts";
import { addChannel, call, createProject, ok } from "../security/real-server.ts";
import { browserRig, whenChromium } from "./browser-harness.ts";

const TOKEN = "review-fixes-admin-token-0123456789";

await whenChromium("dashboard review-fix browser tests", browserTests);

async function browserTests(): Promise<void> {
  let server: RealServer;
  let browser: Browser;
  let context: BrowserContext;
  let project: ProjectJson;
  let page: Page;

  const signIn = async (on: Page, key: string): Promise<void> => {
    await on.goto(server.url + "/");
    await on.getByLabel("Admin token or API key").fill(key);
    await on.locator("form[action='/signin']").getByRole("button", { name: "Sign in" }).click();
    await on.getByRole("button", { name: "Sign out" }).waitFor();
  };

  const { rig } = browserRig({ ADMIN_TOKEN: TOKEN });
  test.before(async () => {
    ({ server, browser } = rig());
    project = await createProject(server, TOKEN, { name: "Ops" });
    context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    await signIn(page, TOKEN);
  });

  test("an open checks list shows 'Signed out' when the session ends in another tab, and clears it after signing in again", async () => {
    await page.goto(`${server.url}/projects/${project.id}/checks`);
    const banner = page.locator("#connection-banner");
    const other = await context.newPage();
    await other.goto(`${server.url}/projects/${project.id}/checks`);
    await other.getByRole("button", { name: "Sign out" }).click();
    await other.getByLabel("Admin token or API key").waitFor();
    await page.getByText("Signed out: sign in again").waitFor();
    assert.is(await banner.getByRole("link", { name: "sign in again" }).getAttribute("href"), "/");
    await signIn(other, TOKEN);
    await banner.waitFor({ state: "detached" });
    await other.close();
  });

  test("an open checks list says the server is not answering while its refreshes fail, and clears it when they succeed", async () => {
    await page.goto(`${server.url}/projects/${project.id}/checks`);
    const rows = `**/projects/${project.id}/checks/rows*`;
    await page.route(rows, (route) => route.abort("connectionrefused"));
    await page.getByText("The server is not answering, retrying…").waitFor();
    await page.unroute(rows);
    await page.locator("#connection-banner").waitFor({ state: "detached" });
    await page.route(rows, (route) => route.fulfill({ status: 502, body: "bad gateway" }));
    await page.getByText("The server is not answering, retrying…").waitFor();
    await page.unroute(rows);
    await page.locator("#connection-banner").waitFor({ state: "detached" });
  });

  /** Creates a check through the API with the project's read-write key; returns its uuid. */
  const createCheck = async (body: Record<string, unknown>): Promise<string> =>
    (await ok<{ uuid: string }>(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body }))).uuid;
  const statusOf = async (uuid: string): Promise<string> =>
    (await ok<{ status: string }>(call(server.url, "GET", `/api/v3/checks/${uuid}`, { key: project.api_key }))).status;

  test("'Ping now' on a check that reads bodies for keywords (empty body a failure) sends a success: the check is up and the notice says how", async () => {
    const uuid = await createCheck({
      name: "filtered",
      methods: "POST",
      filter_http_body: true,
      success_kw: "DONE",
      failure_kw: "ERROR",
      filter_default_fail: true,
    });
    await page.goto(`${server.url}/checks/${uuid}`);
    await page.getByRole("button", { name: "Ping now" }).click();
    await page.getByText("Success ping sent, with one of the check's success keywords as its body").waitFor();
    assert.is(await statusOf(uuid), "up");
  });

  test("'Ping now' on a filtered check with no success keyword refuses and says why, and records nothing", async () => {
    const uuid = await createCheck({ name: "no success word", filter_http_body: true, failure_kw: "ERROR", filter_default_fail: true });
    await page.goto(`${server.url}/checks/${uuid}`);
    await page.getByRole("button", { name: "Ping now" }).click();
    await page.getByText("has no success keyword, so a ping from here cannot count as a success").waitFor();
    assert.is(await statusOf(uuid), "new");
  });

  test("a cron expression typed while 'Simple period' stays chosen is refused next to the field, the typed data kept, no check made", async () => {
    await page.goto(`${server.url}/projects/${project.id}/checks/new`);
    await page.getByLabel("Name").fill("nightly cron");
    await page.getByRole("radio", { name: "Cron expression" }).check();
    await page.locator("#f-schedule").fill("0 3 * * *");
    await page.getByRole("radio", { name: "Simple period" }).check(); // the expression's input hides, its text stays
    await page.getByRole("button", { name: "Save" }).click();
    await page.locator("#e-schedule").getByText('"0 3 * * *" is typed but "Simple period" is chosen').waitFor();
    assert.is(await page.locator("#f-schedule").getAttribute("aria-invalid"), "true");
    assert.is(await page.getByLabel("Name").inputValue(), "nightly cron");
    const checks = await ok<{ checks: { name: string }[] }>(call(server.url, "GET", "/api/v3/checks/", { key: project.api_key }));
    assert.not.ok(
      checks.checks.some((c) => c.name === "nightly cron"),
      "nothing was created",
    );
    await page.getByRole("radio", { name: "Cron expression" }).check();
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Check created.").waitFor();
    await page.getByText("0 3 * * *").first().waitFor();
  });

  test("the slug field's pattern is one the browser runs: 'Bad Slug!' is caught before it is sent, 'good-slug_1' passes", async () => {
    await page.goto(`${server.url}/projects/${project.id}/checks/new`);
    const slug = page.getByLabel("Slug");
    await slug.fill("Bad Slug!");
    assert.ok(await slug.evaluate((el: HTMLInputElement) => el.validity.patternMismatch), "the browser sees the mismatch");
    await slug.fill("good-slug_1");
    assert.not.ok(await slug.evaluate((el: HTMLInputElement) => el.validity.patternMismatch));
  });

  test("a project name of spaces only is refused next to the field and no project is made", async () => {
    await page.goto(`${server.url}/`);
    const projectCount = async () =>
      (await ok<{ projects: unknown[] }>(call(server.url, "GET", "/admin/v1/projects", { headers: { authorization: `Bearer ${TOKEN}` } })))
        .projects.length;
    const before = await projectCount();
    await page.getByLabel("Name").fill("   ");
    await page.getByRole("button", { name: "Create project" }).click();
    await page.getByText("The name is empty: type a name with at least one letter or digit.").waitFor();
    assert.is(await page.getByLabel("Name").getAttribute("aria-invalid"), "true");
    assert.is(await projectCount(), before, "no project was made");
  });

  test("a new check with a failure logged below its threshold does not say 'no ping received yet'", async () => {
    const uuid = await createCheck({ name: "threshold two", failure_threshold: 2 });
    assert.is((await call(server.url, "POST", `/ping/${uuid}/fail`)).status, 200);
    await page.goto(`${server.url}/checks/${uuid}`);
    await page.getByText("waiting for a success ping (1 ping logged").waitFor();
    assert.not.ok((await page.content()).includes("no ping received yet"));
    assert.is(await statusOf(uuid), "new");
  });

  test("deleting a check ends on the checks list with 'Check deleted.'", async () => {
    const uuid = await createCheck({ name: "short-lived" });
    await page.goto(`${server.url}/checks/${uuid}`);
    await page.getByRole("link", { name: "Delete" }).click();
    await page.getByRole("button", { name: "Delete for good" }).click();
    await page.getByText("Check deleted.").waitFor();
    assert.is(new URL(page.url()).pathname, `/projects/${project.id}/checks`);
  });

  test("the pages name an icon that is served, and /favicon.ico answers with it instead of a 404", async () => {
    await page.goto(`${server.url}/projects/${project.id}/checks`);
    const href = await page.locator("link[rel=icon]").getAttribute("href");
    assert.is(href, "/static/favicon.svg");
    for (const path of ["/static/favicon.svg", "/favicon.ico"]) {
      const answer = await call(server.url, "GET", path);
      assert.equal([path, answer.status, answer.headers.get("content-type")], [path, 200, "image/svg+xml"]);
      assert.match(answer.text, "<svg");
    }
  });

  test("'Preview the next pings' on a simple period says what the period means instead of nothing", async () => {
    await page.goto(`${server.url}/projects/${project.id}/checks/new`);
    await page.getByLabel("Name").fill("hourly");
    await page.locator("#f-timeout").fill("3600");
    await page.locator("#f-timeout_unit").selectOption("seconds");
    await page.locator("#f-grace").fill("300");
    await page.locator("#f-grace_unit").selectOption("seconds");
    await page.getByRole("button", { name: "Preview the next pings" }).click();
    await page.getByText("Simple period: after each ping the next one is expected within 1 hour, then 5 minutes of grace").waitFor();
  });

  test("after 'Test' the browser is on a GET page showing the result; a reload shows the list without a new result", async () => {
    await addChannel(server, TOKEN, project.id, { kind: "webhook", name: "dead hook", value: "http://127.0.0.1:9/hook" });
    await page.goto(`${server.url}/projects/${project.id}/integrations`);
    await page.getByRole("button", { name: "Test dead hook" }).click();
    await page.getByText("Test notification through dead hook failed").waitFor();
    assert.is(new URL(page.url()).pathname, `/projects/${project.id}/integrations`, "a GET page, not the POST's");
    await page.reload();
    await page.getByRole("button", { name: "Test dead hook" }).waitFor();
    assert.not.ok((await page.content()).includes("Test notification through dead hook"), "no test was sent again");
  });

  test.run();
}
