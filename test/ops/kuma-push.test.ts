// Uptime Kuma push monitors moved to hcd, against a real server process (real HTTP, real LMDB, the durable
// intake): /api/push/<token> answers exactly as Kuma 2.x does (server/routers/api-router.js: 200 {"ok":true};
// an unknown token or a bad ping value 404 {"ok":false,"msg":...}) and pings the check whose push_token it
// is (up: success, anything else: failure, msg: the body, cut to the project's limit); the field is
// validated, unique over every project, shown to read-write keys only, and set in the dashboard's form;
// a push answered is stored (kill -9 loses none), and tokens route again after a restart.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { join } from "node:path";
import { tempDir, until } from "../helpers.ts";
import { INTAKE_DIR } from "../../persistence/intake.ts";
import { setWriteFault } from "../../persistence/write-faults.ts";
import { call, ok, startServer, stopServer } from "../security/real-server.ts";
import type { RealServer } from "../security/real-server.ts";
import { session } from "../dashboard/form-session.ts";
import { adminCall, SERVER_ENV } from "./as-code-rig.ts";

type Json = Record<string, unknown>;
const TOKEN = "Zq3kT9pXw2LmN8vB4cR7yH1dF6gJ0sAe"; // 32 letters and digits, as Kuma makes them
const OLD_TOKEN = "aB3dE5gH7j"; // 10, as Kuma made them before 1.x's longer tokens
const NOT_FOUND = { ok: false, msg: "Monitor not found or not active." };
const BAD_PING = { ok: false, msg: "Invalid ping value. Must be between 0 and 100000000000 ms." };

let server: RealServer;
let dir: { path: string; remove: () => void };
let project: { id: string; api_key: string; api_key_readonly: string };

test.before(async () => {
  dir = tempDir();
  server = await startServer({ dataDir: join(dir.path, "data"), env: SERVER_ENV });
  project = await adminCall(server, "POST", "/admin/v1/projects", { name: "kuma", ping_body_limit: 16 });
});

test.after(async () => {
  assert.is(await stopServer(server), 0, server.output());
  dir.remove();
});

const api = (method: string, path: string, body?: unknown, key = project.api_key) => call(server.url, method, path, { key, body });
async function push(path: string, method = "GET"): Promise<{ status: number; type: string | null; json: unknown }> {
  const res = await fetch(`${server.url}/api/push/${path}`, { method });
  return { status: res.status, type: res.headers.get("content-type"), json: JSON.parse(await res.text()) };
}
const check = async (uuid: string) => ok<Json>(api("GET", `/api/v3/checks/${uuid}`));
const pings = async (uuid: string) => (await ok<{ pings: Json[] }>(api("GET", `/api/v3/checks/${uuid}/pings/`))).pings;

test("answers as Kuma's push endpoint: {\"ok\":true} for up and down, any method; Kuma's 404s for an unknown token and a bad ping value", async () => {
  const uuid = (await ok<Json>(api("POST", "/api/v3/checks/", { name: "backup", timeout: 3600, push_token: TOKEN }))).uuid as string;
  const up = await push(`${TOKEN}?status=up&msg=OK&ping=`); // the URL Kuma shows for a push monitor
  assert.equal(up, { status: 200, type: "application/json; charset=utf-8", json: { ok: true } });
  assert.equal([(await check(uuid)).status, (await pings(uuid))[0].type], ["up", "success"]);

  const down = await push(`${TOKEN}?status=down&msg=${encodeURIComponent("disk full: /var at 100%")}&ping=12.5`, "POST");
  assert.equal(down.json, { ok: true });
  assert.equal([(await check(uuid)).status, (await pings(uuid))[0].type], ["down", "fail"]);
  const body = await call(server.url, "GET", new URL(String((await pings(uuid))[0].body_url)).pathname, { key: project.api_key });
  assert.is(body.text, "disk full: /var ", "msg is the body, cut to the project's ping_body_limit (16 bytes)");
  assert.equal((await push(`${TOKEN}?status=degraded`, "PUT")).json, { ok: true });
  assert.is((await pings(uuid))[0].type, "fail", "a status other than up is down, as Kuma reads it");
  assert.equal((await push(TOKEN)).json, { ok: true });
  assert.equal([(await check(uuid)).status, (await pings(uuid))[0].type], ["up", "success"], "no status is up");

  const before = (await check(uuid)).n_pings;
  for (const path of ["QwErTyUiOpAsDfGhJkLzXcVbNm012345?status=up", "short", `${TOKEN}x`, `${TOKEN.toLowerCase()}`]) {
    assert.equal(await push(path), { status: 404, type: "application/json; charset=utf-8", json: NOT_FOUND }, path);
  }
  for (const ping of ["-1", "100000000001", "1e12"])
    assert.equal(await push(`${TOKEN}?ping=${ping}`), { status: 404, type: "application/json; charset=utf-8", json: BAD_PING }, ping);
  for (const ping of ["abc", "0", "100000000000"]) assert.equal((await push(`${TOKEN}?ping=${ping}`)).json, { ok: true }, ping);
  assert.is((await check(uuid)).n_pings, Number(before) + 3, "a refused push records nothing");
});

