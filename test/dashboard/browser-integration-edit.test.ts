// Editing integrations in a real browser (Debian's chromium driven by playwright-core) against a real hcd
// process on loopback: the admin opens "Edit" on a telegram integration, changes its chat id, and its
// "Test" reaches the bot API (the server's token) with the new chat; a pushbullet integration's edit form
// shows its token empty ("leave empty to keep"), and after saving it empty the "Test" still carries it.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Browser, Page } from "playwright-core";
import { httpReceiver } from "../notify/receivers.ts";
import type { Captured } from "../notify/receivers.ts";
import type { ProjectJson, RealServer } from "../security/real-server.ts";
import { addChannel, createProject } from "../security/real-server.ts";
import { browserRig, whenChromium } from "./browser-harness.ts";

const TOKEN = "browser-edit-admin-token-0123456789";

await whenChromium("dashboard integration edit browser tests", browserTests);

async function browserTests(): Promise<void> {
  const receiver = await httpReceiver();
  let server: RealServer;
  let browser: Browser;
  let project: ProjectJson;
  let page: Page;

  /** The receiver's first request matching `match`; fails after 15 s of real time (a failure deadline). */
  const requestMatching = async (match: (request: Captured) => boolean): Promise<Captured> => {
    const failAt = Date.now() + 15_000;
    for (;;) {
      const found = receiver.requests.find(match);
      if (found) return found;
      if (Date.now() > failAt) throw new Error(`no matching request; received: ${receiver.requests.map((r) => r.path).join(" ")}`);
      await Promise.race([receiver.nextRequest(), new Promise((resolve) => setTimeout(resolve, 1_000))]);
    }
  };

  test.after(() => receiver.close());
  const { rig } = browserRig({
    ADMIN_TOKEN: TOKEN,
    INTEGRATIONS_ALLOW_PRIVATE_IPS: "true",
    TELEGRAM_BOT_TOKEN: "5:edit-bot",
    TELEGRAM_API_URL: `${receiver.url}/tg`,
    PUSHBULLET_API_URL: `${receiver.url}/pb`,
  });
  test.before(async () => {
    ({ server, browser } = rig());
    project = await createProject(server, TOKEN, { name: "Ops" });
    await addChannel(server, TOKEN, project.id, { kind: "telegram", name: "ops chat", value: { chat_id: 1111 } });
    await addChannel(server, TOKEN, project.id, { kind: "pushbullet", name: "phone", value: { token: "pb-secret-token-1" } });
    const context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    await page.goto(server.url + "/");
    await page.getByLabel("Admin token or API key").fill(TOKEN);
    await page.locator("form[action='/signin']").getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
  });

  test("Edit changes a telegram integration's chat id, and its Test goes to the new chat with the server's bot token", async () => {
    await page.goto(`${server.url}/projects/${project.id}/integrations`);
    await page.getByRole("link", { name: "Edit ops chat" }).click();
    const chat = page.getByLabel("Chat id");
    assert.is(await chat.inputValue(), "1111");
    await chat.fill("not a chat");
    await page.getByRole("button", { name: "Save integration" }).click();
    await page
      .locator("#k-chat_id-error")
      .getByText(/must be a chat id/)
      .waitFor(); // next to its field
    await page.getByLabel("Chat id").fill("2222");
    await page.getByRole("button", { name: "Save integration" }).click();
    await page.getByRole("button", { name: "Test ops chat" }).click();
    await page.getByText("Test notification sent through ops chat: accepted.").waitFor();
    const sent = await requestMatching((r) => r.path === "/tg/bot5:edit-bot/sendMessage");
    assert.is(JSON.parse(sent.body).chat_id, 2222);
  });

  test("a secret is shown empty with 'leave empty to keep', and saved empty the Test still carries the stored token", async () => {
    await page.goto(`${server.url}/projects/${project.id}/integrations`);
    await page.getByRole("link", { name: "Edit phone" }).click();
    const token = page.getByLabel("Access token");
    assert.is(await token.inputValue(), "");
    assert.not.match(await page.content(), "pb-secret-token-1");
    await page.getByText("leave empty to keep the stored one").waitFor();
    await page.getByLabel("Name", { exact: true }).fill("phone 2");
    await page.getByRole("button", { name: "Save integration" }).click();
    await page.getByRole("button", { name: "Test phone 2" }).click();
    await page.getByText("Test notification sent through phone 2: accepted.").waitFor();
    const pushed = await requestMatching((r) => r.path === "/pb/v2/pushes");
    assert.is(pushed.headers["access-token"], "pb-secret-token-1");
  });

  test.run();
}
