// Status pages made from the dashboard in a real browser (Debian's chromium driven by playwright-core)
// against a real hcd process on loopback: the admin opens a project's "Status pages", is told a taken
// address next to the form, creates a page with one of two checks ticked, follows its link to the public
// page (the ticked check's name as text, its status word), and deletes it after a confirmation; edits a
// page's title, description and checks.
import { readFileSync } from "node:fs";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Browser, Page } from "playwright-core";
import { browserRig, newContext, signIn, whenChromium } from "./browser-harness.ts";
import type { ProjectJson, RealServer } from "../security/real-server.ts";
import { call, createProject, ok } from "../security/real-server.ts";

const TOKEN = "status-pages-admin-token-0123456789";

await whenChromium("status page browser tests", browserTests);

async function browserTests(): Promise<void> {
  const { rig } = browserRig({ ADMIN_TOKEN: TOKEN });
  let server: RealServer;
  let browser: Browser;
  let project: ProjectJson;
  let page: Page;
  const admin = { authorization: `Bearer ${TOKEN}` };
  const checks: { uuid: string }[] = [];

  test.before(async () => {
    ({ server, browser } = rig());
    project = await createProject(server, TOKEN, { name: "Ops" });
    for (const name of ["<b>db</b> backup", "private job"])
      checks.push(await ok(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name } })));
    assert.is((await fetch(`${server.url}/ping/${checks[0].uuid}`)).status, 200);
    const other = await createProject(server, TOKEN, { name: "Other" });
    const theirs = await ok<{ uuid: string }>(
      call(server.url, "POST", "/api/v3/checks/", { key: other.api_key, body: { name: "theirs" } }),
    );
    await ok(
      call(server.url, "POST", `/admin/v1/projects/${other.id}/status-pages`, {
        headers: admin,
        body: { slug: "taken", title: "T", checks: [theirs.uuid] },
      }),
    );
    page = await (await newContext(browser)).newPage();
    await signIn(page, server.url, TOKEN);
  });

  test("create a status page with one check ticked, see it in public, delete it after a confirmation", async () => {
    await page.goto(`${server.url}/projects/${project.id}/checks`);
    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Status pages" }).click();
    await page.getByText("No status pages yet.").waitFor();
    await page.getByLabel("Title").fill("Ops status");
    await page.getByLabel(/Address/).fill("taken");
    await page.getByLabel("<b>db</b> backup", { exact: true }).check();
    await page.getByRole("button", { name: "Create status page" }).click();
    await page.getByRole("alert").getByText("Slug is already taken.").waitFor();
    assert.not.match((await page.getByRole("alert").textContent()) ?? "", "json validation error", "plain words, not the API's");
    assert.ok(await page.getByLabel("<b>db</b> backup", { exact: true }).isChecked(), "the ticked check stays ticked");
    await page.getByLabel(/Address/).fill("ops");
    await page.getByRole("button", { name: "Create status page" }).click();
    await page.getByRole("link", { name: "/status/ops" }).click();
    await page.getByRole("heading", { name: "Ops status" }).waitFor();
    const text = await page.locator("main").innerText();
    assert.ok(text.includes("<b>db</b> backup"), "the name shows as text");
    assert.match(text, /\bup\b/);
    assert.not.ok(text.includes("private job"), "an unticked check is not shown");
    assert.is(await page.locator(".bars").first().locator("span").count(), 90);
    const overall = page.getByRole("status");
    assert.is(await overall.innerText(), "All systems operational");
    assert.is(
      await overall.evaluate((el) => getComputedStyle(el).backgroundColor),
      "rgb(0, 112, 60)",
      "styled by its state under the page's CSP",
    );

    await page.goto(`${server.url}/projects/${project.id}/status-pages`);
    await page.getByRole("link", { name: "Delete Ops status" }).click();
    await page.getByRole("heading", { name: "Delete the status page “Ops status”?" }).waitFor();
    await page.getByRole("button", { name: "Delete for good" }).click();
    await page.getByText("No status pages yet.").waitFor();
    assert.is((await fetch(`${server.url}/status/ops`)).status, 404);
  });

  test("edit a status page: its title, description and checks change, its address stays, and the public page follows", async () => {
    await ok(
      call(server.url, "POST", `/admin/v1/projects/${project.id}/status-pages`, {
        headers: admin,
        body: { slug: "edited", title: "Before", checks: [checks[0].uuid] },
      }),
    );
    await page.goto(`${server.url}/projects/${project.id}/status-pages`);
    await page.getByRole("link", { name: "Edit Before" }).click();
    assert.ok(await page.getByLabel("<b>db</b> backup", { exact: true }).isChecked(), "the page's checks come ticked");
    await page.getByLabel("Title").fill("After");
    await page.getByLabel(/^Description/).fill("Maintenance on Sunday\n<i>mail</i> may be late");
    await page.getByLabel("<b>db</b> backup", { exact: true }).uncheck();
    await page.getByRole("button", { name: "Save status page" }).click();
    await page
      .getByRole("alert")
      .getByText(/Checks/)
      .waitFor(); // none ticked: refused next to the form, nothing changed
    assert.is(await page.getByLabel("Title").inputValue(), "After", "what was typed stays");
    await page.getByLabel("private job", { exact: true }).check();
    await page.getByRole("button", { name: "Save status page" }).click();
    await page.getByText("Status page saved.").waitFor();
    await page.getByRole("link", { name: "/status/edited" }).click();
    await page.getByRole("heading", { name: "After" }).waitFor();
    assert.is(await page.locator(".description").innerText(), "Maintenance on Sunday\n<i>mail</i> may be late");
    const text = await page.locator("main").innerText();
    assert.ok(text.includes("private job") && !text.includes("db</b> backup"), text);
    const audit = await ok<{ events: { action: string; target: string }[] }>(
      call(server.url, "GET", `/admin/v1/projects/${project.id}/audit`, { headers: admin }),
    );
    assert.equal(audit.events[0], { ...audit.events[0], action: "status_page.updated", target: 'status page "edited"' });
  });

  test("group checks under headings in the edit form: the public page shows them after the ungrouped, the form shows them again", async () => {
    await ok(
      call(server.url, "POST", `/admin/v1/projects/${project.id}/status-pages`, {
        headers: admin,
        body: { slug: "grouped", title: "Grouped", checks: checks.map((c) => c.uuid) },
      }),
    );
    await page.goto(`${server.url}/projects/${project.id}/status-pages/grouped/edit`);
    await page.getByLabel("Group of <b>db</b> backup").fill("Data <stores>");
    await page.getByRole("button", { name: "Save status page" }).click();
    await page.getByText("Status page saved.").waitFor();
    await page.goto(`${server.url}/status/grouped`);
    const order = await page.locator("h2.group, .check .name").allInnerTexts();
    assert.equal(order, ["private job", "Data <stores>", "<b>db</b> backup"]);
    await page.goto(`${server.url}/projects/${project.id}/status-pages/grouped/edit`);
    assert.is(await page.getByLabel("Group of <b>db</b> backup").inputValue(), "Data <stores>");
    assert.is(await page.getByLabel("Group of private job").inputValue(), "");
    const listed = await ok<{ status_pages: { slug: string; groups?: unknown }[] }>(
      call(server.url, "GET", `/admin/v1/projects/${project.id}/status-pages`, { headers: admin }),
    );
    assert.equal(listed.status_pages.find((p) => p.slug === "grouped")?.groups, [{ name: "Data <stores>", checks: [checks[0].uuid] }]);
  });

  test("a logo set in the edit form shows on the public page, loaded by the browser under the page's CSP", async () => {
    await ok(
      call(server.url, "POST", `/admin/v1/projects/${project.id}/status-pages`, {
        headers: admin,
        body: { slug: "branded", title: "Branded", checks: [checks[0].uuid] },
      }),
    );
    await page.goto(`${server.url}/projects/${project.id}/status-pages/branded/edit`);
    await page.getByLabel(/^Logo/).fill("https://logo.test/brand/acme.png");
    await page.getByRole("button", { name: "Save status page" }).click();
    await page.getByText("Status page saved.").waitFor();
    const viewer = await (await newContext(browser)).newPage();
    const png = readFileSync(new URL("../../../http/dashboard/static/img/logo.png", import.meta.url));
    const asked: string[] = [];
    // the image's host, answered inside the browser (after the CSP let the request go)
    await viewer.context().route("https://logo.test/**", (route) => {
      asked.push(route.request().url());
      return route.fulfill({ status: 200, contentType: "image/png", body: png });
    });
    const refused: string[] = [];
    viewer.on("console", (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
    });
    await viewer.goto(`${server.url}/status/branded`);
    const logo = viewer.locator("img.logo");
    await viewer.waitForFunction(() => document.querySelector<HTMLImageElement>("img.logo")?.complete === true);
    assert.ok((await logo.evaluate((img) => (img as HTMLImageElement).naturalWidth)) > 0, `loaded: ${refused.join(" ")}`);
    assert.equal(asked, ["https://logo.test/brand/acme.png"]);
    assert.equal(refused, []);
    await viewer.context().close();
  });

  test("the public page's times in the viewer's time zone by the dashboard's script under the page's CSP; without script, UTC", async () => {
    await ok(
      call(server.url, "POST", `/admin/v1/projects/${project.id}/status-pages`, {
        headers: admin,
        body: { slug: "zoned", title: "Zoned", checks: [checks[0].uuid] },
      }),
    );
    const times = (viewer: Page) =>
      viewer
        .locator("time[datetime]")
        .evaluateAll((all) =>
          all.map((t) => ({ at: t.getAttribute("datetime") ?? "", text: t.textContent ?? "", title: t.getAttribute("title") ?? "" })),
        );
    // Kolkata is UTC+05:30 all year: its minutes differ from UTC's, so a time left in UTC cannot pass
    const local = await (await newContext(browser, { timezoneId: "Asia/Kolkata" })).newPage();
    const refused: string[] = [];
    local.on("console", (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
    });
    await local.goto(`${server.url}/status/zoned`);
    await local.getByRole("heading", { name: "Zoned" }).waitFor();
    await local.waitForFunction(() => [...document.querySelectorAll("time[datetime]")].every((t) => !t.textContent?.endsWith("UTC")));
    const shown = await times(local);
    assert.ok(shown.length >= 2, "the check's start and the page's time"); // "uptime since" and "As of"
    for (const { at, text, title } of shown) {
      const inKolkata = new Date(Date.parse(at) + 5.5 * 3600_000).toISOString(); // written in UTC's form, read as Kolkata's wall time
      assert.is(text, `${inKolkata.slice(0, 10)} ${inKolkata.slice(11, 19)} GMT+5:30`);
      assert.is(title, `${at.slice(0, 10)} ${at.slice(11, 16)} UTC`, "the UTC time on hover");
    }
    assert.equal(refused, [], "the page's CSP lets its script run");
    await local.context().close();
    const noScript = await (await newContext(browser, { timezoneId: "Asia/Kolkata", javaScriptEnabled: false })).newPage();
    await noScript.goto(`${server.url}/status/zoned`);
    for (const { at, text } of await times(noScript)) assert.is(text, `${at.slice(0, 10)} ${at.slice(11, 16)} UTC`);
    await noScript.context().close();
  });

  test("a project key sees the list but no form, and the server refuses its create", async () => {
    await ok(
      call(server.url, "POST", `/admin/v1/projects/${project.id}/status-pages`, {
        headers: admin,
        body: { slug: "listed", title: "Listed page", checks: [checks[0].uuid] },
      }),
    );
    const keyPage = await (await newContext(browser)).newPage();
    await signIn(keyPage, server.url, project.api_key);
    await keyPage.goto(`${server.url}/projects/${project.id}/status-pages`);
    await keyPage.getByRole("link", { name: "/status/listed" }).waitFor();
    await keyPage.getByText("Only the admin token, and a project's managers and owners, create, edit and delete status pages.").waitFor();
    assert.is(await keyPage.getByRole("button", { name: "Create status page" }).count(), 0);
    const status = await keyPage.evaluate(
      async ({ id, uuid }) => {
        const csrf = (document.querySelector("input[name=csrf]") as HTMLInputElement).value;
        const res = await fetch(`/projects/${id}/status-pages`, {
          method: "POST",
          body: new URLSearchParams({ csrf, slug: "by-key", title: "By key", check: uuid }),
        });
        return res.status;
      },
      { id: project.id, uuid: checks[0].uuid },
    );
    assert.is(status, 403);
    assert.is((await fetch(`${server.url}/status/by-key.json`)).status, 404);
    await keyPage.context().close();
  });

  test.run();
}
