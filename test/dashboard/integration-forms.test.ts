// The dashboard's integration forms over loopback: "Add an integration" offers only the kinds this server
// can send and the session may add; a kind's form saves through the admin API's checks with the error next
// to its field; new checks (the dashboard's and a ping's) get the integrations "added to new checks", API
// checks none (the spec); the list shows each integration's last delivery: its status, time and error.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { session } from "./form-session.ts";
import { httpReceiver } from "../notify/receivers.ts";
import type { Answer } from "../notify/receivers.ts";
import type { Api } from "../http/harness.ts";
import { ADMIN_TOKEN, withServedApi } from "../http/harness.ts";

/** The kinds the "Add an integration" page links to. */
async function offered(page: (path: string) => Promise<{ text: string }>, api: Api): Promise<string[]> {
  const { text } = await page(`/projects/${api.project.id}/integrations/add`);
  const list = /<ul class="kinds">([\s\S]*?)<\/ul>/.exec(text)?.[1] ?? "";
  return [...list.matchAll(/integrations\/add\/(\w+)"/g)].map((m) => m[1]);
}

async function manager(api: Api, base: string) {
  assert.is((await api.admin("POST", "/admin/v1/users", { email: "mgr@example.org", password: "manager password 1" })).status, 201);
  const users = (await api.admin("GET", "/admin/v1/users")).json as { users: { id: string; email: string }[] };
  const id = users.users.find((u) => u.email === "mgr@example.org")?.id ?? "";
  assert.is((await api.admin("PUT", `/admin/v1/projects/${api.project.id}/members/${id}`, { role: "manager" })).status, 200);
  const res = await fetch(`${base}/signin/password`, {
    method: "POST",
    redirect: "manual",
    body: new URLSearchParams({ email: "mgr@example.org", password: "manager password 1" }),
  });
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0];
  return {
    page: async (path: string) => {
      const r = await fetch(base + path, { headers: { cookie } });
      return { status: r.status, text: await r.text() };
    },
  };
}

test("only the kinds this server can send are offered, and shell/apprise only to the operator", async () => {
  await withServedApi(async (api, base) => {
    const admin = await session(base, ADMIN_TOKEN);
    const bare = await offered(admin.page, api);
    for (const kind of ["webhook", "slack", "discord", "ntfy", "pd", "gotify", "group"]) assert.ok(bare.includes(kind), `${kind} offered`);
    for (const kind of ["email", "telegram", "matrix", "po", "sms", "whatsapp", "call", "trello", "shell", "apprise", "signal"])
      assert.not.ok(bare.includes(kind), `${kind} not offered`);
    assert.is((await admin.page(`/projects/${api.project.id}/integrations/add/telegram`)).status, 404);
    assert.match(
      (await admin.page(`/projects/${api.project.id}/integrations/add`)).text,
      "Telegram: TELEGRAM_BOT_TOKEN is not set on this server",
    );
  });
  await withServedApi(
    async (api, base) => {
      const admin = await session(base, ADMIN_TOKEN);
      const all = await offered(admin.page, api);
      for (const kind of ["email", "telegram", "shell", "apprise", "signal"])
        assert.ok(all.includes(kind), `${kind} offered with its settings`);
      const mgr = await manager(api, base);
      const theirs = await offered(mgr.page, api);
      assert.ok(theirs.includes("telegram") && theirs.includes("signal"));
      assert.not.ok(theirs.includes("shell") || theirs.includes("apprise"), "the operator's kinds are not offered to a manager");
      assert.is((await mgr.page(`/projects/${api.project.id}/integrations/add/shell`)).status, 403);
    },
    {
      env: {
        SMTP_URL: "smtp://127.0.0.1:9",
        TELEGRAM_BOT_TOKEN: "1:x",
        SHELL_ENABLED: "true",
        APPRISE_ENABLED: "true",
        SIGNAL_CLI_SOCKET: "/run/signal.sock",
      },
    },
  );
});

test("a kind's form: the error next to its field; saved, it offers a test; new checks get the integrations added to new checks", async () => {
  await withServedApi(async (api, base) => {
    const admin = await session(base, ADMIN_TOKEN);
    const P = `/projects/${api.project.id}/integrations`;
    const bad = await admin.post(`${P}/add/slack`, { form: "fields", name: "team", "f.url": "not a url", new_checks: "1" });
    assert.is(bad.status, 400);
    assert.match(
      bad.text,
      /<span class="error field-error" id="k-url-error">must be an http\(s\) webhook URL<\/span>/,
      /<div class="field">[^]*?k-url-error[^]*?<\/div>/.exec(bad.text)?.[0],
    );
    const on = await admin.post(`${P}/add/slack`, {
      form: "fields",
      name: "team",
      "f.url": "https://hooks.slack.test/services/T/B/x",
      new_checks: "1",
    });
    assert.is(on.status, 303);
    const added = await admin.page(on.location ?? "");
    assert.match(added.text, "Integration “team” added.");
    assert.match(added.text, /aria-label="Send test notification team"/);
    const off = await admin.post(`${P}/add/discord`, { form: "fields", name: "quiet", "f.url": "https://discord.test/api/webhooks/1/x" }); // switch off
    assert.is(off.status, 303);
    const channels = ((await api.call("GET", "/api/v3/channels/")).json as { channels: { id: string; name: string }[] }).channels;
    const team = channels.find((c) => c.name === "team")?.id ?? "";
    // the dashboard's new check
    const made = await admin.post(`/projects/${api.project.id}/checks/new`, {
      name: "from the form",
      kind: "simple",
      timeout_value: "1",
      timeout_unit: "days",
      grace_value: "1",
      grace_unit: "hours",
    });
    assert.is(made.status, 303, made.text.slice(0, 300));
    const uuid = /\/checks\/([0-9a-f-]{36})/.exec(made.location ?? "")?.[1] ?? "";
    assert.is(((await api.call("GET", `/api/v3/checks/${uuid}`)).json as { channels: string }).channels, team);
    // a check a ping creates
    assert.is((await fetch(`${base}/ping/${api.project.pingKey}/made-by-ping?create=1`)).status, 201);
    const byPing = ((await api.call("GET", "/api/v3/checks/?slug=made-by-ping")).json as { checks: { channels: string }[] }).checks[0];
    assert.is(byPing.channels, team);
    // an API check: none unless asked (the spec)
    assert.is((await api.create({ name: "api" })).channels, "");
  });
});

test("the integrations page shows each integration's last delivery: failed with its error, then sent", async () => {
  let answer: Answer = { status: 500, body: "down for maintenance" };
  const rx = await httpReceiver(() => answer);
  try {
    await withServedApi(
      async (api, base) => {
        const admin = await session(base, ADMIN_TOKEN);
        const id = (
          (
            await api.admin("POST", `/admin/v1/projects/${api.project.id}/channels`, {
              kind: "webhook",
              name: "hook",
              value: `${rx.url}/hook`,
            })
          ).json as { id: string }
        ).id;
        const check = await api.create({ name: "nightly", channels: id });
        const P = `/projects/${api.project.id}/integrations`;
        assert.match((await admin.page(P)).text, "nothing sent yet");
        await api.ping(String(check.uuid), { signal: "fail" });
        const row = async (want: RegExp) => {
          const started = Date.now(); // delivery runs beside the request: wait for its mark, failing after 5 s
          for (;;) {
            const text = (await admin.page(P)).text;
            const cell = /<td>\d+ pending, \d+ failed<br>last: [\s\S]*?<\/td>/.exec(text)?.[0] ?? "";
            if (want.test(cell)) return cell;
            if (Date.now() - started > 5_000) throw new Error(`no ${want} in: ${cell || text.slice(-500)}`);
            await new Promise((r) => setTimeout(r, 20));
          }
        };
        const failed = await row(/<b>failed<\/b>/);
        assert.match(failed, /<time[^>]*>[^<]+<\/time> \(nightly\)<br><span class="error">Received status code 500/);
        answer = { status: 200 };
        await api.ping(String(check.uuid), { signal: "success" });
        assert.is((await api.admin("POST", "/admin/v1/clock", { advance: 3600 })).status, 200); // past the retry's backoff
        const sent = await row(/<b>sent<\/b>/);
        assert.match(sent, /\(nightly\)/);
      },
      { shards: 1 },
    );
  } finally {
    await rx.close();
  }
});

test.run();
