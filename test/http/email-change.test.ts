// A user's new email on the dashboard's own clock, injected here (hcd in-process): with mail (sent to a
// real SMTP receiver on loopback) the link mailed to the new address makes the change until an hour has
// passed: at an hour less a millisecond it does, at an hour it is refused and nothing changes; without mail
// the change is made at once. The link's other rules against a real server: test/security/profile.test.ts.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Millis } from "../../engine/model.ts";
import { HOUR } from "../../engine/model.ts";
import { sendEmail } from "../../notify/send.ts";
import { smtpReceiver } from "../notify/receivers.ts";
import type { Api } from "./harness.ts";
import { withApi } from "./harness.ts";

const PASSWORD = "an email-changing password";
const LINK = /https?:\/\/\S+\/invite\/[\w-]{43}/;
type UserJson = { id: string; email: string };

/** Posts `fields` as a form with `cookie`: the status, page, new session cookie and where it sends the browser. */
async function post(api: Api, path: string, fields: Record<string, string>, cookie = "") {
  const answer = await api.call("POST", path, {
    key: null,
    raw: new URLSearchParams(fields).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
  });
  const session = answer.headers.getSetCookie().find((c) => /^hcd_session=[^;]/.test(c));
  return { status: answer.status, text: answer.text, cookie: session?.split(";")[0] ?? "", location: answer.headers.get("location") };
}

/** Makes ann@example.org and signs her in: her id and her session cookie with its CSRF token. */
async function signedInAnn(api: Api): Promise<{ id: string; cookie: string; csrf: string }> {
  const made = await api.admin("POST", "/admin/v1/users", { email: "ann@example.org", password: PASSWORD });
  assert.is(made.status, 201, made.text);
  const { cookie } = await post(api, "/signin/password", { email: "ann@example.org", password: PASSWORD });
  assert.ok(cookie !== "", "signed in");
  const account = await api.call("GET", "/account", { key: null, headers: { cookie } });
  const csrf = /name="csrf" value="([^"]+)"/.exec(account.text)?.[1] ?? "";
  return { id: (made.json as UserJson).id, cookie, csrf };
}

const emailOf = async (api: Api, id: string) =>
  ((await api.admin("GET", "/admin/v1/users")).json as { users: UserJson[] }).users.find((u) => u.id === id)?.email;

test("with mail, the link makes the change until an hour has passed, and not at an hour", async () => {
  const smtp = await smtpReceiver();
  const clock: { now: Millis } = { now: Date.now() };
  try {
    await withApi(
      async (api) => {
        const ann = await signedInAnn(api);
        /** Asks for `email` and returns the path of the link mailed to it. */
        const ask = async (email: string) => {
          const before = smtp.mails.length;
          const asked = await post(api, "/account/email", { csrf: ann.csrf, email, password: PASSWORD }, ann.cookie);
          assert.is(asked.status, 200, asked.text.slice(0, 300));
          assert.is(smtp.mails.length, before + 1, "the route answers once the mail is sent"); // the receiver has it before the answer
          const mail = smtp.mails[before];
          assert.is(mail.to && "text" in mail.to ? mail.to.text : "", email);
          return new URL(LINK.exec(mail.text ?? "")?.[0] ?? "http://none/").pathname;
        };

        const late = await ask("late@example.org");
        clock.now += HOUR;
        const refused = await post(api, late, {});
        assert.is(refused.status, 404, refused.text.slice(0, 300));
        assert.match(refused.text, "This link is unknown, used or expired");
        assert.is(await emailOf(api, ann.id), "ann@example.org");

        const soon = await ask("soon@example.org");
        clock.now += HOUR - 1;
        const followed = await post(api, soon, {});
        assert.is(followed.status, 200, followed.text.slice(0, 300));
        assert.match(followed.text, "Your email is now <strong>soon@example.org</strong>");
        assert.is(await emailOf(api, ann.id), "soon@example.org");
      },
      {
        sessionClock: { kind: "real", now: () => clock.now },
        sendUserMail: async (to, subject, text) =>
          (await sendEmail({ kind: "email", to, subject, text, html: "" }, { smtpUrl: smtp.url, from: "hcd@localhost", timeoutMs: 10_000 }))
            .ok,
      },
    );
  } finally {
    await smtp.close();
  }
});

test("without mail, the new email is made at once", async () => {
  await withApi(async (api) => {
    const ann = await signedInAnn(api);
    const changed = await post(api, "/account/email", { csrf: ann.csrf, email: "ann.new@example.org", password: PASSWORD }, ann.cookie);
    assert.is(changed.status, 200, changed.text.slice(0, 300));
    assert.match(changed.text, "Your email is now ann.new@example.org. Every other session has been signed out.");
    assert.ok(changed.cookie !== "", "this browser gets a new session");
    assert.is(await emailOf(api, ann.id), "ann.new@example.org");
  });
});

test.run();
