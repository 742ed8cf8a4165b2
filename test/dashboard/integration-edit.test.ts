// Editing an integration on the dashboard of `npm start`, over loopback without a browser: the kind's own
// form comes prefilled but never shows a secret, a secret left empty is kept (the "Test" after the edit
// carries it), bad input is a 400 page that changes nothing, and only an admin session with the form's
// CSRF token edits (a read-write or read-only key's session is refused). The list shows each target, masked.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { httpReceiver } from "../notify/receivers.ts";
import { addChannel, createProject, startServer, stopServer } from "../security/real-server.ts";
import { session } from "./form-session.ts";

const TOKEN = "integration-edit-admin-token-0123456789";

test("the edit form keeps secrets out and in, refuses bad input, and only an admin session with its token edits", async () => {
  const receiver = await httpReceiver();
  const dir = tempDir();
  const server = await startServer({
    dataDir: dir.path,
    env: {
      ADMIN_TOKEN: TOKEN,
      INTEGRATIONS_ALLOW_PRIVATE_IPS: "true",
      PUSHBULLET_API_URL: `${receiver.url}/pb`,
      TELEGRAM_BOT_TOKEN: "9:edit-bot",
      TELEGRAM_API_URL: `${receiver.url}/tg`,
    },
  });
  try {
    const project = await createProject(server, TOKEN, { name: "ops" });
    const pb = await addChannel(server, TOKEN, project.id, { kind: "pushbullet", name: "phone", value: { token: "pushbullet-secret-1" } });
    const chat = await addChannel(server, TOKEN, project.id, { kind: "telegram", name: "chat", value: { chat_id: 111 } });
    const base = `/projects/${project.id}/integrations`;
    const admin = await session(server.url, TOKEN);

    const before = (await admin.page(base)).text;
    assert.match(before, `href="${base}/${pb.id}/edit"`);
    // each integration's target, its secrets masked
    assert.match(before, '<td class="target">token: ****</td>');
    assert.match(before, '<td class="target">chat_id: 111</td>');
    assert.not.match(before, "pushbullet-secret-1");
    const form = await admin.page(`${base}/${pb.id}/edit`);
    assert.is(form.status, 200);
    assert.not.match(form.text, "pushbullet-secret-1");
    assert.match(form.text, /type="password" value=""[^>]*><span class="hint">leave empty to keep the stored one<\/span>/);
    assert.match((await admin.page(`${base}/${chat.id}/edit`)).text, /name="f.chat_id" type="text" value="111"/);

    // a new label, the token left empty: the stored token is kept
    const saved = await admin.post(`${base}/${pb.id}/edit`, { form: "fields", name: "phone 2", "f.token": "" });
    assert.is(saved.status, 303, saved.text);
    const listing = (await admin.page(base)).text;
    assert.match(listing, "phone 2");
    await admin.post(`${base}/${pb.id}/test`, {});
    const pushed = receiver.requests.find((r) => r.path === "/pb/v2/pushes");
    assert.is(pushed?.headers["access-token"], "pushbullet-secret-1");

    // the first five kinds have their own forms too: a webhook's URLs and headers (they may hold a secret) are not shown,
    // and left empty they stay; its method and body are
    const hook = await addChannel(server, TOKEN, project.id, { kind: "webhook", name: "hook", value: `${receiver.url}/hook-secret-path` });
    const hookForm = (await admin.page(`${base}/${hook.id}/edit`)).text;
    assert.not.match(hookForm, "hook-secret-path");
    assert.match(hookForm, /<textarea id="k-body_down" name="f.body_down" rows="3">\$JSON<\/textarea>/);
    const keep = {
      "f.url_down": "",
      "f.method_down": "POST",
      "f.body_down": "$JSON",
      "f.headers_down": "",
      "f.url_up": "",
      "f.method_up": "POST",
      "f.body_up": "$JSON",
      "f.headers_up": "",
    };
    assert.is((await admin.post(`${base}/${hook.id}/edit`, { form: "fields", name: "hook 2", ...keep })).status, 303);
    await admin.post(`${base}/${hook.id}/test`, {});
    assert.ok(
      receiver.requests.some((r) => r.path === "/hook-secret-path"),
      "the kept URL",
    );
    assert.match((await admin.page(base)).text, "hook 2");
    const badHook = await admin.post(`${base}/${hook.id}/edit`, {
      form: "fields",
      name: "hook 3",
      ...keep,
      "f.url_down": "not a url",
      "f.headers_down": "Content-Type: application/json",
      "f.url_up": `${receiver.url}/up`,
      "f.headers_up": "Content-Type: application/json",
    });
    assert.equal([badHook.status, /id="k-url_down-error">[^<]*http\(s\) URL/.test(badHook.text)], [400, true], badHook.text);

    const bad = await admin.post(`${base}/${chat.id}/edit`, { form: "fields", name: "chat", "f.chat_id": "not a chat" });
    assert.is(bad.status, 400);
    assert.match(bad.text, /id="k-chat_id-error">must be a chat id/);
    const refusals: (readonly [{ status: number; text: string }, number])[] = [
      [await admin.post(`${base}/${chat.id}/edit`, { form: "fields", name: "x", "f.chat_id": "222" }, false), 403],
      [await admin.post(`${base}/00000000-0000-4000-8000-000000000000/edit`, { form: "fields", name: "x", "f.chat_id": "222" }), 404],
    ];
    for (const key of [project.api_key, project.api_key_readonly]) {
      const keyed = await session(server.url, key);
      refusals.push(
        [await keyed.page(`${base}/${chat.id}/edit`), 403],
        [await keyed.post(`${base}/${chat.id}/edit`, { form: "fields", name: "x", "f.chat_id": "222" }), 403],
      );
      assert.not.match((await keyed.page(base)).text, `${chat.id}/edit`);
    }
    for (const [answer, status] of refusals) assert.is(answer.status, status, answer.text.slice(0, 200));
    await admin.post(`${base}/${chat.id}/test`, {});
    const sent = receiver.requests.filter((r) => r.path === "/tg/bot9:edit-bot/sendMessage").map((r) => JSON.parse(r.body).chat_id);
    assert.equal(sent, [111], "nothing above changed the chat");
  } finally {
    await stopServer(server);
    await receiver.close();
    dir.remove();
  }
});

test.run();