test("push_token: validated, unique over every project, shown to read-write keys only, cleared with null, moved", async () => {
  const other = await adminCall<{ api_key: string }>(server, "POST", "/admin/v1/projects", { name: "other" });
  const made = await ok<Json>(api("POST", "/api/v3/checks/", { name: "old", push_token: OLD_TOKEN }));
  assert.is(made.push_token, OLD_TOKEN);
  for (const bad of ["short", "has space in it", "x".repeat(129), 12345678901, "ÄÖÜäöüßÄÖÜ"]) {
    const refused = await api("POST", "/api/v3/checks/", { name: "bad", push_token: bad });
    assert.equal(
      [refused.status, JSON.parse(refused.text).error],
      [400, "json validation error: push_token must be 10 to 128 letters, digits, '-' or '_' (an Uptime Kuma push token), or null"],
      String(bad),
    );
  }
  const taken = await api("POST", "/api/v3/checks/", { name: "thief", push_token: OLD_TOKEN }, other.api_key);
  assert.equal(
    [taken.status, JSON.parse(taken.text).error],
    [400, "json validation error: push_token is taken by another check"],
    "taken in another project",
  );
  const readonly = await ok<Json>(api("GET", `/api/v3/checks/${made.uuid as string}`, undefined, project.api_key_readonly));
  assert.not.ok("push_token" in readonly, "a read-only key never sees a token: it pings the check");
  assert.not.ok("push_token" in (await ok<Json>(api("POST", "/api/v3/checks/", { name: "none" }))), "a check without one shows none");

  const moved = "MovedTokenMovedToken0123";
  assert.is((await ok<Json>(api("POST", `/api/v3/checks/${made.uuid as string}`, { push_token: moved }))).push_token, moved);
  assert.equal((await push(OLD_TOKEN)).json, NOT_FOUND, "the old token names nothing");
  assert.equal((await push(moved)).json, { ok: true });
  const cleared = await ok<Json>(api("POST", `/api/v3/checks/${made.uuid as string}`, { push_token: null }));
  assert.not.ok("push_token" in cleared);
  assert.equal((await push(moved)).json, NOT_FOUND);
  assert.is(
    (await ok<Json>(api("POST", "/api/v3/checks/", { name: "reuse", push_token: moved }, other.api_key))).push_token,
    moved,
    "a freed token may be given again",
  );
  await ok(
    call(
      server.url,
      "DELETE",
      `/api/v3/checks/${(await ok<{ checks: Json[] }>(api("GET", "/api/v3/checks/", undefined, other.api_key))).checks.find((c) => c.name === "reuse")?.uuid as string}`,
      { key: other.api_key },
    ),
  );
  assert.equal((await push(moved)).json, NOT_FOUND, "a deleted check's token names nothing");
});

