// Cross-project isolation against the real server: every /api/v3 endpoint called with another project's
// keys, the read-only key on write endpoints, no key, and the key in the wrong place. Each answer is the
// reference's (research §2: 401 missing/wrong/read-only-on-write, 403 another project's check, 404 another
// project's unique_key), nothing of the victim project appears in any answer, and the victim is unchanged.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import type { Answer, Populated, RealServer } from "./real-server.ts";
import { call, dumpDiff, dumpProject, populate, startServer, stopServer, troubleIn } from "./real-server.ts";

const TOKEN = "isolation-admin-token-0123456789abcdef";
const dir = tempDir();
let server: RealServer;
let victim: Populated;
let attacker: Populated;
let before = "";
let calls = 0;

test.before(async () => {
  server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, CLOCK: "virtual" } });
  victim = await populate(server, TOKEN, "victim");
  attacker = await populate(server, TOKEN, "attacker");
  before = await dumpProject(server.url, victim.project);
});

test.after(async () => {
  if (server) await stopServer(server);
  dir.remove();
});

type Access = "read" | "write" | "open";
type Endpoint = {
  name: string;
  method: string;
  path: string;
  access: Access;
  target: "uuid" | "unique_key" | "none";
  body?: Record<string, unknown>;
};

/** Every /api/v3 endpoint, aimed at the victim's checks where it takes one. */
function endpoints(): Endpoint[] {
  const [c0, c1, , c3] = victim.checks;
  return [
    { name: "list checks", method: "GET", path: "/api/v3/checks/", access: "read", target: "none" },
    { name: "create check", method: "POST", path: "/api/v3/checks/", access: "write", target: "none", body: { name: "intruder" } },
    { name: "get check", method: "GET", path: `/api/v3/checks/${c1.uuid}`, access: "read", target: "uuid" },
    { name: "get check by unique_key", method: "GET", path: `/api/v3/checks/${c1.unique_key}`, access: "read", target: "unique_key" },
    {
      name: "update check",
      method: "POST",
      path: `/api/v3/checks/${c1.uuid}`,
      access: "write",
      target: "uuid",
      body: { name: "hijacked" },
    },
    { name: "delete check", method: "DELETE", path: `/api/v3/checks/${c0.uuid}`, access: "write", target: "uuid" },
    { name: "pause check", method: "POST", path: `/api/v3/checks/${c1.uuid}/pause`, access: "write", target: "uuid" },
    { name: "resume check", method: "POST", path: `/api/v3/checks/${c3.uuid}/resume`, access: "write", target: "uuid" },
    { name: "list pings", method: "GET", path: `/api/v3/checks/${c1.uuid}/pings/`, access: "write", target: "uuid" },
    { name: "ping body", method: "GET", path: `/api/v3/checks/${c1.uuid}/pings/2/body`, access: "write", target: "uuid" },
    { name: "flips", method: "GET", path: `/api/v3/checks/${c1.uuid}/flips/`, access: "read", target: "uuid" },
    { name: "flips by unique_key", method: "GET", path: `/api/v3/checks/${c1.unique_key}/flips/`, access: "read", target: "unique_key" },
    { name: "channels", method: "GET", path: "/api/v3/channels/", access: "write", target: "none" },
    { name: "badges", method: "GET", path: "/api/v3/badges/", access: "read", target: "none" },
    { name: "status", method: "GET", path: "/api/v3/status/", access: "open", target: "none" },
  ];
}

async function send(
  endpoint: Endpoint,
  opts: { headers?: Record<string, string>; body?: Record<string, unknown>; query?: string },
): Promise<Answer> {
  calls += 1;
  const body = endpoint.method === "POST" ? { ...endpoint.body, ...opts.body } : undefined;
  return call(server.url, endpoint.method, endpoint.path + (opts.query ?? ""), { headers: opts.headers, body });
}

