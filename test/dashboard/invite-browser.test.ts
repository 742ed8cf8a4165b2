// Invitations in a real browser (Debian's chromium driven by playwright-core) against a real hcd process
// on loopback: a manager invites a new email as a member on the Members page and is shown the link; in
// another browser the link's page sets a password and lands signed in, with the project there and the
// role the invitation named; opening the link again is refused.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { BrowserContext } from "playwright-core";
import type { ProjectJson } from "../security/real-server.ts";
import { call, createProject, ok } from "../security/real-server.ts";
import { browserRig, newContext, signInWithPassword, whenChromium } from "./browser-harness.ts";

const TOKEN = "invite-browser-admin-token-0123456789";
const PASSWORD = "a long enough password";
const admin = { authorization: `Bearer ${TOKEN}` };

await whenChromium("invitation browser tests", async () => {
  const { rig } = browserRig({ ADMIN_TOKEN: TOKEN });
  let project: ProjectJson;
  const contexts: BrowserContext[] = [];
  test.before(async () => {
    const { server } = rig();
    project = await createProject(server, TOKEN, { name: "Ops" });
    const manager = await ok<{ id: string }>(
      call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: "mgr@example.org", password: PASSWORD } }),
    );
    await ok(
      call(server.url, "PUT", `/admin/v1/projects/${project.id}/members/${manager.id}`, { headers: admin, body: { role: "manager" } }),
    );
  });
  test.after.each(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });
  const freshPage = async () => {
    const context = await newContext(rig().browser);
    contexts.push(context);
    return context.newPage();
  };

  test("a manager invites a member; the link sets a password once and signs in with the role", async () => {
    const { server } = rig();
    const managerPage = await freshPage();
    await signInWithPassword(managerPage, server.url, "mgr@example.org", PASSWORD);
    await managerPage.goto(`${server.url}/projects/${project.id}/members`);
    await managerPage.locator("#member-email").fill("newcomer@example.org");
    await managerPage.locator("#member-role").selectOption("member");
    await managerPage.getByRole("button", { name: "Add member" }).click();
    const link = await managerPage.getByLabel("Invitation link").inputValue();
    assert.match(link, /\/invite\/[\w-]{43}$/);
    assert.match((await managerPage.getByRole("status").textContent()) ?? "", /SMTP_URL is not set/);
    assert.match((await managerPage.locator("table.invites").textContent()) ?? "", /newcomer@example\.org\s*member/);

    const invited = await freshPage();
    await invited.goto(link);
    assert.match((await invited.locator("h1").textContent()) ?? "", /Choose a password/);
    await invited.getByLabel("Password").fill(PASSWORD);
    await invited.getByRole("button", { name: "Set password" }).click();
    await invited.getByRole("link", { name: "Account" }).waitFor();
    assert.match((await invited.locator("header .who").textContent()) ?? "", /newcomer@example\.org/);
    await invited.goto(`${new URL(link).origin}/projects/${project.id}/members`); // the link's host (SITE_ROOT), where the session cookie is
    assert.match((await invited.locator("table.members").textContent()) ?? "", /newcomer@example\.org\s*member/);

    const again = await freshPage();
    const answer = await again.goto(link);
    assert.is(answer?.status(), 404);
    assert.match((await again.locator("body").textContent()) ?? "", /unknown, used or expired/);
  });

  test.run();
});
