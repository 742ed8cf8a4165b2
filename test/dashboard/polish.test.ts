// Rough edges of the dashboard fixed, in a real browser (Debian's chromium driven by playwright-core)
// against a real hcd process on loopback: a description saved unchanged stays byte for byte as stored;
// Copy works, or says to copy by hand and selects the text where the browser has no clipboard; a phone's
// events table keeps its header over its cells and breaks no word mid-letter, and no page is wider than
// the phone (the header's links wrap, tables scroll in their own box); removing an integration and
// saving the project mute say so; an unknown address gets the dashboard's 404 page; the first Tab reaches a
// skip link, and every Copy button has a name of its own.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Page } from "playwright-core";
import type { ProjectJson } from "../security/real-server.ts";
import { addChannel, call, createProject, ok } from "../security/real-server.ts";
import { browserRig, newContext, signIn, whenChromium } from "./browser-harness.ts";

const TOKEN = "polish-admin-token-0123456789";

await whenChromium("dashboard polish browser tests", async () => {
  const { rig } = browserRig({ ADMIN_TOKEN: TOKEN, INTEGRATIONS_ALLOW_PRIVATE_IPS: "true" });
  let page: Page;
  let project: ProjectJson;
  const url = () => rig().server.url;
  const api = <T>(method: string, path: string, body?: unknown) => ok<T>(call(url(), method, path, { key: project.api_key, body }));
  const createCheck = async (body: Record<string, unknown>) => (await api<{ uuid: string }>("POST", "/api/v3/checks/", body)).uuid;

  test.before(async () => {
    project = await createProject(rig().server, TOKEN, { name: "Ops" });
    page = await (await newContext(rig().browser)).newPage();
    await signIn(page, url(), TOKEN);
  });

  const descriptions: [string, string][] = [
    ["line breaks", "line1\nline2"],
    ["a leading line break and trailing spaces", "\nfirst line was empty\n  "],
    ["line breaks stored as CR LF", "dos\r\nlines\r\n"],
  ];
  for (const [what, desc] of descriptions) {
    test(`a description with ${what}, saved through Edit untouched, stays exactly as stored`, async () => {
      const uuid = await createCheck({ name: `desc ${what}`, desc });
      await page.goto(`${url()}/checks/${uuid}/edit`);
      await page.getByRole("button", { name: "Save" }).click();
      await page.getByText("Changes saved.").waitFor();
      assert.is((await api<{ desc: string }>("GET", `/api/v3/checks/${uuid}`)).desc, desc);
    });
  }

  test("a description edited in the form is stored with the line breaks an API client would write (LF)", async () => {
    const uuid = await createCheck({ name: "desc edited", desc: "old" });
    await page.goto(`${url()}/checks/${uuid}/edit`);
    await page.getByLabel("Description").fill("new\nlines");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Changes saved.").waitFor();
    assert.is((await api<{ desc: string }>("GET", `/api/v3/checks/${uuid}`)).desc, "new\nlines");
  });

  test("Copy where the browser has no clipboard says to copy by hand and selects the command", async () => {
    const uuid = await createCheck({ name: "copy without clipboard" });
    const context = await newContext(rig().browser);
    await context.addInitScript(() => {
      Object.defineProperty(Navigator.prototype, "clipboard", { get: () => undefined, configurable: true });
    });
    const bare = await context.newPage();
    await signIn(bare, url(), TOKEN);
    await bare.goto(`${url()}/checks/${uuid}`);
    const copy = bare.getByRole("button", { name: "Copy" }).first();
    const command = await copy.getAttribute("data-copy");
    await copy.click();
    await bare.getByRole("button", { name: "Select and copy by hand" }).waitFor();
    assert.is(await bare.evaluate(() => window.getSelection()?.toString()), command);
    await context.close();
  });

  test("Copy where the browser has a clipboard puts the command there and says 'Copied'", async () => {
    const uuid = await createCheck({ name: "copy with clipboard" });
    const context = await newContext(rig().browser, { permissions: ["clipboard-read", "clipboard-write"] });
    const full = await context.newPage();
    await signIn(full, url(), TOKEN);
    await full.goto(`${url()}/checks/${uuid}`);
    const copy = full.getByRole("button", { name: "Copy" }).first();
    const command = await copy.getAttribute("data-copy");
    await copy.click();
    await full.getByRole("button", { name: "Copied" }).waitFor();
    assert.is(await full.evaluate(() => navigator.clipboard.readText()), command);
    await context.close();
  });

  /** The number of lines the single word in `cell` takes (more than one: it was broken mid-letter). */
  const linesOfWord = (cell: HTMLElement) => {
    const range = document.createRange();
    range.selectNodeContents(cell);
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
  };

  test("on a phone no page is wider than the screen, the events table's header stands over its own cells, and no single word in it or in integrations breaks mid-letter", async () => {
    const uuid = await createCheck({ name: "phone" });
    assert.is((await call(url(), "POST", `/ping/${uuid}`, { body: "done" })).status, 200);
    await addChannel(rig().server, TOKEN, project.id, { kind: "webhook", name: "webhook", value: "http://127.0.0.1:9/hook" });
    const context = await newContext(rig().browser, { viewport: { width: 390, height: 844 } });
    const phone = await context.newPage();
    await signIn(phone, url(), TOKEN);
    await phone.goto(`${url()}/checks/${uuid}`);
    await notWiderThanTheScreen(phone, "a check's page");
    const lefts = (selector: string) =>
      phone
        .locator(selector)
        .evaluateAll((cells) =>
          cells.filter((c) => getComputedStyle(c).display !== "none").map((c) => Math.round(c.getBoundingClientRect().left)),
        );
    const heads = await lefts("table.events thead th");
    const cells = await lefts("table.events tr.ping >> nth=0 >> td");
    assert.equal(heads, cells, "each visible header starts where its column's cells do");
    assert.ok(heads.length >= 4, "the table still shows its columns");
    const words = async () =>
      phone.locator("table.list :is(th, td, button, a)").evaluateAll(
        (all, count) =>
          all
            // a word shown (not one for screen readers only, which sits in a 1-pixel box)
            .filter(
              (el) =>
                /^\S+$/.test(el.textContent?.trim() ?? "") &&
                getComputedStyle(el).display !== "none" &&
                el.querySelector(".visually-hidden") === null,
            )
            // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the page's side: the counting function comes over as its source
            .map((el) => [el.textContent?.trim(), new Function("cell", `return (${count})(cell)`)(el)]),
        linesOfWord.toString(),
      );
    const broken = (found: unknown[][]) => found.filter(([, lines]) => lines !== 1);
    const eventWords = await words();
    assert.ok(
      eventWords.some(([word]) => word === "success"),
      "the kind column was looked at",
    );
    assert.equal(broken(eventWords), [], "no word of the events table is broken");
    await phone.goto(`${url()}/projects/${project.id}/integrations`);
    const integrationWords = await words();
    assert.ok(
      integrationWords.some(([word]) => word === "Remove"),
      "the buttons were looked at",
    );
    assert.equal(broken(integrationWords), [], "no word of the integrations table is broken");
    await notWiderThanTheScreen(phone, "the integrations page");
    await phone.goto(`${url()}/projects/${project.id}/checks`);
    await notWiderThanTheScreen(phone, "the checks list");
    // each label of the filter form on the line of its field
    const apart = await phone.locator("form.filters label").evaluateAll((labels) =>
      labels
        .map((label) => [label, document.getElementById(label.getAttribute("for") ?? "")] as const)
        .filter(([label, field]) => field === null || Math.abs(label.getBoundingClientRect().top - field.getBoundingClientRect().top) > 12)
        .map(([label]) => label.textContent),
    );
    assert.equal(apart, [], "labels away from their fields");
    await context.close();
  });

  /** Fails unless `phone`'s page scrolls no sideways and every header link is within the screen. */
  const notWiderThanTheScreen = async (phone: Page, what: string) => {
    const { scroll, screen, outside } = await phone.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      screen: document.documentElement.clientWidth,
      outside: [...document.querySelectorAll("header a")]
        .filter((a) => a.getBoundingClientRect().right > document.documentElement.clientWidth)
        .map((a) => a.textContent),
    }));
    assert.ok(scroll <= screen, `${what}: ${scroll} px wide on a ${screen} px screen`);
    assert.equal(outside, [], `${what}: header links off the screen`);
  };

  test("removing an integration ends on the integrations page with 'Integration removed.'", async () => {
    await addChannel(rig().server, TOKEN, project.id, { kind: "email", name: "short-lived", value: "gone@example.com" });
    await page.goto(`${url()}/projects/${project.id}/integrations`);
    await page.getByRole("link", { name: "Remove short-lived" }).click();
    await page.getByRole("button", { name: "Remove for good" }).click();
    await page.getByText("Integration removed.").waitFor();
    assert.is(await page.getByRole("cell", { name: "short-lived", exact: true }).count(), 0);
  });

  test("saving the project mute ends on the settings page with 'Maintenance mute saved.'", async () => {
    await page.goto(`${url()}/projects/${project.id}/settings`);
    await page.getByLabel(/^Mute the project's notifications until/).fill("2099-01-01T00:00:00Z");
    await page.getByRole("button", { name: "Save mute" }).click();
    await page.getByText("Maintenance mute saved.").waitFor();
    await page.getByText("Notifications of every check are muted until").waitFor();
  });

  test("the first Tab of a page reaches 'Skip to content', which leads to the page's main part", async () => {
    const uuid = await createCheck({ name: "keyboard" });
    await page.goto(`${url()}/checks/${uuid}`);
    await page.keyboard.press("Tab");
    assert.is(await page.evaluate(() => document.activeElement?.textContent), "Skip to content");
    await page.keyboard.press("Enter");
    assert.is(await page.evaluate(() => document.activeElement?.id), "main");
  });

  /** The names the browser gives the page's Copy buttons (every <details> opened, so that none is hidden). */
  const copyButtonNames = async (path: string): Promise<{ names: string[]; buttons: number }> => {
    await page.goto(`${url()}${path}`);
    await page.evaluate(() =>
      document.querySelectorAll("details").forEach((d) => {
        d.open = true;
      }),
    );
    const snapshot = await page.locator("main").ariaSnapshot();
    const names = [...snapshot.matchAll(/- button "([^"]*)"/g)].map((m) => m[1]).filter((name) => /^copy/i.test(name));
    return { names, buttons: await page.locator("main button[data-copy]").count() };
  };

  test("every Copy button of the check page and of the settings has a name of its own", async () => {
    const uuid = await createCheck({ name: "copy names", slug: "copy-names" });
    for (const path of [`/checks/${uuid}`, `/projects/${project.id}/settings`]) {
      const { names, buttons } = await copyButtonNames(path);
      assert.ok(buttons >= 3, `${path}: ${buttons} Copy buttons`);
      assert.is(names.length, buttons, `${path}: ${names.join(" | ")}`);
      assert.is(new Set(names).size, names.length, `${path}: ${names.join(" | ")}`);
    }
  });

  test("an unknown address gets the dashboard's 404 page; the APIs and pings keep their own answers", async () => {
    const answer = await page.goto(`${url()}/no/such/page`);
    assert.is(answer?.status(), 404);
    assert.match(answer?.headers()["content-type"] ?? "", "text/html");
    await page.getByRole("heading", { name: "Error 404" }).waitFor();
    await page.getByRole("link", { name: "Back" }).waitFor();
    const apiAnswer = await call(url(), "GET", "/api/v3/no-such");
    assert.equal([apiAnswer.status, JSON.parse(apiAnswer.text)], [404, { error: "not found" }]);
    const pingAnswer = await call(url(), "GET", "/ping/a/b/c/d");
    assert.equal([pingAnswer.status, pingAnswer.headers.get("content-type")?.startsWith("text/plain")], [404, true]);
  });

  test.run();
});
