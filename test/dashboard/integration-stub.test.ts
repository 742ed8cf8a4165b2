// An integration imported without its settings (a stub, needs_settings) on the dashboard of `npm start`,
// over loopback without a browser: the list says it needs its settings, its "Test" reports that nothing can
// be sent, and an edit that gives them makes it a working integration whose "Test" reaches its target.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { httpReceiver } from "../notify/receivers.ts";
import { createProject, startServer, stopServer } from "../security/real-server.ts";
import { session } from "./form-session.ts";

const TOKEN = "integration-stub-admin-token-0123456789";

test("a stub says it needs its settings until an edit gives them; then it sends", async () => {
  const receiver = await httpReceiver();
  const dir = tempDir();
  const server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, INTEGRATIONS_ALLOW_PRIVATE_IPS: "true" } });
  try {
    const project = await createProject(server, TOKEN, { name: "ops" });
    const id = "4d9073a3-82f6-4989-8ccf-ddd7c55f0569";
    const added = await fetch(`${server.url}/admin/v1/projects/${project.id}/channels`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ id, kind: "webhook", name: "Incident webhook", needs_settings: true }),
    });
    assert.is(added.status, 201);
    const base = `/projects/${project.id}/integrations`;
    const admin = await session(server.url, TOKEN);
    assert.match(
      (await admin.page(base)).text,
      /<td class="target">needs its settings \(imported without them\): Edit to give them; nothing is sent until then<\/td>/,
    );
    assert.is((await admin.post(`${base}/${id}/test`, {})).status, 303);
    assert.match(
      (await admin.page(`${base}?tested=${id}`)).text,
      /needs its settings: it was imported without them/,
      "the test's result, shown once",
    );
    assert.is(receiver.requests.length, 0);
    const edited = await admin.post(`${base}/${id}/edit`, {
      name: "Incident webhook",
      "f.url_down": `${receiver.url}/hook`,
      "f.method_down": "POST",
      "f.body_down": "$JSON",
    });
    assert.is(
      edited.status,
      303,
      edited.text
        .replace(/<[^>]*>/g, " ")
        .replace(/\s+/g, " ")
        .slice(0, 2000),
    );
    const page = (await admin.page(base)).text;
    assert.not.match(page, /needs its settings/);
    assert.is((await admin.post(`${base}/${id}/test`, {})).status, 303);
    assert.is(receiver.requests.length, 1, "the test reached the webhook given");
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    await receiver.close();
    dir.remove();
  }
});

test.run();
