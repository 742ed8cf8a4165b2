// The API's endpoints past create and update, through app.request() on an in-process pool, under each
// version (v1, v2, v3) where the answer is the same: status, pause and resume, delete, pings, flips,
// channels, badges, the status probe, CORS, paths, body and rate limits (spec §7).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { MINUTE, SECOND } from "../../engine/model.ts";
import { uniqueKeyOf } from "../../host/unique-key.ts";
import type { Api, ApiOptions } from "./harness.ts";
import { SITE, T0, testEachVersion } from "./harness.ts";

type Json = Record<string, unknown>;
const each = (name: string, body: (api: Api) => Promise<void>, options?: ApiOptions) => testEachVersion(test, name, body, options);

async function addChannel(api: Api, kind: string, name: string, value: unknown): Promise<string> {
  const res = await api.admin("POST", `/admin/v1/projects/${api.project.id}/channels`, { kind, name, value });
  assert.is(res.status, 201, res.text);
  return (res.json as { id: string }).id;
}

each("status is derived at read time: up, grace, down", async (api) => {
  const check = await api.create({ timeout: 60, grace: 60 });
  await api.ping(check.uuid as string);
  const status = async () => ((await api.call("GET", `${api.root}/checks/${check.uuid}`)).json as Json).status;
  assert.is(await status(), "up");
  api.clock.advance(90 * SECOND);
  assert.is(await status(), "grace");
  api.clock.advance(60 * SECOND);
  assert.is(await status(), "down");
});

each("pause, resume, and resume of a check that is not paused (409)", async (api) => {
  const check = await api.create({ timeout: 300 });
  await api.ping(check.uuid as string);
  const paused = await api.call("POST", `${api.root}/checks/${check.uuid}/pause`, { raw: "" });
  assert.is(paused.status, 200);
  assert.equal(
    [(paused.json as Json).status, (paused.json as Json).next_ping, (paused.json as Json).last_ping],
    ["paused", null, "2026-01-15T12:00:00+00:00"],
  );
  assert.is((await api.call("POST", `${api.root}/checks/${check.uuid}/pause`, { body: null })).status, 200, "null body on pause");
  const resumed = await api.call("POST", `${api.root}/checks/${check.uuid}/resume`, { body: null });
  assert.is(resumed.status, 200);
  assert.equal([(resumed.json as Json).status, (resumed.json as Json).last_ping], ["new", null]);
  const again = await api.call("POST", `${api.root}/checks/${check.uuid}/resume`);
  assert.is(again.status, 409);
  assert.type((again.json as Json).error, "string");
  assert.is((await api.call("POST", `${api.root}/checks/${check.uuid}/pause`, { raw: "[]" })).status, 400);
  assert.is((await api.call("POST", `${api.root}/checks/00000000-0000-4000-8000-000000000000/pause`)).status, 404);
  assert.is((await api.call("POST", `${api.root}/checks/00000000-0000-4000-8000-000000000000/resume`)).status, 404);
  assert.is(
    (await api.call("POST", `${api.root}/checks/${check.uuid}/pause`, { key: null, body: { api_key: api.project.apiKey } })).status,
    200,
  );
});

each('delete answers the check as it was (channels ""), then every endpoint says 404', async (api) => {
  const channel = await addChannel(api, "email", "ops", "ops@example.com");
  const check = await api.create({ name: "gone", channels: "*" });
  assert.is(check.channels, channel);
  const res = await api.call("DELETE", `${api.root}/checks/${check.uuid}`);
  assert.is(res.status, 200);
  assert.equal(res.json, { ...check, channels: "" });
  for (const [method, path] of [
    ["GET", ""],
    ["POST", ""],
    ["DELETE", ""],
    ["POST", "/pause"],
    ["GET", "/pings/"],
    ["GET", "/flips/"],
  ]) {
    assert.is((await api.call(method, `${api.root}/checks/${check.uuid}${path}`)).status, 404, `${method} ${path}`);
  }
  assert.is((await api.call("DELETE", `${api.root}/checks/00000000-0000-4000-8000-000000000000`)).status, 404);
});