/** Fails when anything of the victim project (ids, keys, names, bodies, user agents) appears in an answer. */
function assertNoLeak(answer: Answer, what: string): void {
  const seen = answer.text + "\n" + [...answer.headers].map(([k, v]) => `${k}: ${v}`).join("\n");
  const leaked = victim.secrets.filter((secret) => seen.includes(secret));
  assert.equal(leaked, [], `${what} leaked ${leaked.join(", ")}: ${answer.text.slice(0, 300)}`);
}

function assertJsonError(answer: Answer, what: string): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.text);
  } catch {
    assert.unreachable(`${what}: not JSON: ${answer.text}`);
  }
  assert.type((parsed as { error: unknown }).error, "string", what);
}

test("the leak detector sees the victim's data in the victim's own answers", async () => {
  const own = await call(server.url, "GET", "/api/v3/checks/", { key: victim.project.api_key });
  const pings = await call(server.url, "GET", `/api/v3/checks/${victim.checks[1].uuid}/pings/`, { key: victim.project.api_key });
  const seen = victim.secrets.filter((secret) => own.text.includes(secret) || pings.text.includes(secret));
  assert.ok(seen.length >= 10, `found ${seen.length}`);
});

test("another project's read-write key: 403 on the victim's uuids, 404 on its unique_keys, its own data on lists", async () => {
  for (const endpoint of endpoints()) {
    const answer = await send(endpoint, { headers: { "x-api-key": attacker.project.api_key } });
    const want = endpoint.target === "uuid" ? 403 : endpoint.target === "unique_key" ? 404 : endpoint.method === "POST" ? 201 : 200;
    assert.is(answer.status, want, `${endpoint.name}: ${answer.status} ${answer.text}`);
    if (want >= 400) assertJsonError(answer, endpoint.name);
    assertNoLeak(answer, endpoint.name);
  }
});

test("another project's read-only key: 401 on write endpoints, 403/404 on the victim's checks", async () => {
  for (const endpoint of endpoints()) {
    const answer = await send(endpoint, { headers: { "x-api-key": attacker.project.api_key_readonly } });
    const want =
      endpoint.access === "open"
        ? 200
        : endpoint.access === "write"
          ? 401
          : endpoint.target === "uuid"
            ? 403
            : endpoint.target === "unique_key"
              ? 404
              : 200;
    assert.is(answer.status, want, `${endpoint.name}: ${answer.status} ${answer.text}`);
    if (want >= 400) assertJsonError(answer, endpoint.name);
    assertNoLeak(answer, endpoint.name);
  }
});

test("the project's own read-only key on write endpoints: 401 (reference: not 403), and no write happens", async () => {
  for (const endpoint of endpoints().filter((e) => e.access === "write")) {
    for (const opts of [
      { headers: { "x-api-key": victim.project.api_key_readonly } },
      { body: { api_key: victim.project.api_key_readonly } },
    ]) {
      if (opts.body && endpoint.method !== "POST") continue;
      const answer = await send(endpoint, opts);
      assert.is(answer.status, 401, `${endpoint.name}: ${answer.status} ${answer.text}`);
      assertJsonError(answer, endpoint.name);
    }
  }
});

