// Managing a project from the dashboard in a real browser (Debian's chromium driven by playwright-core)
// against a real hcd process on loopback: from Settings the admin renames the project (a blank name is
// refused next to the form), sees the ping key, creates a new read-write key (the old one is refused by
// the API, the new one shown works), revokes the read-only key, and deletes the project after a
// confirmation page (its key is refused afterwards and the projects list no longer has it).
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Browser, Page } from "playwright-core";
import { browserRig, newContext, signIn, whenChromium } from "./browser-harness.ts";
import type { ProjectJson, RealServer } from "../security/real-server.ts";
import { call, createProject } from "../security/real-server.ts";

const TOKEN = "project-manage-admin-token-0123456789";

await whenChromium("project management browser tests", browserTests);

async function browserTests(): Promise<void> {
  const { rig } = browserRig({ ADMIN_TOKEN: TOKEN });
  let server: RealServer;
  let browser: Browser;
  let project: ProjectJson;
  let page: Page;
  const apiStatus = async (key: string) => (await call(server.url, "GET", "/api/v3/checks/", { key })).status;

  test.before(async () => {
    ({ server, browser } = rig());
    project = await createProject(server, TOKEN, { name: "Ops" });
    await createProject(server, TOKEN, { name: "Kept" });
    page = await (await newContext(browser)).newPage();
    await signIn(page, server.url, TOKEN);
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
    const projects = JSON.parse(
      (await call(server.url, "GET", "/admin/v1/projects", { headers: { authorization: `Bearer ${TOKEN}` } })).text,
    ) as { projects: { name: string }[] };
    assert.equal(
      projects.projects.map((p) => p.name),
      ["Ops <renamed>", "Kept"],
    );
    assert.is(await page.getByRole("button", { name: "Copy the ping key" }).getAttribute("data-copy"), project.ping_key);

    assert.is(await apiStatus(project.api_key), 200);
    await page.getByRole("button", { name: "Create a new read-write API key" }).click();
    await page.getByRole("status").getByText("A new key was created; the old one works no more.").waitFor();
    const fresh =
      (await page.getByRole("button", { name: "Copy the read-write API key", includeHidden: true }).getAttribute("data-copy")) ?? "";
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
    const key =
      (await page.getByRole("button", { name: "Copy the read-write API key", includeHidden: true }).getAttribute("data-copy")) ?? "";
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
