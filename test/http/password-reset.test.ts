// Password reset by email against a real hcd process and a real SMTP receiver on loopback: the link goes
// only to the user's email, the answer is the same for an email without an account, the link sets a new
// password once and ends the sessions of the old one; without SMTP_URL there is no reset at all.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { smtpReceiver } from "../notify/receivers.ts";
import { call, ok, startServer, stopServer } from "../security/real-server.ts";

const TOKEN = "password-reset-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const OLD = "the old password",
  NEW = "the new password";

async function form(url: string, path: string, fields: Record<string, string>, cookie = "") {
  const response = await fetch(url + path, { method: "POST", body: new URLSearchParams(fields), redirect: "manual", headers: { cookie } });
  return { status: response.status, text: await response.text(), cookie: (response.headers.get("set-cookie") ?? "").split(";")[0] };
}

test("a reset link by email sets a new password once and ends the old sessions; an unknown email gets the same answer and no mail", async () => {
  const smtp = await smtpReceiver();
  const dir = tempDir();
  const server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, SMTP_URL: smtp.url } });
  try {
    await ok(call(server.url, "POST", "/admin/v1/users", { headers: admin, body: { email: "ann@example.org", password: OLD } }));
    const before = await form(server.url, "/signin/password", { email: "ann@example.org", password: OLD });
    assert.is(before.status, 303);
    assert.match(await (await fetch(server.url + "/")).text(), /Forgot your password\?/);

    const unknown = await form(server.url, "/reset", { email: "nobody@example.org" });
    const known = await form(server.url, "/reset", { email: "Ann@Example.org" });
    assert.is(known.status, 200);
    assert.equal([unknown.status, unknown.text], [known.status, known.text]);
    const failAt = Date.now() + 10_000; // a failure deadline: the mail must come
    while (smtp.mails.length === 0) {
      if (Date.now() > failAt) throw new Error("no reset mail within 10 s");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // the known email's mail has come, and the unknown one's request was made before it: none for it
    assert.equal(
      smtp.mails.map((m) => (m.to && "text" in m.to ? m.to.text : "")),
      ["ann@example.org"],
    );
    const link = /https?:\/\/\S+\/invite\/[\w-]{43}/.exec(smtp.mails[0].text ?? "")?.[0] ?? "";
    assert.ok(link !== "", smtp.mails[0].text);
    const path = new URL(link).pathname;

    assert.is(
      (await form(server.url, "/signin/password", { email: "ann@example.org", password: OLD })).status,
      303,
      "the old password holds until the link is used",
    );
    const set = await form(server.url, path, { password: NEW });
    assert.is(set.status, 303);
    assert.is((await form(server.url, path, { password: "yet another password" })).status, 404, "once");
    assert.is((await form(server.url, "/signin/password", { email: "ann@example.org", password: OLD })).status, 401);
    assert.is((await form(server.url, "/signin/password", { email: "ann@example.org", password: NEW })).status, 303);
    const old = await fetch(server.url + "/account", { headers: { cookie: before.cookie }, redirect: "manual" });
    assert.is(old.status, 303, "the session opened with the old password has ended");
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    await smtp.close();
    dir.remove();
  }
});

test("without SMTP_URL there is no reset: no link on the sign-in page, /reset answers 404", async () => {
  const dir = tempDir();
  const server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
  try {
    assert.not.match(await (await fetch(server.url + "/")).text(), /Forgot your password/);
    assert.is((await fetch(server.url + "/reset")).status, 404);
    assert.is((await form(server.url, "/reset", { email: "ann@example.org" })).status, 404);
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    dir.remove();
  }
});

test.run();
