// Managing a project from the dashboard in a real browser (Debian's chromium driven by playwright-core)
// against a real hcd process on loopback: from Settings the admin renames the project (a blank name is
// refused next to the form), sees the ping key, creates a new read-write key (the old one is refused by
// the API, the new one shown works), revokes the read-only key, and deletes the project after a
// confirmation page (its key is refused afterwards and the projects list no longer has it).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { existsSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { tempDir } from "../helpers.ts";
import { newContext, signIn } from "./browser-harness.ts";
import type { ProjectJson, RealServer } from "../security/real-server.ts";
import { call, createProject, startServer, stopServer, troubleIn } from "../security/real-server.ts";

const CHROMIUM = "/usr/bin/chromium";
const TOKEN = "project-manage-admin-token-0123456789";

if (!existsSync(CHROMIUM)) {
  if (process.env.HCD_REQUIRE_EXTRAS === "1") {
    test("chromium is installed (HCD_REQUIRE_EXTRAS=1)", () => assert.unreachable(`${CHROMIUM} is missing`));
  } else {
    console.log(`SKIP: project management browser tests: ${CHROMIUM} not installed`);
    test("project management browser tests skipped: chromium not installed", () => {});
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
  let page: Page;
  const apiStatus = async (key: string) => (await call(server.url, "GET", "/api/v3/checks/", { key })).status;

  test.before(async () => {
    server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
    project = await createProject(server, TOKEN, { name: "Ops" });
    await createProject(server, TOKEN, { name: "Kept" });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
    page = await (await newContext(browser)).newPage();
    await signIn(page, server.url, TOKEN);
  });

  test.after(async () => {
    await browser?.close();
    if (server) {
      const trouble = troubleIn(server.output());
      await stopServer(server);
      dir.remove();
      assert.equal(trouble, [], "no unexpected errors in the server's output");
    }
  });

  test("rename, see the ping key, create a new read-write key, revoke the read-only key", async () => {
    await page.goto(`${server.url}/projects/${project.id}/settings`);
    await page.getByRole("link", { name: "Rename, create or revoke keys, delete the project" }).click();
    await page.getByLabel("Project name").fill("   ");
    await page.getByRole("button", { name: "Rename project" }).click();
    await page.getByRole("alert").getByText("name must not be blank").waitFor();
    await page.getByLabel("Project name").fill("Ops <renamed>");
    await page.getByRole("button", { name: "Rename project" }).click();
    await page.getByRole("status").getByText("Project renamed.").waitFor();
    assert.is(await page.getByRole("navigation", { name: "Project" }).getByRole("link").first().innerText(), "Ops <renamed>");
    const projects = JSON.parse((await call(server.url, "GET", "/admin/v1/projects", { headers: { authorization: `Bearer ${TOKEN}` } })).text) as { projects: { name: string }[] };
    assert.equal(projects.projects.map((p) => p.name), ["Ops <renamed>", "Kept"]);
    assert.is(await page.getByRole("button", { name: "Copy the ping key" }).getAttribute("data-copy"), project.ping_key);

    assert.is(await apiStatus(project.api_key), 200);
    await page.getByRole("button", { name: "Create a new read-write API key" }).click();
    await page.getByRole("status").getByText("A new key was created; the old one works no more.").waitFor();
    const fresh = await page.getByRole("button", { name: "Copy the read-write API key", includeHidden: true }).getAttribute("data-copy") ?? "";
    assert.ok(fresh.length >= 32 && fresh !== project.api_key);
    assert.is(await apiStatus(project.api_key), 401);
    assert.is(await apiStatus(fresh), 200);

    assert.is(await apiStatus(project.api_key_readonly), 200);
    await page.getByRole("button", { name: "Revoke read-only API key" }).click();
    await page.getByRole("status").getByText("The key was revoked.").waitFor();
    await page.getByText("None (revoked)").waitFor();
    assert.is(await apiStatus(project.api_key_readonly), 401);
    await page.getByRole("button", { name: "Create read-only API key" }).waitFor();
  });

  test("delete the project after a confirmation: gone from the list, its key refused", async () => {
    await page.goto(`${server.url}/projects/${project.id}/manage`);
    const key = await page.getByRole("button", { name: "Copy the read-write API key", includeHidden: true }).getAttribute("data-copy") ?? "";
    assert.is(await apiStatus(key), 200);
    await page.getByRole("link", { name: "Delete this project…" }).click();
    await page.getByRole("heading", { name: "Delete the project “Ops <renamed>”?" }).waitFor();
    await page.getByRole("button", { name: "Delete the project for good" }).click();
    await page.getByRole("link", { name: "Kept" }).waitFor();
    assert.is(await page.getByRole("link", { name: "Ops <renamed>" }).count(), 0);
    assert.is(await apiStatus(key), 401);
  });

  test.run();
}
