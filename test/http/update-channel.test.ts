// Editing an integration through the admin API of `npm start` over loopback: PUT replaces its name and
// value (a check's next notification goes to the new target), bad input is a 400 {"error"} that changes
// nothing, an unknown channel or project is 404, and API keys (read-write or read-only) are refused.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { httpReceiver } from "../notify/receivers.ts";
import { addChannel, call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";
import { requestsUntil } from "./real-notify.ts";

const TOKEN = "update-channel-admin-token-0123456789";
const headers = { authorization: `Bearer ${TOKEN}` };

test("PUT an integration: 200 with the new name, the next down goes to the new URL; 400, 404 and API keys change nothing", async () => {
  const receiver = await httpReceiver();
  const dir = tempDir();
  const server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, INTEGRATIONS_ALLOW_PRIVATE_IPS: "true" } });
  try {
    const project = await createProject(server, TOKEN, { name: "ops" });
    const hook = await addChannel(server, TOKEN, project.id, { kind: "webhook", name: "old", value: `${receiver.url}/old` });
    const path = `/admin/v1/projects/${project.id}/channels/${hook.id}`;
    const put = (body: unknown, h: Record<string, string> = headers, at = path) => call(server.url, "PUT", at, { headers: h, body });
    const listed = async () =>
      (
        await ok<{ channels: { id: string; name: string; kind: string }[] }>(
          call(server.url, "GET", `/admin/v1/projects/${project.id}/channels`, { headers }),
        )
      ).channels.map((c) => [c.id, c.name, c.kind]);

    const refusals = [
      [await put({ value: "not a url" }), 400, /value/],
      [await put({ name: 7, value: `${receiver.url}/x` }), 400, /name/],
      [await put({ name: "x" }), 400, /value/],
      [await put({ kind: "email", value: "a@example.com" }), 400, /kind/],
      [await put("[1]"), 400, /./],
      [
        await put(
          { value: `${receiver.url}/x` },
          headers,
          `/admin/v1/projects/${project.id}/channels/00000000-0000-4000-8000-000000000000`,
        ),
        404,
        /channel not found/,
      ],
      [await put({ value: `${receiver.url}/x` }, headers, `/admin/v1/projects/nope/channels/${hook.id}`), 404, /project not found/],
      [await put({ value: `${receiver.url}/x` }, { authorization: `Bearer ${project.api_key}` }), 401, /./],
      [await put({ value: `${receiver.url}/x` }, { authorization: `Bearer ${project.api_key_readonly}` }), 401, /./],
      [await put({ value: `${receiver.url}/x` }, { "x-api-key": project.api_key }), 401, /./],
    ] as const;
    for (const [answer, status, error] of refusals) {
      assert.is(answer.status, status, answer.text);
      assert.match(String(JSON.parse(answer.text).error), error);
    }
    assert.equal(await listed(), [[hook.id, "old", "webhook"]]);

    const edited = await put({ name: "new", value: `${receiver.url}/new` });
    assert.is(edited.status, 200, edited.text);
    assert.equal(JSON.parse(edited.text), { id: hook.id, name: "new", kind: "webhook" });
    const renamedOnly = await put({ value: `${receiver.url}/new` });
    assert.equal(JSON.parse(renamedOnly.text).name, "new", "an absent name keeps the stored one");
    assert.equal(await listed(), [[hook.id, "new", "webhook"]]);

    const check = await ok<{ uuid: string }>(
      call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "nightly", channels: hook.id } }),
    );
    assert.is((await call(server.url, "POST", `/ping/${check.uuid}/fail`)).status, 200);
    const [sent] = await requestsUntil(receiver.requests, 1, 20_000);
    assert.equal([sent.method, sent.path], ["POST", "/new"]);
  } finally {
    await stopServer(server);
    await receiver.close();
    dir.remove();
  }
});

test.run();
