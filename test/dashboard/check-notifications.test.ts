// A check's delivered notifications among its events, in a real browser (Debian's chromium driven by
// playwright-core) against a real hcd process (CLOCK=virtual) and a real local webhook receiver: the
// down, its reminder and the recovery each show as sent once the receiver has them; a read-only key sees
// none of them.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Page } from "playwright-core";
import type { ProjectJson } from "../security/real-server.ts";
import { addChannel, call, createProject, ok } from "../security/real-server.ts";
import { httpReceiver } from "../notify/receivers.ts";
import { browserRig, newContext, signIn, whenChromium } from "./browser-harness.ts";

const TOKEN = "check-notifications-admin-token-0123456789";

await whenChromium("check notifications browser tests", async () => {
  const { rig } = browserRig({ ADMIN_TOKEN: TOKEN, CLOCK: "virtual", INTEGRATIONS_ALLOW_PRIVATE_IPS: "true" });
  let page: Page;
  let project: ProjectJson;
  let receiver: Awaited<ReturnType<typeof httpReceiver>>;
  const url = () => rig().server.url;
  const admin = { authorization: `Bearer ${TOKEN}` };
  const api = <T>(method: string, path: string, body?: unknown) => ok<T>(call(url(), method, path, { key: project.api_key, body }));
  const sentRows = (uuid: string) =>
    page.goto(`${url()}/checks/${uuid}`).then(() => page.locator("#live-events tr.notice-sent").allInnerTexts());
  /** The check page's sent rows once there are `count` of them (the page refreshes itself every few seconds). */
  const sentRowsWhen = async (uuid: string, count: number) => {
    await page.goto(`${url()}/checks/${uuid}`);
    await page
      .locator("#live-events tr.notice-sent")
      .nth(count - 1)
      .waitFor({ timeout: 30_000 });
    return page.locator("#live-events tr.notice-sent td:nth-child(2)").allInnerTexts();
  };

  test.before(async () => {
    receiver = await httpReceiver();
    project = await createProject(rig().server, TOKEN, { name: "Alerts" });
    await addChannel(rig().server, TOKEN, project.id, { kind: "webhook", name: "local hook", value: `${receiver.url}/hook` });
    page = await (await newContext(rig().browser)).newPage();
    await signIn(page, url(), project.api_key);
  });

  test.after(async () => {
    await receiver?.close();
  });

  test("a down, its reminder and the recovery each show as sent, newest first, once the receiver has them", async () => {
    const check = await api<{ ping_url: string }>("POST", "/api/v3/checks/", {
      name: "alerting",
      timeout: 3600,
      reminder_interval: 300,
      channels: "*",
    });
    const uuid = check.ping_url.split("/").pop() ?? "";
    assert.equal(await sentRows(uuid), [], "nothing sent yet");
    const down = receiver.nextRequest();
    assert.is((await call(url(), "POST", `/ping/${uuid}/fail`)).status, 200);
    assert.match((await down).body, '"status": "down"');
    assert.equal(await sentRowsWhen(uuid, 1), ['notification of "down" sent via local hook']);
    const reminder = receiver.nextRequest();
    await ok(call(url(), "POST", "/admin/v1/clock", { headers: admin, body: { advance: 300 } }));
    await reminder;
    assert.equal(await sentRowsWhen(uuid, 2), ["reminder 1 sent via local hook", 'notification of "down" sent via local hook']);
    const up = receiver.nextRequest();
    assert.is((await call(url(), "POST", `/ping/${uuid}`)).status, 200);
    assert.match((await up).body, '"status": "up"');
    assert.equal(await sentRowsWhen(uuid, 3), [
      'notification of "up" sent via local hook',
      "reminder 1 sent via local hook",
      'notification of "down" sent via local hook',
    ]);
  });

  test("a read-only key sees no notifications in the events", async () => {
    const readonly = await (await newContext(rig().browser)).newPage();
    await signIn(readonly, url(), project.api_key_readonly);
    const { checks } = await ok<{ checks: { name: string; unique_key: string }[] }>(
      call(url(), "GET", "/api/v3/checks/", { key: project.api_key_readonly }),
    );
    const check = checks.find((c) => c.name === "alerting");
    assert.ok(check);
    await readonly.goto(`${url()}/checks/${check.unique_key}`);
    await readonly.locator("#live-events tr.flip").first().waitFor(); // its status changes are there
    assert.is(await readonly.locator("#live-events tr.notice-sent").count(), 0);
    await readonly.context().close();
  });

  test.run();
});
