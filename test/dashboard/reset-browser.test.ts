// Password reset in a real browser (Debian's chromium driven by playwright-core) against a real hcd process
// and a real SMTP receiver on loopback: "Forgot your password?" on the sign-in page sends a link by email;
// opened in the browser it sets a new password and signs in; the old password is refused and a session
// opened with it ends; the new one signs in; the link opened a second time is refused.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { BrowserContext, Page } from "playwright-core";
import { call, ok } from "../security/real-server.ts";
import { browserRig, newContext, signInWithPassword, whenChromium } from "./browser-harness.ts";

const TOKEN = "reset-browser-admin-token-0123456789";
const OLD = "the old password",
  NEW = "the new password";

await whenChromium("password reset browser tests", async () => {
  const { rig, mail: smtp } = browserRig({ ADMIN_TOKEN: TOKEN }, { withMail: true });
  const contexts: BrowserContext[] = [];
  test.after.each(async () => {
    for (const context of contexts.splice(0)) await context.close();
  });
  const freshPage = async (): Promise<Page> => {
    const context = await newContext(rig().browser);
    contexts.push(context);
    return context.newPage();
  };
  /** Resolves with the text of the `count`th mail received; fails when it has not come within 10 s. */
  const mailNumber = async (count: number): Promise<string> => {
    const failAt = Date.now() + 10_000; // a failure deadline: the mail must come
    while (smtp().mails.length < count) {
      if (Date.now() > failAt) throw new Error(`mail ${count} did not come within 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return smtp().mails[count - 1].text ?? "";
  };
  /** Types an email and a password into the sign-in form and presses "Sign in". */
  const tryPassword = async (page: Page, site: string, password: string) => {
    await page.goto(site + "/");
    await page.getByLabel("Email").fill("ann@example.org");
    await page.getByLabel("Password").fill(password);
    await page.locator("form[action='/signin/password']").getByRole("button", { name: "Sign in" }).click();
  };

  test("a reset link by email sets a new password in the browser, once; the old password and its sessions end", async () => {
    const { server } = rig();
    await ok(
      call(server.url, "POST", "/admin/v1/users", {
        headers: { authorization: `Bearer ${TOKEN}` },
        body: { email: "ann@example.org", password: OLD },
      }),
    );
    const before = await freshPage();
    await signInWithPassword(before, server.url, "ann@example.org", OLD); // a session of the old password

    const page = await freshPage();
    await page.goto(server.url + "/");
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.getByLabel("Email").fill("Ann@Example.org");
    await page.getByRole("button", { name: "Send reset link" }).click();
    await page.getByRole("status").getByText("If an account has this email, a link to choose a new password is on its way").waitFor();
    const mail = await mailNumber(1);
    const [first] = smtp().mails;
    assert.equal(first.to && "text" in first.to ? first.to.text : "", "ann@example.org");
    const link = /https?:\/\/\S+\/invite\/[\w-]{43}/.exec(mail)?.[0] ?? "";
    assert.ok(link !== "", mail);
    assert.not.match(page.url(), /invite|token/, "the link is in the mail, not in the page's address");
    const site = new URL(link).origin; // hcd as its SITE_ROOT names it, where its session cookie is set

    await page.goto(link);
    await page.getByRole("heading", { name: "Choose a password" }).waitFor();
    await page.getByLabel("Password").fill(NEW);
    await page.getByRole("button", { name: "Set password" }).click();
    await page.getByRole("link", { name: "Account" }).waitFor();
    assert.match((await page.locator("header .who").textContent()) ?? "", /ann@example\.org/);

    await before.goto(`${server.url}/account`);
    await before.locator("form[action='/signin/password']").waitFor(); // the old password's session has ended

    const old = await freshPage();
    await tryPassword(old, site, OLD);
    await old.getByText("Wrong email or password.").waitFor();
    assert.is(await old.getByRole("link", { name: "Account" }).count(), 0);
    await tryPassword(old, site, NEW);
    await old.getByRole("link", { name: "Account" }).waitFor();

    const again = await freshPage();
    const answer = await again.goto(link);
    assert.is(answer?.status(), 404);
    assert.match((await again.locator("body").textContent()) ?? "", /unknown, used or expired/);
    assert.is(await again.getByRole("button", { name: "Set password" }).count(), 0);
  });

  test("an email without an account is told the same and gets no mail", async () => {
    const { server } = rig();
    const page = await freshPage();
    await page.goto(server.url + "/reset");
    await page.getByLabel("Email").fill("nobody@example.org");
    await page.getByRole("button", { name: "Send reset link" }).click();
    await page.getByRole("status").getByText("If an account has this email, a link to choose a new password is on its way").waitFor();
    await page.getByLabel("Email").fill("ann@example.org"); // a known email after it: its mail marks that the first request is done
    await page.getByRole("button", { name: "Send reset link" }).click();
    await mailNumber(2);
    assert.equal(
      smtp().mails.map((m) => (m.to && "text" in m.to ? m.to.text : "")),
      ["ann@example.org", "ann@example.org"],
    );
  });

  test.run();
});