each("pings are listed newest first with their fields, and bodies are served as text/plain", async (api) => {
  const check = await api.create({ timeout: 300 });
  const uuid = check.uuid as string;
  const rid = "0a1b2c3d-0000-4000-8000-00000000000a";
  await api.ping(uuid, { signal: "start", rid, method: "POST", ua: "agent" });
  api.clock.advance(1_234);
  await api.ping(uuid, { rid, method: "POST", body: new TextEncoder().encode("hello body"), remoteAddr: "192.0.2.1" });
  const res = await api.call("GET", `${api.root}/checks/${uuid}/pings/`);
  assert.is(res.status, 200);
  const pings = (res.json as { pings: Json[] }).pings;
  assert.equal(pings, [
    {
      type: "success",
      date: "2026-01-15T12:00:01.234000+00:00",
      n: 2,
      scheme: "http",
      remote_addr: "192.0.2.1",
      method: "POST",
      ua: "curl/8",
      rid,
      body_url: `${SITE}${api.root}/checks/${uuid}/pings/2/body`,
      duration: 1.23,
    },
    {
      type: "start",
      date: "2026-01-15T12:00:00+00:00",
      n: 1,
      scheme: "http",
      remote_addr: "10.0.0.1",
      method: "POST",
      ua: "agent",
      rid,
      body_url: null,
    },
  ]);
  const body = await api.call("GET", `${api.root}/checks/${uuid}/pings/2/body`);
  assert.is(body.status, 200);
  assert.is(body.text, "hello body");
  assert.is(body.headers.get("content-type"), "text/plain");
  const none = await api.call("GET", `${api.root}/checks/${uuid}/pings/1/body`);
  assert.is(none.status, 404);
  assert.type((none.json as Json).error, "string");
  assert.is((await api.call("GET", `${api.root}/checks/${uuid}/pings/99/body`)).status, 404);
  assert.is((await api.call("GET", `${api.root}/checks/${uuid}/pings/x/body`)).status, 404);
  const checkNow = (await api.call("GET", `${api.root}/checks/${uuid}`)).json as Json;
  assert.is(checkNow.last_duration, 1);
});

each("flips: a bare array, newest first, up only for changes to up; filters by start, end and seconds", async (api) => {
  const check = await api.create({ timeout: 300 });
  const uuid = check.uuid as string;
  await api.ping(uuid); // new → up at T0
  api.clock.advance(10 * MINUTE);
  await api.ping(uuid, { signal: "fail" }); // up → down at T0+10m
  api.clock.advance(10 * MINUTE);
  await api.call("POST", `${api.root}/checks/${uuid}/pause`); // → paused at T0+20m
  const flips = async (query = "") => (await api.call("GET", `${api.root}/checks/${uuid}/flips/${query}`)).json;
  assert.equal(await flips(), [
    { timestamp: "2026-01-15T12:20:00+00:00", up: 0 },
    { timestamp: "2026-01-15T12:10:00+00:00", up: 0 },
    { timestamp: "2026-01-15T12:00:00+00:00", up: 1 },
  ]);
  const t0 = T0 / 1000;
  assert.is(((await flips(`?start=${t0 + 600}`)) as unknown[]).length, 2);
  assert.is(((await flips(`?end=${t0 + 600}`)) as unknown[]).length, 1);
  assert.is(((await flips(`?start=${t0}&end=${t0 + 1}`)) as unknown[]).length, 1);
  assert.is(((await flips("?seconds=601")) as unknown[]).length, 2);
  assert.is(((await flips("?seconds=0")) as unknown[]).length, 3);
  assert.is(((await flips("?seconds=")) as unknown[]).length, 3);
  assert.is(((await flips("?end=0")) as unknown[]).length, 0);
  assert.equal(await flips(`?start=${t0 + 3600}`), []);
  const byKey = await api.call("GET", `${api.root}/checks/${uniqueKeyOf(uuid)}/flips/`, { key: api.project.apiKeyReadonly });
  assert.is((byKey.json as unknown[]).length, 3);
  for (const query of [
    "?start=",
    "?end=",
    "?start=abc",
    "?start=-1",
    "?start=10000000001",
    "?seconds=1.5",
    "?seconds=-5",
    "?seconds=31536001",
    "?end=1.5",
  ]) {
    const res = await api.call("GET", `${api.root}/checks/${uuid}/flips/${query}`);
    assert.is(res.status, 400, query);
    assert.type((res.json as Json).error, "string", query);
  }
  assert.is((await api.call("GET", `${api.root}/checks/00000000-0000-4000-8000-000000000000/flips/?start=x`)).status, 404);
  assert.is((await api.call("GET", `${api.root}/checks/${uniqueKeyOf("00000000-0000-4000-8000-000000000000")}/flips/`)).status, 404);
});

