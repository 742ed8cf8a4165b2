// A project of many checks in a real browser (Debian's chromium driven by playwright-core) against a real
// hcd process on loopback with CLOCK=virtual: an integration assigned to every check says "320 checks"
// instead of listing every name; the checks list shows 100 rows a page with Next and Previous, and its
// search still works; an idle open list is answered 304 while its "... ago" moves on in the browser.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Page, Response } from "playwright-core";
import type { ProjectJson } from "../security/real-server.ts";
import { addChannel, call, createProject, ok } from "../security/real-server.ts";
import { browserRig, newContext, signIn, whenChromium } from "./browser-harness.ts";

const TOKEN = "scale-browser-admin-token-0123456789";
const CHECKS = 320;
const name = (i: number) => `job-${String(i).padStart(3, "0")}`;

await whenChromium("dashboard scale browser tests", async () => {
  const { rig } = browserRig({ ADMIN_TOKEN: TOKEN, CLOCK: "virtual" });
  let page: Page;
  let project: ProjectJson;
  const uuids: string[] = [];
  const url = () => rig().server.url;
  const admin = { authorization: `Bearer ${TOKEN}` };

  test.before(async () => {
    project = await createProject(rig().server, TOKEN, { name: "Big", check_limit: CHECKS });
    await addChannel(rig().server, TOKEN, project.id, { kind: "webhook", name: "scalehook", value: "http://127.0.0.1:9/hook" });
    for (let i = 0; i < CHECKS; i += 16) {
      const batch = Array.from({ length: Math.min(16, CHECKS - i) }, (_, k) => i + k);
      const made = await Promise.all(
        batch.map((n) =>
          ok<{ uuid: string }>(call(url(), "POST", "/api/v3/checks/", { key: project.api_key, body: { name: name(n), channels: "*" } })),
        ),
      );
      uuids.push(...made.map((m) => m.uuid));
    }
    page = await (await newContext(rig().browser)).newPage();
    await signIn(page, url(), TOKEN);
  });

  test("an integration assigned to 320 checks says so in a few words, the first names behind a disclosure", async () => {
    await page.goto(`${url()}/projects/${project.id}/integrations`);
    const cell = page.locator("#live-integrations tbody tr").first().locator("td").nth(3);
    const text = (await cell.textContent()) ?? "";
    assert.ok(text.length < 200, `the cell stays small: ${text.length} characters`);
    assert.match(text, "320 checks");
    // the name and kind columns keep their words on one line each (one line box of text), not a letter a line
    const lines = await page
      .locator("#live-integrations tbody tr")
      .first()
      .locator("td")
      .evaluateAll((cells) =>
        cells.slice(0, 2).map((cell) => {
          const range = document.createRange();
          range.selectNodeContents(cell);
          return range.getClientRects().length;
        }),
      );
    assert.equal(lines, [1, 1]);
    await cell.getByText("320 checks").click();
    await cell.getByText("and 315 more").waitFor();
    assert.is(await cell.getByRole("link").count(), 5);
  });

  const shownNames = () => page.locator("#check-rows tr[data-ref] td:nth-child(2) a").allTextContents();

  test("the list shows 100 rows a page; Next and Previous move through it, keeping the sort; the search finds past the first page", async () => {
    await page.goto(`${url()}/projects/${project.id}/checks?sort=name`);
    assert.equal(
      await shownNames(),
      Array.from({ length: 100 }, (_, i) => name(i)),
    );
    await page.getByText("Checks 1–100 of 320").waitFor();
    await page.getByRole("link", { name: "Next" }).click();
    await page.getByText("Checks 101–200 of 320").waitFor();
    assert.equal(
      await shownNames(),
      Array.from({ length: 100 }, (_, i) => name(100 + i)),
    );
    assert.match(page.url(), /sort=name&page=2$/);
    await page.getByRole("link", { name: "Previous" }).click();
    await page.getByText("Checks 1–100 of 320").waitFor();
    await page.getByLabel("Search").fill("job-31");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/q=job-31/);
    assert.equal(
      (await shownNames()).sort(),
      Array.from({ length: 10 }, (_, i) => name(310 + i)),
    );
    assert.is(await page.locator("tr.pager").count(), 0, "one page: no pager");
  });

  test('an idle open list: its refreshes answer 304 while its "... ago" moves on in the browser', async () => {
    // a project of its own, with no integration: nothing but time changes after its one ping
    const quiet = await createProject(rig().server, TOKEN, { name: "Quiet" });
    const { uuid } = await ok<{ uuid: string }>(call(url(), "POST", "/api/v3/checks/", { key: quiet.api_key, body: { name: "nightly" } }));
    assert.is((await call(url(), "GET", `/ping/${uuid}`)).status, 200);
    await page.goto(`${url()}/projects/${quiet.id}/checks`);
    const ago = page.locator("#check-rows time.ago");
    await ago.getByText("just now").waitFor();
    // the ping's commit moves the project's version once more, within half a second: from a 304 on, nothing changes
    await page.waitForResponse((r) => r.url().includes("/checks/rows") && r.status() === 304);
    const rowsAnswers: number[] = [];
    const onResponse = (response: Response) => {
      if (response.url().includes("/checks/rows")) rowsAnswers.push(response.status());
    };
    page.on("response", onResponse);
    await ok(call(url(), "POST", "/admin/v1/clock", { headers: admin, body: { advance: 600 } }));
    await ago.getByText("10 minutes ago").waitFor({ timeout: 15_000 });
    page.off("response", onResponse);
    assert.ok(rowsAnswers.length > 0, "a refresh brought the server's new instant");
    assert.equal(
      rowsAnswers.filter((status) => status !== 304),
      [],
      `no rows downloaded: ${rowsAnswers.join(", ")}`,
    );
    assert.match((await ago.getAttribute("title")) ?? "", / UTC$/, "the exact time on hover");
  });

  test.run();
});
