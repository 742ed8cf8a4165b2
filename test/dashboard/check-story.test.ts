// A check's page in a real browser (Debian's chromium driven by playwright-core) against a real hcd
// process on loopback: its events paged back to the oldest kept, 50 a page; a ping's body viewable from
// its link; a notification that fails among them with its error; usage examples with the check's ping
// URL and email address; the check's badge loading as an SVG image.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Page } from "playwright-core";
import type { ProjectJson } from "../security/real-server.ts";
import { addChannel, call, createProject, ok } from "../security/real-server.ts";
import { browserRig, newContext, signIn, whenChromium } from "./browser-harness.ts";

const TOKEN = "check-story-admin-token-0123456789";
const PINGS = 60; // with the first success's flip (new -> up): 61 events, a page of 50 and one of 11

await whenChromium("check story browser tests", async () => {
  const { rig } = browserRig({
    ADMIN_TOKEN: TOKEN,
    SMTP_PORT: "0",
    EMAIL_DOMAIN: "story.example.org",
    INTEGRATIONS_ALLOW_PRIVATE_IPS: "true",
  }); // inbound SMTP on: the check has an email address
  let page: Page;
  let project: ProjectJson;
  let check: { uuid: string; ping_url: string; badge_url: string; ping_email: string };
  const url = () => rig().server.url;
  const api = <T>(method: string, path: string, body?: unknown) => ok<T>(call(url(), method, path, { key: project.api_key, body }));
  /** The ping numbers of the body links in the events table shown, top to bottom. */
  const bodyLinksShown = async () =>
    (await page.locator("#live-events a[href*='/pings/']").evaluateAll((links) => links.map((a) => a.getAttribute("href") ?? ""))).map(
      (href) => Number(/\/pings\/(\d+)\/body$/.exec(href)?.[1]),
    );
  const countdown = (from: number, to: number) => Array.from({ length: from - to + 1 }, (_, i) => from - i);

  test.before(async () => {
    project = await createProject(rig().server, TOKEN, { name: "Story" });
    check = await api("POST", "/api/v3/checks/", { name: "nightly backup" });
    for (let n = 1; n <= PINGS; n++) {
      const answer = await call(url(), "POST", `/ping/${check.uuid}`, { body: `ping body ${n}` });
      assert.is(answer.status, 200, `ping ${n}`);
    }
    page = await (await newContext(rig().browser)).newPage();
    await signIn(page, url(), TOKEN);
  });

  test("the check page shows the newest 50 events, and 'Older events' the rest down to the first ping", async () => {
    await page.goto(`${url()}/checks/${check.uuid}`);
    assert.is(await page.locator("#live-events tbody tr").count(), 50);
    assert.equal(await bodyLinksShown(), countdown(60, 11), "the newest 50 pings, newest first");
    assert.is(await page.getByRole("link", { name: "Newest" }).count(), 0, "the newest page links to no newer one");
    await page.getByRole("link", { name: "Older events" }).click();
    await page.waitForURL(/\?events=2$/);
    assert.is(await page.locator("#live-events tbody tr").count(), 11);
    assert.equal(await bodyLinksShown(), countdown(10, 1), "the rest, down to the first ping");
    assert.match(await page.locator("#live-events tr.flip").innerText(), /status changed: new → .*up/);
    assert.is(await page.getByRole("link", { name: "Older events" }).count(), 0, "nothing older is kept");
    await page.getByRole("link", { name: "Newest" }).click();
    await page.waitForURL(`${url()}/checks/${check.uuid}`);
    assert.equal((await bodyLinksShown())[0], 60);
  });

  test("a page number that is not one is a 400, not a page", async () => {
    const answer = await page.goto(`${url()}/checks/${check.uuid}?events=0`);
    assert.is(answer?.status(), 400);
  });

  test("a ping's body link shows the body it sent", async () => {
    await page.goto(`${url()}/checks/${check.uuid}?events=2`);
    await page.locator("#live-events a[href$='/pings/1/body']").click();
    await page.waitForURL(/\/pings\/1\/body$/);
    assert.is((await page.locator("body").innerText()).trim(), "ping body 1");
  });

  test("the usage examples (crontab, Bash, Python, Node.js, PowerShell) each hold the check's ping URL, and the email one its address", async () => {
    await page.goto(`${url()}/checks/${check.uuid}`);
    const names = ["Crontab", "Bash", "Python", "Node.js", "PowerShell"];
    assert.equal(await page.locator("details.usage summary").allInnerTexts(), [...names, "Email"]);
    for (const name of names) {
      const block = page.locator("details.usage", { has: page.locator("summary", { hasText: name }) });
      await block.locator("summary").click();
      assert.ok((await block.locator("pre").innerText()).includes(check.ping_url), `${name} pings ${check.ping_url}`);
    }
    const email = page.locator("details.usage", { has: page.locator("summary", { hasText: "Email" }) });
    await email.locator("summary").click();
    assert.ok((await email.locator("pre").innerText()).includes(check.ping_email), `the email example names ${check.ping_email}`);
  });

  test("the check's badge loads as an SVG image, and its URL to copy is the API's badge_url", async () => {
    const badge = page.waitForResponse((response) => new URL(response.url()).pathname.startsWith("/b/"));
    await page.goto(`${url()}/checks/${check.uuid}`);
    const response = await badge;
    assert.is(response.status(), 200);
    assert.is(response.headers()["content-type"], "image/svg+xml");
    assert.ok(
      await page.locator(".check-badge img").evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0),
      "the image is drawn",
    );
    assert.is(await page.getByRole("button", { name: "Copy badge URL" }).getAttribute("data-copy"), check.badge_url);
  });

  test("a notification that cannot be delivered shows among the check's events with its error", async () => {
    await addChannel(rig().server, TOKEN, project.id, { kind: "webhook", name: "dead hook", value: "http://127.0.0.1:9/hook" });
    const alerting = await api<{ uuid: string }>("POST", "/api/v3/checks/", { name: "alerting job", channels: "*" });
    assert.is((await call(url(), "POST", `/ping/${alerting.uuid}/fail`)).status, 200);
    await page.goto(`${url()}/checks/${alerting.uuid}`);
    const failed = page.locator("#live-events tr.notice-error");
    await failed.waitFor({ timeout: 30_000 }); // the page refreshes itself until the first attempt has failed
    assert.match(
      await failed.innerText(),
      /notification of "down" via dead hook: delivery failed \(\d+ attempts?\), next try \d{4}-\d\d-\d\d [\d:]+ \S+: \S/,
      "the state and the error",
    );
  });

  // last: its ping moves every page of events by one
  test("an older page of events keeps refreshing itself and shows its times in the viewer's zone", async () => {
    const context = await newContext(rig().browser, { timezoneId: "Asia/Kolkata" });
    const viewer = await context.newPage();
    await signIn(viewer, url(), TOKEN);
    await viewer.goto(`${url()}/checks/${check.uuid}?events=2`);
    const firstRow = viewer.locator("#live-events tbody tr").first();
    await firstRow.locator("a[href$='/pings/10/body']").waitFor();
    const time = firstRow.locator("time");
    assert.match(await time.innerText(), /GMT\+5:30|IST/, "the viewer's zone");
    assert.match((await time.getAttribute("title")) ?? "", / UTC$/, "UTC on hover");
    assert.is((await call(url(), "POST", `/ping/${check.uuid}`, { body: "one more" })).status, 200);
    await firstRow.locator("a[href$='/pings/11/body']").waitFor(); // the 51st newest event now: page 2's first
    assert.match(await firstRow.locator("time").innerText(), /GMT\+5:30|IST/, "a refreshed row's time in the viewer's zone too");
    await context.close();
  });

  test.run();
});
