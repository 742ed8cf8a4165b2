// Pages that show state keep themselves fresh, in a real browser (Debian's chromium driven by
// playwright-core) against a real hcd process on loopback: the projects list, a check's page and the
// integrations page each show a change made elsewhere without a reload, say so in a banner when their
// session ended or the server stops answering, and recover by themselves (banner gone, data fresh); a
// check's page deleted elsewhere says so.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { BrowserContext, Page } from "playwright-core";
import type { ProjectJson } from "../security/real-server.ts";
import { addChannel, call, createProject, ok } from "../security/real-server.ts";
import { browserRig, newContext, signIn, whenChromium } from "./browser-harness.ts";

const TOKEN = "live-pages-admin-token-0123456789";

await whenChromium("dashboard live page browser tests", async () => {
  const { rig } = browserRig({ ADMIN_TOKEN: TOKEN });
  let context: BrowserContext;
  let page: Page;
  let project: ProjectJson;
  let uuid: string;
  const url = () => rig().server.url;

  test.before(async () => {
    project = await createProject(rig().server, TOKEN, { name: "Ops" });
    uuid = (
      await ok<{ uuid: string }>(call(url(), "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "nightly", timeout: 3600 } }))
    ).uuid;
    context = await newContext(rig().browser, { liveRefreshMs: 500 }); // what a refresh shows, ten times as often
    page = await context.newPage();
    await signIn(page, url(), TOKEN);
  });

  /** Opens `path` and marks the document, so that a test can tell that what it sees came without a reload. */
  const open = async (path: string) => {
    await page.goto(url() + path);
    await page.evaluate(() => {
      document.documentElement.dataset.loadedOnce = "yes";
    });
  };
  const notReloaded = async () =>
    assert.is(await page.evaluate(() => document.documentElement.dataset.loadedOnce), "yes", "the page was not reloaded");

  /** A page, what changes it from outside, and what then shows on it. */
  const pages: {
    name: string;
    path: () => string;
    change: (n: number) => Promise<void>;
    shows: (n: number) => ReturnType<Page["locator"]>;
  }[] = [
    {
      name: "the projects list",
      path: () => "/",
      change: async (n) => {
        await createProject(rig().server, TOKEN, { name: `made elsewhere ${n}` });
      },
      shows: (n) => page.getByRole("link", { name: `made elsewhere ${n}` }),
    },
    {
      name: "a check's page",
      path: () => `/checks/${uuid}`,
      change: async (n) => {
        const answer = await call(url(), "POST", `/api/v3/checks/${uuid}`, {
          key: project.api_key,
          body: { desc: `changed elsewhere ${n}` },
        });
        assert.is(answer.status, 200);
        assert.is((await call(url(), "GET", `/ping/${uuid}`)).status, 200);
      },
      shows: (n) => page.locator("#live-details").getByText(`changed elsewhere ${n}`),
    },
    {
      name: "the integrations page",
      path: () => `/projects/${project.id}/integrations`,
      change: async (n) => {
        await addChannel(rig().server, TOKEN, project.id, { kind: "email", name: `hook ${n}`, value: `ops${n}@example.com` });
      },
      shows: (n) => page.getByRole("cell", { name: `hook ${n}`, exact: true }),
    },
  ];

  let n = 0;
  for (const shown of pages) {
    test(`${shown.name} shows a change made elsewhere without a reload`, async () => {
      await open(shown.path());
      const mine = ++n;
      await shown.change(mine);
      await shown.shows(mine).waitFor();
      await notReloaded();
    });

    test(`${shown.name} says 'Signed out' when the session ends in another tab, and clears it after signing in again`, async () => {
      await open(shown.path());
      const other = await context.newPage();
      await other.goto(url() + "/");
      await other.getByRole("button", { name: "Sign out" }).click();
      await other.getByLabel("Admin token or API key").waitFor();
      await page.getByText("Signed out: sign in again").waitFor();
      await signIn(other, url(), TOKEN);
      await page.locator("#connection-banner").waitFor({ state: "detached" });
      await other.close();
      await notReloaded();
    });

    test(`${shown.name} says the server is not answering while it is away, and shows what changed meanwhile when it is back`, async () => {
      await open(shown.path());
      const target = url() + shown.path();
      await page.route(target, (route) => route.abort("connectionrefused"));
      await page.getByText("The server is not answering, retrying…").waitFor();
      const mine = ++n;
      await shown.change(mine);
      await page.unroute(target);
      await page.locator("#connection-banner").waitFor({ state: "detached" });
      await shown.shows(mine).waitFor();
      await notReloaded();
    });
  }

  test("a check's page shows its status as it changes (new, then up after a ping) without a reload", async () => {
    const fresh = (
      await ok<{ uuid: string }>(call(url(), "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "fresh one" } }))
    ).uuid;
    await open(`/checks/${fresh}`);
    assert.is(await page.locator("#live-state .word").textContent(), "new");
    assert.is((await call(url(), "GET", `/ping/${fresh}`)).status, 200);
    await page.locator("#live-state .word", { hasText: "up" }).waitFor();
    await notReloaded();
  });

  test("a check's badge image follows its status without a reload (up, then down after a failure)", async () => {
    const made = await ok<{ uuid: string; badge_url: string }>(
      call(url(), "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "badged" } }),
    );
    // the badge's width is its words' ("badged" and "up" or "down"): the server's own image of each state
    const badgeWidth = async () => Number(/width="(\d+)"/.exec((await call(url(), "GET", new URL(made.badge_url).pathname)).text)?.[1]);
    const upWidth = await badgeWidth();
    await open(`/checks/${made.uuid}`);
    const shownWidth = () => page.locator(".check-badge img").evaluate((img: HTMLImageElement) => (img.complete ? img.naturalWidth : -1));
    await page.waitForFunction((width) => document.querySelector<HTMLImageElement>(".check-badge img")?.naturalWidth === width, upWidth);
    assert.is((await call(url(), "GET", `/ping/${made.uuid}/fail`)).status, 200);
    await page.locator("#live-state .word", { hasText: "down" }).waitFor();
    const downWidth = await badgeWidth();
    assert.ok(downWidth > upWidth, `the down badge (${downWidth} px) is wider than the up one (${upWidth} px)`);
    await page.waitForFunction((width) => document.querySelector<HTMLImageElement>(".check-badge img")?.naturalWidth === width, downWidth);
    assert.is(await shownWidth(), downWidth);
    await notReloaded();
  });

  test("an open page that shows nothing new is answered 304 with no body, from its first refresh on", async () => {
    const target = url() + `/projects/${project.id}/integrations`;
    await open(`/projects/${project.id}/integrations`);
    for (let i = 0; i < 2; i++) {
      const refresh = await page.waitForResponse((response) => response.url() === target && response.request().resourceType() === "fetch");
      assert.is(refresh.status(), 304, `refresh ${i + 1}`);
    }
  });

  test("an open check page says the page no longer exists when the check is deleted elsewhere", async () => {
    const doomed = (await ok<{ uuid: string }>(call(url(), "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "doomed" } })))
      .uuid;
    await open(`/checks/${doomed}`);
    assert.is((await call(url(), "DELETE", `/api/v3/checks/${doomed}`, { key: project.api_key })).status, 200);
    await page.getByText("This page no longer exists (deleted?).").waitFor();
    await notReloaded();
  });

  test.run();
});
