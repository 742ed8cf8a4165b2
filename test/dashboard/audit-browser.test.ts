// The audit log page in a real browser (Chromium through playwright-core) against a real hcd on loopback:
// a Pause clicked on a check's page appears on top of the project's "Audit log" with its actor; a check
// named with markup shows as text (no script runs); "Older" pages back to the project's creation.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Browser } from "playwright-core";
import { tempDir } from "../helpers.ts";
import type { ProjectJson, RealServer } from "../security/real-server.ts";
import { call, createProject, ok, startServer, stopServer, troubleIn } from "../security/real-server.ts";
import { launchChromium, signedInPage, whenChromium } from "./browser-harness.ts";

const TOKEN = "audit-browser-admin-token-0123456789";
const XSS_NAME = `<img src=x onerror="console.log('xss-fired')">`;

await whenChromium("audit log browser tests", async () => {
  const dir = tempDir();
  let server: RealServer;
  let browser: Browser;
  let project: ProjectJson;
  const messages: string[] = [];

  test.before(async () => {
    server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, CLOCK: "virtual" } });
    project = await createProject(server, TOKEN, { name: "Ops" });
    browser = await launchChromium();
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

  test("a Pause on the dashboard is on top of the Audit log, the name as text; Older pages back", async () => {
    const check = await ok<{ uuid: string }>(
      call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: XSS_NAME } }),
    );
    const page = await signedInPage(browser, server.url, project.api_key, messages);
    await page.goto(`${server.url}/checks/${check.uuid}`);
    await page.getByRole("button", { name: "Pause" }).click();
    await page.getByRole("button", { name: "Resume" }).waitFor();
    await page.getByRole("link", { name: "Audit log" }).click();
    await page.getByRole("heading", { name: "Audit log" }).waitFor();
    const rows = page.locator("table.audit-log tbody tr");
    const cells = async (i: number) => (await rows.nth(i).locator("td").allInnerTexts()).slice(1);
    assert.equal(await cells(0), ["API key (read-write)", "check.paused", `check ${JSON.stringify(XSS_NAME)} ${check.uuid}`]);
    assert.equal(await cells(1), ["API key (read-write)", "check.created", `check ${JSON.stringify(XSS_NAME)} ${check.uuid}`]);
    assert.equal(await cells(2), ["admin token", "project.created", `project "Ops" ${project.id}`]);
    assert.is(await rows.count(), 3);
    assert.is(await page.locator("table.audit-log img").count(), 0, "the name is text, not an element");

    await page.goto(`${server.url}/projects/${project.id}/audit?limit=2`);
    assert.is(await rows.count(), 2);
    await page.getByRole("link", { name: "Older" }).click();
    await page.getByRole("link", { name: "Newest" }).waitFor();
    assert.equal(await cells(0), ["admin token", "project.created", `project "Ops" ${project.id}`]);
    assert.is(await rows.count(), 1);
    assert.is(await page.getByRole("link", { name: "Older" }).count(), 0, "the last page has no Older link");
    assert.equal(
      messages.filter((m) => m.includes("xss")),
      [],
    );
  });

  test.run();
});