test("no key, an empty key, a wrong key, or the key in the wrong place: 401, nothing shown", async () => {
  const key = victim.project.api_key;
  const misplaced: [string, { headers?: Record<string, string>; query?: string; body?: Record<string, unknown> }][] = [
    ["no key", {}],
    ["empty X-Api-Key", { headers: { "x-api-key": "" } }],
    ["wrong key", { headers: { "x-api-key": "x".repeat(32) } }],
    ["key with a trailing character", { headers: { "x-api-key": key + "x" } }],
    ["key minus its last character", { headers: { "x-api-key": key.slice(0, -1) } }],
    ["key in upper case", { headers: { "x-api-key": key.toUpperCase() === key ? key.toLowerCase() : key.toUpperCase() } }],
    ["read-write and read-only keys joined", { headers: { "x-api-key": `${key}, ${victim.project.api_key_readonly}` } }],
    ["ping key as API key", { headers: { "x-api-key": victim.project.ping_key } }],
    ["admin token as API key", { headers: { "x-api-key": TOKEN } }],
    ["key in the query string (api_key)", { query: `?api_key=${key}` }],
    ["key in the query string (X-Api-Key)", { query: `?X-Api-Key=${key}` }],
    ["Api-Key header", { headers: { "api-key": key } }],
    ["X-Api-Token header", { headers: { "x-api-token": key } }],
    ["Authorization: Bearer", { headers: { authorization: `Bearer ${key}` } }],
    ["Authorization: Token", { headers: { authorization: `Token ${key}` } }],
    ["Cookie", { headers: { cookie: `api_key=${key}` } }],
  ];
  for (const endpoint of endpoints().filter((e) => e.access !== "open")) {
    for (const [label, opts] of misplaced) {
      const answer = await send(endpoint, opts);
      assert.is(answer.status, 401, `${endpoint.name} with ${label}: ${answer.status} ${answer.text}`);
      assertJsonError(answer, `${endpoint.name} with ${label}`);
      assertNoLeak(answer, `${endpoint.name} with ${label}`);
    }
    if (endpoint.method === "POST") {
      // research §2: a present X-Api-Key header, even empty or wrong, wins over api_key in the body
      for (const header of ["", "wrong", attacker.project.api_key_readonly]) {
        const answer = await send(endpoint, { headers: { "x-api-key": header }, body: { api_key: key } });
        assert.is(answer.status, 401, `${endpoint.name}: header ${JSON.stringify(header)} beats the body's key → ${answer.status}`);
        assertNoLeak(answer, endpoint.name);
      }
      // api_key values that are not strings are wrong keys
      for (const value of [null, 0, true, [key], { key }]) {
        const answer = await send(endpoint, { body: { api_key: value } });
        assert.is(answer.status, 401, `${endpoint.name}: api_key ${JSON.stringify(value)} → ${answer.status}`);
      }
    }
  }
});

test("the attacker's key in the body on the victim's checks: 403, never a write", async () => {
  for (const endpoint of endpoints().filter((e) => e.method === "POST" && e.target === "uuid")) {
    const answer = await send(endpoint, { body: { api_key: attacker.project.api_key } });
    assert.is(answer.status, 403, `${endpoint.name}: ${answer.status} ${answer.text}`);
    assertNoLeak(answer, endpoint.name);
  }
});

test("another project's ping key never reaches the victim's checks, even with create=1", async () => {
  for (const suffix of ["", "/fail", "/start", "/log", "/3"]) {
    const answer = await call(server.url, "POST", `/ping/${attacker.project.ping_key}/slug-victim${suffix}`, { body: "x" });
    assert.is(answer.status, 404, `${suffix}: ${answer.status}`);
    assertNoLeak(answer, `ping ${suffix}`);
  }
  const created = await call(server.url, "GET", `/ping/${attacker.project.ping_key}/slug-victim?create=1`);
  assert.is(created.status, 201, "auto-provisioned in the attacker's own project");
  const badge = await call(server.url, "GET", new URL(victim.checks[1].badge_url).pathname.replace(/\.svg$/, ".json"));
  assert.is(badge.status, 200, "a check badge is public by design");
  assertNoLeak(
    { ...badge, text: badge.text.replace(victim.checks[1].name, "") },
    "badge (beyond the check's name, which it shows by design)",
  );
});

test("the victim project is unchanged, the server logged no unexpected error", async () => {
  console.log(`  isolation: ${calls} calls, victim unchanged`);
  const diff = dumpDiff(before, await dumpProject(server.url, victim.project));
  assert.ok(diff === "", diff);
  assert.equal(troubleIn(server.output()), [], server.output());
});

test.run();
