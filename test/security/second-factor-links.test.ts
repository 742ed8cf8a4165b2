// No way around the second factor through a link, against a real server and a real SMTP receiver: a
// password reset of a user with TOTP on asks for the code before it sets anything (a wrong or missing code
// changes nothing), and a recovery code serves as well.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir, until } from "../helpers.ts";
import { smtpReceiver } from "../notify/receivers.ts";
import { stepNow, totp } from "../totp-codes.ts";
import { call, ok, startServer, stopServer } from "./real-server.ts";
import { csrfOf, getPage, postForm, signInUser } from "./form-client.ts";

const TOKEN = "second-factor-links-admin-token-0123456789";
const PASSWORD = "the password before";

test("a reset link of a user with the second factor on asks for its code; without it nothing is set", async () => {
  const smtp = await smtpReceiver();
  const dir = tempDir();
  const server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, SMTP_URL: smtp.url } });
  try {
    await ok(
      call(server.url, "POST", "/admin/v1/users", {
        headers: { authorization: `Bearer ${TOKEN}` },
        body: { email: "tf@corp.example", password: PASSWORD },
      }),
    );
    const cookie = (await signInUser(server, "tf@corp.example", PASSWORD)).cookie;
    const secret = /class="totp-secret">([A-Z2-7]+)</.exec((await getPage(server.url, "/account", cookie)).text)?.[1] ?? "";
    const step = stepNow();
    const on = await postForm(
      server.url,
      "/account/second-factor/on",
      { csrf: await csrfOf(server.url, cookie), secret, code: totp(secret, step), password: PASSWORD },
      { cookie },
    );
    assert.is(on.status, 200, on.text.slice(0, 300));
    const recovery = [...on.text.matchAll(/<li><code>([0-9a-f-]{19})<\/code><\/li>/g)].map((m) => m[1]);

    assert.is((await postForm(server.url, "/reset", { email: "tf@corp.example" })).status, 200);
    await until("the reset mail", () => smtp.mails.length === 1);
    const path = new URL(/https?:\/\/\S+\/invite\/[\w-]{43}/.exec(smtp.mails[0].text ?? "")?.[0] ?? "http://x/").pathname;
    const without = await postForm(server.url, path, { password: "chosen by the mailbox 1" });
    assert.is(without.cookie, "", "no session from the link alone");
    assert.is(without.status, 401, without.text.slice(0, 300));
    assert.match((await getPage(server.url, path, "")).text, /name="code"/, "the link's page asks for the code");
    const wrong = await postForm(server.url, path, { password: "chosen by the mailbox 1", code: "not a code" });
    assert.is(wrong.status, 401);
    assert.match(wrong.text, /Wrong code: the password is unchanged/);
    assert.is((await signInUser(server, "tf@corp.example", "chosen by the mailbox 1")).status, 401, "the password is unchanged");
    assert.is((await signInUser(server, "tf@corp.example", PASSWORD)).status, 200, "the old one still leads to the code step");
    const set = await postForm(server.url, path, { password: "the password after", code: recovery[0] });
    assert.is(set.status, 303, set.text.slice(0, 300));
    assert.match((await getPage(server.url, "/account", set.cookie)).text, /tf@corp\.example/);
    assert.is((await getPage(server.url, "/account", cookie)).status, 303, "the old password's session has ended");
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    await smtp.close();
    dir.remove();
  }
});

test.run();
