// A project of many checks in a real browser (Debian's chromium driven by playwright-core) against a real
// hcd process on loopback with CLOCK=virtual: an integration assigned to every check says "320 checks"
// instead of listing every name; the checks list shows 100 rows a page with Next and Previous, filters by
// several tags (a row's tag adds itself) and by search as one types; an idle open list is answered 304 while its "... ago" moves on in the browser.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Page, Response } from "playwright-core";
import type { ProjectJson } from "../security/real-server.ts";
import { addChannel, call, createProject, ok } from "../security/real-server.ts";
import { browserRig, newContext, signIn, whenChromium } from "./browser-harness.ts";

const TOKEN = "scale-browser-admin-token-0123456789";
const CHECKS = 320;
const name = (i: number) => `job-${String(i).padStart(3, "0")}`;
/** Check i's tags: even or odd, three for a multiple of 3, staging for the last 20. */
const tagsOfJob = (i: number) =>
  [i % 2 === 0 ? "even" : "odd", i % 3 === 0 ? "three" : "", i >= 300 ? "staging" : ""].filter((t) => t !== "").join(" ");
const jobs = (keep: (i: number) => boolean) =>
  Array.from({ length: CHECKS }, (_, i) => i)
    .filter(keep)
    .map(name);

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
          ok<{ uuid: string }>(
            call(url(), "POST", "/api/v3/checks/", { key: project.api_key, body: { name: name(n), tags: tagsOfJob(n), channels: "*" } }),
          ),
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
  /** The widths of the pager's or the empty list's one cell and of the table. */
  const widths = () =>
    page.locator("table.checks").evaluate((table) => {
      const cell = table.querySelector("tr.pager td, tr.none td");
      return [Math.round(cell?.getBoundingClientRect().width ?? 0), Math.round(table.getBoundingClientRect().width)];
    });

  test("the list shows 100 rows a page; Next and Previous move through it, keeping the sort; the pager spans the table", async () => {
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
    // the pager's one cell spans the table, not the first column's 120 px
    const [pagerWidth, tableWidth] = await widths();
    assert.ok(pagerWidth > tableWidth * 0.95, `the pager's cell ${pagerWidth} px of the table's ${tableWidth} px`);
  });

  test("filtering at scale: a row's tag adds itself to the filter, several tags at once, the search finds tags and filters as one types", async () => {
    await page.goto(`${url()}/projects/${project.id}/checks?sort=name`);
    await page.locator("#check-rows tr[data-ref]").first().getByRole("link", { name: "even", exact: true }).click();
    await page.getByText("Checks 1–100 of 160").waitFor();
    assert.match(page.url(), /\?tag=even&sort=name$/);
    await page.locator("#check-rows tr[data-ref]").first().getByRole("link", { name: "three", exact: true }).click();
    await page.waitForURL(/\?tag=even&tag=three&sort=name$/);
    assert.equal(
      await shownNames(),
      jobs((i) => i % 6 === 0),
      "both tags",
    );
    assert.is(await page.locator("tr.pager").count(), 0, "one page: no pager");
    // the select adds a third; a chosen tag's × drops it
    await page.getByLabel("Tags").selectOption("staging");
    await page.waitForURL(/tag=staging/);
    assert.equal(
      await shownNames(),
      jobs((i) => i % 6 === 0 && i >= 300),
    );
    await page.getByRole("link", { name: "Stop filtering by tag even" }).click();
    await page.waitForURL(/\?tag=three&tag=staging&sort=name$/);
    assert.equal(
      await shownNames(),
      jobs((i) => i % 3 === 0 && i >= 300),
    );
    await page.getByRole("link", { name: "Stop filtering by tag three" }).click();
    await page.getByRole("link", { name: "Stop filtering by tag staging" }).click();
    await page.getByText("Checks 1–100 of 320").waitFor();
    // typing filters without Filter and without leaving the page; the search finds a tag
    await page.evaluate(() => Object.assign(window, { sameDocument: true }));
    await page.getByLabel("Search").fill("stag");
    await page.waitForURL(/\?q=stag&sort=name$/);
    await page.waitForFunction(() => document.querySelectorAll("#check-rows tr[data-ref]").length === 20);
    assert.equal(
      await shownNames(),
      jobs((i) => i >= 300),
    );
    await page.getByLabel("Search").fill("job-31");
    await page.waitForFunction(() => document.querySelectorAll("#check-rows tr[data-ref]").length === 10);
    assert.equal(
      await shownNames(),
      jobs((i) => i >= 310 && i < 320),
    );
    await page.getByLabel("Status").selectOption("paused");
    await page.locator("tr.none").getByText("No checks match.").waitFor();
    assert.match(page.url(), /\?q=job-31&status=paused&sort=name$/);
    assert.ok(await page.evaluate(() => "sameDocument" in window), "the page was never left");
    const [noneWidth, tableWidth] = await widths();
    assert.ok(noneWidth > tableWidth * 0.95, `the "No checks match." cell ${noneWidth} px of the table's ${tableWidth} px`);
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
