// Users in a real browser (Debian's chromium driven by playwright-core) against a real hcd process on
// loopback and a real SMTP receiver: sign-in with the Email and Password fields, a readonly user who is
// shown no controls, a member refused a manager's action (removing an integration), a session signed out
// from the account page of another browser; a person's own profile (a new email by the link mailed to it,
// a new password, deleting the account); an instance admin's /users page (make admin, remove) and a
// project's Limits form.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { ProjectJson, RealServer } from "../security/real-server.ts";
import { addChannel, call, createProject, ok } from "../security/real-server.ts";
import type { MailReceiver } from "./browser-harness.ts";
import { browserRig, signInWithPassword, whenChromium } from "./browser-harness.ts";

const TOKEN = "users-browser-admin-token-0123456789";
const PASSWORD = "a long enough password";
const admin = { authorization: `Bearer ${TOKEN}` };

await whenChromium("users browser tests", browserTests);

async function browserTests(): Promise<void> {
  let server: RealServer;
  let browser: Browser;
  let project: ProjectJson;
  let checkUuid = "";
  let channelId = "";
  const contexts: BrowserContext[] = [];

  /** Makes a user with `role` in the project through the admin API. */
  const user = async (email: string, role: string) => {
    const made = await ok<{ id: string }>(
      call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email, password: PASSWORD } }),
    );
    await ok(call(server.url, "PUT", `/admin/v1/projects/${project.id}/members/${made.id}`, { headers: admin, body: { role } }));
  };
  /** A fresh browser profile signed in through the Email and Password fields, on `path` (a page asked for signed out: the sign-in page, then that page). */
  const signedIn = async (email: string, path = "/"): Promise<Page> => {
    const context = await browser.newContext();
    contexts.push(context);
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    await signInWithPassword(page, server.url, email, PASSWORD, { next: path });
    return page;
  };

  const { rig, mail } = browserRig({ ADMIN_TOKEN: TOKEN, INTEGRATIONS_ALLOW_PRIVATE_IPS: "true" }, { withMail: true });
  test.before(async () => {
    ({ server, browser } = rig());
    project = await createProject(server, TOKEN, { name: "Ops" });
    await createProject(server, TOKEN, { name: "Other team" });
    checkUuid = (
      await ok<{ uuid: string }>(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "Nightly backup" } }))
    ).uuid;
    channelId = (await addChannel(server, TOKEN, project.id, { kind: "webhook", name: "Hook", value: "http://127.0.0.1:9/hook" })).id;
    await ok(call(server.url, "POST", "/api/v3/checks/" + checkUuid, { key: project.api_key, body: { channels: "*" } }));
  });

  test("a wrong password is refused with the same words as an unknown email", async () => {
    await user("someone@example.org", "member");
    const context = await browser.newContext();
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(server.url + "/");
    for (const email of ["someone@example.org", "nobody@example.org"]) {
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill("not the password");
      await page.locator("form[action='/signin/password']").getByRole("button", { name: "Sign in" }).click();
      await page.getByText("Wrong email or password.").waitFor();
    }
    assert.is(await page.getByRole("link", { name: "Account" }).count(), 0);
  });

  test("a readonly user sees their project only, and no control that changes anything", async () => {
    await user("reader@example.org", "readonly");
    const page = await signedIn("reader@example.org");
    assert.is(await page.getByRole("link", { name: "Other team" }).count(), 0);
    await page.getByRole("link", { name: "Ops" }).click();
    await page.getByRole("link", { name: "Nightly backup" }).waitFor();
    assert.is(await page.getByRole("link", { name: "Add check" }).count(), 0);
    assert.is(await page.getByRole("link", { name: "Integrations" }).count(), 0);
    await page.getByRole("link", { name: "Nightly backup" }).click();
    await page.getByRole("heading", { name: "Nightly backup" }).waitFor();
    for (const name of ["Pause", "Delete", "Edit", "Ping now"]) {
      assert.is(
        (await page.getByRole("button", { name }).count()) + (await page.getByRole("link", { name, exact: true }).count()),
        0,
        name,
      );
    }
    assert.not.match(page.url(), new RegExp(checkUuid), "a readonly user's links name no check uuid");
  });

  test("a member may pause a check but is refused removing an integration, which stays", async () => {
    await user("member@example.org", "member");
    const page = await signedIn("member@example.org");
    await page.goto(`${server.url}/checks/${checkUuid}`);
    await page.getByRole("button", { name: "Pause" }).click();
    await page.getByRole("button", { name: "Resume" }).waitFor();
    await page.goto(`${server.url}/projects/${project.id}/integrations`);
    await page.getByRole("button", { name: "Test Hook" }).waitFor();
    assert.is(await page.getByRole("link", { name: "Remove Hook" }).count(), 0, "no control the role does not allow");
    await page.goto(`${server.url}/projects/${project.id}/integrations/${channelId}/remove`);
    await page.getByText("the role member in this project does not allow this").waitFor();
    const { channels } = await ok<{ channels: { id: string }[] }>(
      call(server.url, "GET", `/admin/v1/projects/${project.id}/channels`, { headers: admin }),
    );
    assert.equal(
      channels.map((c) => c.id),
      [channelId],
    );
  });

  test("a session signed out on the account page of another browser ends", async () => {
    await user("two@example.org", "owner");
    const first = await signedIn("two@example.org");
    const second = await signedIn("two@example.org");
    await second.getByRole("link", { name: "Account" }).click();
    const rows = second.locator("table.sessions tbody tr");
    assert.is(await rows.count(), 2);
    await rows
      .filter({ hasNotText: "this browser" })
      .getByRole("button", { name: /Sign out/ })
      .click();
    await second.getByText("Session signed out.").waitFor();
    assert.is(await rows.count(), 1);
    await first.goto(`${server.url}/projects/${project.id}/checks`);
    await first.locator("form[action='/signin/password']").waitFor(); // sent back to the sign-in page
    await second.goto(`${server.url}/projects/${project.id}/checks`);
    await second.getByRole("link", { name: "Nightly backup" }).waitFor();
  });

  test("a person changes their email by the link mailed to it, then their password, then deletes their account", async () => {
    await user("pat@example.org", "member");
    const page = await signedIn("pat@example.org", "/account");
    await page.getByLabel("New email", { exact: true }).fill("pat.new@example.org");
    await page.getByLabel("Password, to confirm the new email").fill(PASSWORD);
    await page.getByRole("button", { name: "Change email" }).click();
    await page.getByText("A link to confirm pat.new@example.org is on its way to that address.").waitFor();
    assert.is(await page.getByText("Signed in as pat@example.org.").count(), 1, "not changed before the link is opened");
    const failAt = Date.now() + 10_000; // a failure deadline: the mail must come
    const sentTo = (m: MailReceiver["mails"][number]) => (m.to && "text" in m.to ? m.to.text : "") === "pat.new@example.org";
    while (!mail().mails.some(sentTo)) {
      if (Date.now() > failAt) throw new Error("no confirmation mail within 10 s");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const link = /https?:\/\/\S+\/invite\/[\w-]{43}/.exec(mail().mails.find(sentTo)?.text ?? "")?.[0] ?? "";
    await page.goto(server.url + new URL(link).pathname); // SITE_ROOT names localhost, the browser signed in at server.url
    await page.getByRole("button", { name: "Confirm new email" }).click();
    await page.getByText("Your email is now pat.new@example.org. Every other session has been signed out.").waitFor();
    await page.getByText("Signed in as pat.new@example.org.").waitFor();

    await page.getByLabel("Current password").fill(PASSWORD);
    await page.getByLabel("New password", { exact: true }).fill("pat's second password");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("Password changed.").waitFor();

    await page.getByLabel("Password, to confirm the deletion").fill("pat's second password"); // the new one: the old is refused
    await page.getByRole("button", { name: "Delete my account" }).click();
    await page.locator("form[action='/signin/password']").waitFor(); // signed out, on the sign-in page
    const { users } = await ok<{ users: { email: string }[] }>(call(server.url, "GET", "/admin/v1/users", { headers: admin }));
    assert.not.ok(
      users.some((u) => u.email.startsWith("pat")),
      JSON.stringify(users.map((u) => u.email)),
    );
  });

  test("an instance admin makes a user admin and removes another on /users, and sets a project's limits", async () => {
    await ok(
      call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: "boss@example.org", password: PASSWORD, admin: true } }),
    );
    const page = await signedIn("boss@example.org", "/users");
    await page.getByRole("button", { name: "Make instance admin: member@example.org" }).click();
    await page.getByRole("button", { name: "Take instance admin from member@example.org" }).waitFor();
    await page.getByRole("button", { name: "Remove two@example.org" }).click();
    await page.getByRole("button", { name: "Remove reader@example.org" }).waitFor(); // the page again
    assert.is(await page.getByRole("cell", { name: "two@example.org" }).count(), 0);
    const { users } = await ok<{ users: { email: string; admin: boolean }[] }>(
      call(server.url, "GET", "/admin/v1/users", { headers: admin }),
    );
    assert.equal(
      users.filter((u) => ["member@example.org", "two@example.org"].includes(u.email)).map((u) => [u.email, u.admin]),
      [["member@example.org", true]],
    );

    await page.goto(`${server.url}/projects/${project.id}/manage`);
    await page.getByLabel("Check limit").fill("250");
    await page.getByLabel("Pings kept per check").fill("400");
    await page.getByLabel("Ping body limit (bytes)").fill("30000");
    await page.getByRole("button", { name: "Save limits" }).click();
    await page.getByText("Limits saved.").waitFor();
    const { projects } = await ok<{ projects: { id: string; check_limit: number; ping_log_limit: number; ping_body_limit: number }[] }>(
      call(server.url, "GET", "/admin/v1/projects", { headers: admin }),
    );
    const saved = projects.find((p) => p.id === project.id);
    assert.equal([saved?.check_limit, saved?.ping_log_limit, saved?.ping_body_limit], [250, 400, 30000]);
  });

  test.run();
}
