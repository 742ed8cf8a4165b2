// Integrations that run programs or reach any host from the server (shell, apprise) are the operator's
// alone: a project's manager can neither add, edit nor "Test" them; and a stored secret never follows a
// destination changed without it: editing an integration's URL or site asks for its secret again, so
// "Test" cannot send the kept secret to a new receiver.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import { httpReceiver } from "../notify/receivers.ts";
import { session } from "../dashboard/form-session.ts";
import type { Api } from "../http/harness.ts";
import { ADMIN_TOKEN, withServedApi } from "../http/harness.ts";

const ENV = { SHELL_ENABLED: "true", APPRISE_ENABLED: "true", INTEGRATIONS_ALLOW_PRIVATE_IPS: "true" };

/** A manager's dashboard session in the api's project, and the admin token's. */
async function sessions(api: Api, base: string) {
  assert.is((await api.admin("POST", "/admin/v1/users", { email: "mgr@corp.example", password: "manager password 1" })).status, 201);
  const users = (await api.admin("GET", "/admin/v1/users")).json as { users: { id: string; email: string }[] };
  const id = users.users.find((u) => u.email === "mgr@corp.example")?.id ?? "";
  assert.is((await api.admin("PUT", `/admin/v1/projects/${api.project.id}/members/${id}`, { role: "manager" })).status, 200);
  const signedIn = await fetch(`${base}/signin/password`, {
    method: "POST",
    redirect: "manual",
    body: new URLSearchParams({ email: "mgr@corp.example", password: "manager password 1" }),
  });
  const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0];
  const page = async (path: string) => {
    const res = await fetch(base + path, { headers: { cookie } });
    return { status: res.status, text: await res.text() };
  };
  const csrf = /name="csrf" value="([^"]+)"/.exec((await page(`/projects/${api.project.id}/integrations`)).text)?.[1] ?? "";
  assert.ok(csrf !== "", "the manager sees the integrations page");
  const post = async (path: string, form: Record<string, string>) => {
    const res = await fetch(base + path, {
      method: "POST",
      headers: { cookie },
      redirect: "manual",
      body: new URLSearchParams({ csrf, ...form }),
    });
    return { status: res.status, text: await res.text(), location: res.headers.get("location") };
  };
  return { manager: { page, post }, admin: await session(base, ADMIN_TOKEN) };
}

test("a manager can neither add, edit nor Test a shell or apprise integration; the operator can", async () => {
  const dir = tempDir("hcd-operator-");
  try {
    await withServedApi(
      async (api, base) => {
        const { manager, admin } = await sessions(api, base);
        const P = `/projects/${api.project.id}/integrations`;
        const marker = join(dir.path, "ran");
        const command = `/bin/sh -c 'echo ran > ${marker}'`;
        for (const [kind, fields] of [
          ["shell", { "f.cmd_down": command }],
          ["apprise", { "f.url": "json://127.0.0.1:9/internal" }],
        ] as const) {
          const refused = await manager.post(P, { kind, name: kind, form: "fields", ...fields });
          assert.is(refused.status, 403, `manager adds ${kind}`);
          assert.match(refused.text, `only the operator (an instance admin or the admin token) adds, edits or tests ${kind} integrations`);
          const kindPage = await manager.post(`${P}/add/${kind}`, { name: kind, ...fields }); // the kind's own add page
          assert.is(kindPage.status, 403, `manager adds ${kind} on its page`);
          assert.match(kindPage.text, `only the operator (an instance admin or the admin token) adds, edits or tests ${kind} integrations`);
        }
        const added = (await api.admin("GET", `/admin/v1/projects/${api.project.id}/channels`)).json as { channels: { kind: string }[] };
        assert.equal(
          added.channels.filter((c) => c.kind === "shell" || c.kind === "apprise"),
          [],
          "the manager added none",
        );
        // the operator adds one (the dashboard, as the admin API would)
        assert.is((await admin.post(P, { kind: "shell", name: "ops script", form: "fields", "f.cmd_down": command })).status, 303);
        const channels = (await api.admin("GET", `/admin/v1/projects/${api.project.id}/channels`)).json as {
          channels: { id: string; kind: string }[];
        };
        const shell = channels.channels.find((c) => c.kind === "shell")?.id ?? "";
        assert.is((await manager.post(`${P}/${shell}/test`, {})).status, 403, "manager tests the operator's shell integration");
        assert.is((await manager.page(`${P}/${shell}/edit`)).status, 403, "manager opens its edit form");
        assert.is(
          (await manager.post(`${P}/${shell}/edit`, { name: "x", form: "fields", "f.cmd_down": "/bin/true" })).status,
          403,
          "manager edits it",
        );
        assert.not.ok(existsSync(marker), "nothing ran for the manager");
        // the operator's Test runs it: the command a manager could not touch
        assert.is((await admin.post(`${P}/${shell}/test`, {})).status, 303);
        assert.ok(existsSync(marker), "the operator's Test ran the command");
      },
      { env: ENV },
    );
  } finally {
    dir.remove();
  }
});

