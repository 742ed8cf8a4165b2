// What `npm start` runs with the new notification kinds: settings read from the environment reach the
// worker-thread shards' deliverers, and a group fans a check's down out to a telegram and a webhook
// channel of its project; the admin API refuses a group naming a stranger or a group.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { httpReceiver } from "../notify/receivers.ts";
import { addChannel, call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";
import { requestsUntil, webhookTo } from "./real-notify.ts";

const TOKEN = "service-kinds-e2e-admin-token-0123456789";

test("a group's down reaches its telegram (bot token and API URL from the environment) and webhook members", async () => {
  const receiver = await httpReceiver();
  const dir = tempDir();
  const server = await startServer({
    dataDir: dir.path,
    env: {
      ADMIN_TOKEN: TOKEN,
      INTEGRATIONS_ALLOW_PRIVATE_IPS: "true",
      TELEGRAM_BOT_TOKEN: "42:e2e-bot-token",
      TELEGRAM_API_URL: `${receiver.url}/telegram/`,
    },
  });
  try {
    const project = await createProject(server, TOKEN, { name: "ops" });
    const hook = await webhookTo(server, TOKEN, project.id, receiver.url);
    const chat = await addChannel(server, TOKEN, project.id, { kind: "telegram", name: "chat", value: { chat_id: 7 } });
    const group = await addChannel(server, TOKEN, project.id, { kind: "group", name: "everyone", value: { channels: [hook.id, chat.id] } });
    const path = `/admin/v1/projects/${project.id}/channels`;
    const headers = { authorization: `Bearer ${TOKEN}` };
    const nested = await call(server.url, "POST", path, { headers, body: { kind: "group", value: { channels: [group.id] } } });
    const stranger = await call(server.url, "POST", path, {
      headers,
      body: { kind: "group", value: { channels: ["00000000-0000-4000-8000-000000000000"] } },
    });
    assert.equal([nested.status, stranger.status], [400, 400]);
    assert.match(nested.text, /a group cannot contain a group/);
    assert.match(stranger.text, /is not a channel of this project/);

    const check = await ok<{ uuid: string }>(
      call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "nightly", channels: group.id } }),
    );
    assert.is((await call(server.url, "POST", `/ping/${check.uuid}/fail`)).status, 200);
    const requests = await requestsUntil(receiver.requests, 2, 20_000);
    const byPath = new Map(requests.map((r) => [r.path, r]));
    assert.equal([...byPath.keys()].sort(), ["/down/nightly", "/telegram/bot42:e2e-bot-token/sendMessage"]);
    const message = JSON.parse(byPath.get("/telegram/bot42:e2e-bot-token/sendMessage")?.body ?? "{}");
    assert.equal([message.chat_id, message.parse_mode], [7, "html"]);
    assert.match(message.text, /^🔴 The check <a href="[^"]+">nightly<\/a> is <b>DOWN<\/b> \(received a failure signal\)\./);
    const listed = await ok<{ channels: { kind: string }[] }>(call(server.url, "GET", "/api/v3/channels/", { key: project.api_key }));
    assert.equal(listed.channels.map((c) => c.kind).sort(), ["group", "telegram", "webhook"]);
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    await receiver.close();
    dir.remove();
  }
});

test.run();