each('channels: listed as {id, name, kind}; assigned by *, ids or names; "" unassigns', async (api) => {
  const email = await addChannel(api, "email", "ops", "ops@example.com");
  const hook = await addChannel(api, "webhook", "hook", "https://example.com/hook");
  const dup1 = await addChannel(api, "slack", "dup", "https://hooks.slack.com/services/x");
  await addChannel(api, "discord", "dup", "https://discord.com/api/webhooks/y");
  const list = await api.call("GET", `${api.root}/channels/`);
  assert.is(list.status, 200);
  const channels = (list.json as { channels: Json[] }).channels;
  assert.equal(
    channels.map((c) => Object.keys(c).sort()),
    channels.map(() => ["id", "kind", "name"]),
  );
  assert.equal(channels.map((c) => `${c.name}:${c.kind}`).sort(), ["dup:discord", "dup:slack", "hook:webhook", "ops:email"]);
  const all = await api.create({ channels: "*" });
  assert.equal((all.channels as string).split(",").length, 4);
  const named = await api.create({ channels: `ops,${hook}` });
  assert.is(named.channels, [email, hook].sort().join(","));
  const byId = await api.create({ channels: dup1 });
  assert.is(byId.channels, dup1);
  const emptyOnCreate = await api.create({ channels: "" });
  assert.is(emptyOnCreate.channels, "");
  for (const channels of ["dup", "ops ", " ops", "ops,nope", ","]) {
    const res = await api.call("POST", `${api.root}/checks/${named.uuid}`, { body: { channels, name: "changed" } });
    assert.is(res.status, 400, channels);
  }
  const unchanged = (await api.call("GET", `${api.root}/checks/${named.uuid}`)).json as Json;
  assert.equal(unchanged, named);
  const cleared = await api.call("POST", `${api.root}/checks/${named.uuid}`, { body: { channels: "" } });
  assert.is((cleared.json as Json).channels, "");
  const other = await api.newProject();
  const foreign = await api.call("POST", `${api.root}/checks/`, { key: other.apiKey, body: { channels: email } });
  assert.is(foreign.status, 400, "another project's channel never matches");
});

each('badges: "*" plus every tag, six signed URLs each', async (api) => {
  await api.create({ tags: "prod  db" });
  await api.create({ tags: "db web" });
  const res = await api.call("GET", `${api.root}/badges/`);
  assert.is(res.status, 200);
  const badges = (res.json as { badges: Record<string, Record<string, string>> }).badges;
  assert.equal(Object.keys(badges).sort(), ["*", "db", "prod", "web"]);
  for (const [tag, urls] of Object.entries(badges)) {
    assert.equal(Object.keys(urls).sort(), ["json", "json3", "shields", "shields3", "svg", "svg3"]);
    const tail = tag === "*" ? "" : `/${tag}`;
    assert.match(urls.svg, new RegExp(`^${SITE}/badge/[^/]+/[A-Za-z0-9_-]{8}-2${tail}\\.svg$`));
    assert.match(urls.svg3, new RegExp(`^${SITE}/badge/[^/]+/[A-Za-z0-9_-]{8}${tail}\\.svg$`));
    assert.match(urls.shields3, /\.shields$/);
    assert.match(urls.json, /-2(\/[a-z]+)?\.json$/);
  }
});

each("status answers 200 without a key", async (api) => {
  const res = await api.call("GET", `${api.root}/status/`, { key: null });
  assert.is(res.status, 200);
});

let probeFails = false;
each(
  "status answers 500 when the store probe fails",
  async (api) => {
    probeFails = true;
    const res = await api.call("GET", `${api.root}/status/`, { key: null });
    probeFails = false;
    assert.is(res.status, 500);
    assert.type((res.json as Json).error, "string");
    assert.is(api.unexpected.length, 1, "the probe failure is reported");
    api.unexpected.length = 0;
  },
  {
    pool: (pool) => ({
      ...bindAll(pool),
      probe: async () => {
        if (probeFails) throw new Error("disk gone");
      },
    }),
  },
);