test("changing an integration's destination asks for its secret again: Test never sends the kept secret to the new one", async () => {
  const first = await httpReceiver();
  const moved = await httpReceiver();
  try {
    await withServedApi(
      async (api, base) => {
        const { manager } = await sessions(api, base);
        const P = `/projects/${api.project.id}/integrations`;
        const add = async (body: unknown) =>
          ((await api.admin("POST", `/admin/v1/projects/${api.project.id}/channels`, body)).json as { id: string }).id;
        const gotify = await add({ kind: "gotify", name: "ops gotify", value: { url: first.url, token: "GOTIFY-APP-TOKEN-SECRET" } });
        const zulip = await add({
          kind: "zulip",
          name: "ops zulip",
          value: { bot_email: "bot@zulip.corp.example", api_key: "ZULIP-BOT-API-KEY-SECRET", site: first.url, mtype: "stream", to: "ops" },
        });
        const ntfy = await add({
          kind: "ntfy",
          name: "ops ntfy",
          value: { url: first.url, topic: "ops", token: "tk_NTFY-ACCESS-TOKEN-SECRET" },
        });
        const hook = await add({
          kind: "webhook",
          name: "ops hook",
          value: {
            url_down: `${first.url}/down`,
            method_down: "POST",
            body_down: "down",
            headers_down: { Authorization: "Bearer WEBHOOK-HEADER-SECRET" },
          },
        });
        const edits: [string, Record<string, string>, string][] = [
          [ntfy, { "f.url": moved.url, "f.topic": "ops", "f.token": "" }, "type the Access token again: the Server changed"],
          [ntfy, { "f.url": first.url, "f.topic": "elsewhere", "f.token": "" }, "type the Access token again: the Topic changed"],
          [
            hook,
            { "f.url_down": `${moved.url}/down`, "f.method_down": "POST", "f.body_down": "down", "f.headers_down": "" },
            "type the Headers when down again: the URL when down changed",
          ],
          [gotify, { "f.url": moved.url, "f.token": "" }, "type the Application token again: the Server URL changed"],
          [
            zulip,
            { "f.bot_email": "bot@zulip.corp.example", "f.site": moved.url, "f.api_key": "", "f.mtype": "stream", "f.to": "ops" },
            "type the Bot API key again: the Site changed",
          ],
          [
            zulip,
            { "f.bot_email": "bot@other.example", "f.site": first.url, "f.api_key": "", "f.mtype": "stream", "f.to": "ops" },
            "type the Bot API key again: the Bot email changed",
          ],
        ];
        for (const [id, fields, problem] of edits) {
          const refused = await manager.post(`${P}/${id}/edit`, { name: "x", form: "fields", ...fields });
          assert.is(refused.status, 400, JSON.stringify(fields));
          assert.match(refused.text, problem);
        }
        // the same destination keeps the secret (a label change); Test then goes where it always went
        assert.is(
          (await manager.post(`${P}/${gotify}/edit`, { name: "renamed", form: "fields", "f.url": first.url, "f.token": "" })).status,
          303,
        );
        for (const id of [gotify, zulip, ntfy, hook]) assert.is((await manager.post(`${P}/${id}/test`, {})).status, 303);
        assert.is(first.requests.length, 4, "every Test reached the first receiver");
        assert.equal(moved.requests, [], "the moved destination got nothing");
        assert.is(first.requests.find((r) => r.path === "/message")?.headers["x-gotify-key"], "GOTIFY-APP-TOKEN-SECRET");
        // typed again, the new destination is taken
        assert.is(
          (await manager.post(`${P}/${gotify}/edit`, { name: "moved", form: "fields", "f.url": moved.url, "f.token": "NEW-TOKEN" })).status,
          303,
        );
      },
      { env: ENV },
    );
  } finally {
    await first.close();
    await moved.close();
  }
});

test.run();