test("the dashboard's check form sets, shows and clears the token; a taken one is an error next to the field", async () => {
  const form = await session(server.url, project.api_key);
  const fields = {
    name: "from the form",
    kind: "simple",
    timeout: "1",
    timeout_unit: "hours",
    grace: "1",
    grace_unit: "hours",
    tz: "UTC",
    failure_threshold: "1",
    reminder_interval: "0",
    max_duration: "0",
    action: "save",
  };
  const token = "FormTokenFormToken01";
  const saved = await form.post(`/projects/${project.id}/checks/new`, { ...fields, push_token: token });
  assert.is(saved.status, 303, saved.text.slice(0, 300));
  const { checks } = await ok<{ checks: Json[] }>(api("GET", "/api/v3/checks/"));
  const uuid = checks.find((c) => c.name === "from the form")?.uuid as string;
  assert.is((await check(uuid)).push_token, token);
  assert.match((await form.page(`/checks/${uuid}/edit`)).text, new RegExp(`name="push_token" value="${token}"`));
  const refused = await form.post(`/projects/${project.id}/checks/new`, { ...fields, name: "second", push_token: token });
  assert.is(refused.status, 400);
  assert.match(
    refused.text,
    /<p class="field-error" id="e-push_token" role="alert">Push token: another check has this token \(a token pings one check\)\.<\/p>/,
  );
  const emptied = await form.post(`/checks/${uuid}/edit`, { ...fields, push_token: "" });
  assert.is(emptied.status, 303);
  assert.not.ok("push_token" in (await check(uuid)));
});

test("a push answered is stored: none lost to kill -9, and tokens route again after the restart", async () => {
  const token = "DurableTokenDurable01";
  const uuid = (await ok<Json>(api("POST", "/api/v3/checks/", { name: "durable", push_token: token }))).uuid as string;
  for (let i = 0; i < 20; i++) assert.equal((await push(`${token}?msg=run-${i}`)).json, { ok: true });
  server.child.kill("SIGKILL");
  await server.exited;
  server = await startServer({ dataDir: join(dir.path, "data"), env: SERVER_ENV });
  assert.is((await check(uuid)).n_pings, 20, "every push answered was stored");
  assert.equal((await push(`${token}?status=down`)).json, { ok: true }, "the token routes after the restart");
  assert.is((await check(uuid)).status, "down");
});

test('a push the store cannot take is not acknowledged: 503 {"ok":false}, not counted; answered again once it can', async () => {
  const faulty = tempDir();
  const data = join(faulty.path, "data");
  const node = await startServer({ dataDir: data, env: { ...SERVER_ENV, NODE_ENV: "test" } }); // NODE_ENV=test arms persistence/write-faults.ts
  try {
    const mine = await adminCall<{ api_key: string }>(node, "POST", "/admin/v1/projects", { name: "faulty" });
    const token = "FaultyDiskToken0123";
    const uuid = (await ok<Json>(call(node.url, "POST", "/api/v3/checks/", { key: mine.api_key, body: { name: "f", push_token: token } })))
      .uuid as string;
    const pushTo = async () => {
      const res = await fetch(`${node.url}/api/push/${token}?status=up`);
      return { status: res.status, json: (await res.json()) as Json };
    };
    assert.equal(await pushTo(), { status: 200, json: { ok: true } });
    setWriteFault(join(data, INTAKE_DIR), "ENOSPC");
    assert.equal(
      await pushTo(),
      { status: 503, json: { ok: false, msg: "service unavailable, try again" } },
      "the intake log refused it: no {ok: true}",
    );
    setWriteFault(join(data, INTAKE_DIR), null);
    await until("the intake log takes writes again", async () => (await pushTo()).status === 200, 30_000);
    const checked = await ok<Json>(call(node.url, "GET", `/api/v3/checks/${uuid}`, { key: mine.api_key }));
    assert.is(checked.n_pings, 2, "the refused push was not counted");
  } finally {
    assert.is(await stopServer(node), 0, node.output());
    faulty.remove();
  }
});

test.run();