each("CORS on every API answer, OPTIONS preflight without a key, 405 JSON for other methods", async (api) => {
  const check = await api.create();
  const preflight = await api.call("OPTIONS", `${api.root}/checks/${check.uuid}`, { key: null });
  assert.is(preflight.status, 204);
  assert.is(preflight.headers.get("access-control-allow-origin"), "*");
  assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /X-Api-Key/);
  assert.is(preflight.headers.get("access-control-allow-methods"), "GET, POST, DELETE, OPTIONS");
  assert.is(preflight.headers.get("access-control-max-age"), "600");
  for (const [method, path, key] of [
    ["GET", `${api.root}/checks/`, undefined],
    ["GET", `${api.root}/checks/`, null],
    ["GET", `${api.root}/channels`, undefined],
  ] as const) {
    const res = await api.call(method, path, { key });
    assert.is(res.headers.get("access-control-allow-origin"), "*", `${method} ${path} ${key}`);
  }
  const wrongMethod = await api.call("PUT", `${api.root}/checks/`);
  assert.is(wrongMethod.status, 405);
  assert.type((wrongMethod.json as Json).error, "string");
  assert.is(wrongMethod.headers.get("access-control-allow-origin"), "*");
  assert.is((await api.call("DELETE", `${api.root}/checks/`)).status, 405);
  assert.is((await api.call("POST", `${api.root}/checks/${check.uuid}/pings/`)).status, 405);
  assert.is((await api.call("GET", `${api.root}/checks/${check.uuid}/pause`)).status, 405);
  assert.is((await api.call("POST", `${api.root}/checks/${uniqueKeyOf(check.uuid as string)}`, { body: {} })).status, 405);
  assert.is((await api.call("OPTIONS", `${api.root}/checks/`)).headers.get("access-control-allow-methods"), "GET, POST, OPTIONS");
});

each("every path answers with and without its trailing slash", async (api) => {
  const check = await api.create();
  const uuid = check.uuid as string;
  for (const path of [
    `${api.root}/checks`,
    `${api.root}/checks/${uuid}`,
    `${api.root}/checks/${uuid}/pings`,
    `${api.root}/checks/${uuid}/flips`,
    `${api.root}/channels`,
    `${api.root}/badges`,
    `${api.root}/status`,
  ]) {
    assert.is((await api.call("GET", path)).status, 200, path);
    assert.is((await api.call("GET", `${path}/`)).status, 200, `${path}/`);
  }
  assert.is((await api.call("POST", `${api.root}/checks/${uuid}/pause/`)).status, 200);
  assert.is((await api.call("POST", `${api.root}/checks/${uuid}/resume`)).status, 200);
});

each("unknown API paths answer a JSON 404", async (api) => {
  for (const path of [`${api.root}/nothing`, `${api.root}/checks/x/y/z`, "/api/v4/checks/"]) {
    const res = await api.call("GET", path);
    assert.is(res.status, 404, path);
    assert.type((res.json as Json).error, "string", path);
  }
});

each("a body over 64 KiB answers 413 with a JSON error", async (api) => {
  const res = await api.call("POST", `${api.root}/checks/`, { body: { name: "x", desc: "d".repeat(70_000) } });
  assert.is(res.status, 413);
  assert.type((res.json as Json).error, "string");
});

each(
  "the rate limit answers 429 past the per-minute limit of a key, and resets the next minute",
  async (api) => {
    const limited = async () => (await api.call("GET", `${api.root}/checks/`)).status;
    assert.equal([await limited(), await limited(), await limited()], [200, 200, 429]);
    const res = await api.call("GET", `${api.root}/checks/`);
    assert.type((res.json as Json).error, "string");
    assert.ok(Number(res.headers.get("retry-after")) >= 1);
    const other = await api.call("GET", `${api.root}/checks/`, { key: api.project.apiKeyReadonly });
    assert.is(other.status, 200, "another key has its own budget");
    api.clock.advance(MINUTE);
    assert.is(await limited(), 200);
  },
  { apiRateLimit: 2 },
);

/** Returns the pool's methods bound to it, so a test can replace one. */
function bindAll<T extends object>(target: T): T {
  const out: Record<string, unknown> = {};
  let proto: object | null = target;
  while (proto !== null && proto !== Object.prototype) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const value = (target as Record<string, unknown>)[name];
      if (name !== "constructor" && typeof value === "function" && !(name in out)) out[name] = value.bind(target);
    }
    proto = Object.getPrototypeOf(proto);
  }
  return out as T;
}

test.run();
