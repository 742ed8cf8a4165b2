// Removing an integration through the admin API of `npm start` over loopback: the check stops listing
// it, errors are {"error"} JSON, API keys are refused, and after a kill -9 and a restart it is still gone.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { tempDir } from "../helpers.ts";

const MAIN = fileURLToPath(new URL("../../app/main.js", import.meta.url));
const TOKEN = "remove-channel-admin-token-012345";
const ADMIN = { authorization: `Bearer ${TOKEN}` };

type Server = { child: ChildProcess; url: string; exited: Promise<unknown> };

async function start(dataDir: string): Promise<Server> {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, PORT: "0", SHARDS: "2", DATA_DIR: dataDir, ADMIN_TOKEN: TOKEN, CLOCK: "virtual" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    void exited.then(() => reject(new Error(`exited before listening:\n${output}`)));
  });
  return { child, url, exited };
}

async function call(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

test("DELETE an integration: gone from the check and the list, 404 after, API keys refused, still gone after kill -9", async () => {
  const dir = tempDir();
  let server = await start(dir.path);
  try {
    const project = (await call(`${server.url}/admin/v1/projects`, "POST", ADMIN, { name: "ops" })).json;
    const channels = `${server.url}/admin/v1/projects/${String(project.id)}/channels`;
    const add = (name: string) => call(channels, "POST", ADMIN, { kind: "webhook", name, value: "http://127.0.0.1:9/hook" });
    const kept = (await add("kept")).json,
      gone = (await add("gone")).json;
    const rw = { "x-api-key": String(project.api_key) };
    const created = await call(`${server.url}/api/v3/checks/`, "POST", rw, { name: "backup", channels: "*" });
    assert.is(created.status, 201);
    const checkUrl = `${server.url}/api/v3/checks/${String(created.json.uuid)}`;
    assert.is((await call(checkUrl, "GET", rw)).json.channels, [String(gone.id), String(kept.id)].sort().join(","));

    const path = `${channels}/${String(gone.id)}`;
    for (const key of [String(project.api_key), String(project.api_key_readonly)]) {
      const refused = await call(path, "DELETE", { authorization: `Bearer ${key}` });
      assert.is(refused.status, 401, "an API key (read-write or read-only) is not the admin token");
      assert.type(refused.json.error, "string");
    }
    const removed = await call(path, "DELETE", ADMIN);
    assert.is(removed.status, 200);
    assert.equal(removed.json, { id: gone.id, name: "gone", kind: "webhook" });
    assert.is((await call(checkUrl, "GET", rw)).json.channels, String(kept.id));
    const again = await call(path, "DELETE", ADMIN);
    assert.equal([again.status, again.json], [404, { error: "channel not found" }]);
    const otherProject = await call(`${server.url}/admin/v1/projects/nope/channels/${String(kept.id)}`, "DELETE", ADMIN);
    assert.equal([otherProject.status, otherProject.json], [404, { error: "project not found" }]);

    server.child.kill("SIGKILL"); // no orderly shutdown: what was acknowledged must come back from the store
    await server.exited;
    server = await start(dir.path);
    assert.is((await call(`${server.url}/api/v3/checks/${String(created.json.uuid)}`, "GET", rw)).json.channels, String(kept.id));
    const listed = (await call(channels.replace(/^http:\/\/[^/]+/, server.url), "GET", ADMIN)).json.channels as { id: string }[];
    assert.equal(
      listed.map((c) => c.id),
      [kept.id],
    );
  } finally {
    server.child.kill("SIGTERM");
    await server.exited;
    dir.remove();
  }
});

test.run();
