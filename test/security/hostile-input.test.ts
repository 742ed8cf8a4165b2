// Hostile input against the real server process: malformed and truncated JSON, wrong types and nulls in
// every create/update field, huge and deeply nested bodies, oversized headers and URLs, invalid UTF-8,
// NUL bytes, path tricks and every method on every route. Pass = no 5xx, no unexpected error in the
// server's output, the server alive, and a full API dump of the project identical before and after.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import type { Populated, RawAnswer, RealServer } from "./real-server.ts";
import {
  abortedIn,
  call,
  createProject,
  dumpDiff,
  dumpProject,
  ok,
  populate,
  rawRequest,
  startServer,
  stopServer,
  troubleIn,
} from "./real-server.ts";

const TOKEN = "hostile-input-admin-token-0123456789";
const dir = tempDir();
let server: RealServer;
let target: Populated; // the project every request of this file aims at; its dump must not change
let before = "";
const seen = { requests: 0, fiveHundreds: [] as string[] };

/** Records an answer; any 5xx is a failure reported at the end with the request that caused it. */
function note(what: string, status: number | null): number | null {
  seen.requests += 1;
  if (status !== null && status >= 500) seen.fiveHundreds.push(`${status} ${what}`);
  return status;
}

async function send(method: string, path: string, opts: { key?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  const answer = await call(server.url, method, path, opts);
  note(
    `${method} ${path} ${typeof opts.body === "string" ? opts.body.slice(0, 60) : JSON.stringify(opts.body ?? "").slice(0, 60)}`,
    answer.status,
  );
  return answer;
}

async function raw(request: string | Buffer, timeoutMs = 2_000): Promise<RawAnswer> {
  const answer = await rawRequest(server.port, typeof request === "string" ? Buffer.from(request, "latin1") : request, { timeoutMs });
  note(`raw ${JSON.stringify(request.toString("latin1").slice(0, 80))}`, answer.status);
  return answer;
}

/** Fails with the first differing lines when the target project's dump changed. */
async function unchanged(what: string): Promise<void> {
  const diff = dumpDiff(before, await dumpProject(server.url, target.project));
  assert.ok(diff === "", `${what}: ${diff}`);
}

/** A request line plus headers that closes the connection after the answer. */
const http = (line: string, headers: string[] = [], body = "") =>
  `${line} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n${headers.map((h) => h + "\r\n").join("")}\r\n${body}`;

test.before(async () => {
  server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, CLOCK: "virtual" } });
  target = await populate(server, TOKEN, "target");
  before = await dumpProject(server.url, target.project);
});

test.after(async () => {
  if (server) await stopServer(server);
  dir.remove();
});

test("malformed, truncated and non-object JSON bodies answer 400 JSON on every JSON endpoint", async () => {
  const { api_key: key } = target.project;
  const uuid = target.checks[0].uuid;
  const bodies = [
    "{",
    "}",
    "[",
    '{"name": "x',
    '{"name": "x"',
    '{"name": "x"}}',
    '{"name": }',
    "{'name': 'x'}",
    '{"name": "x",}',
    "nul",
    "tru",
    "NaN",
    "Infinity",
    "undefined",
    "[]",
    "123",
    '"text"',
    "true",
    "name=foo&timeout=60",
    '{"name": "\\ud800"',
    '{"timeout": 1e999',
    "\uFEFF{}x",
    '{"a":1}{"b":2}',
    "\0",
    '{"name":"a\0b"}',
    "{" + " ".repeat(5000),
  ];
  const endpoints: [string, string, Record<string, string>][] = [
    ["POST", "/api/v3/checks/", { "x-api-key": key }],
    ["POST", `/api/v3/checks/${uuid}`, { "x-api-key": key }],
    ["POST", `/api/v3/checks/${uuid}/pause`, { "x-api-key": key }],
    ["POST", `/api/v3/checks/${uuid}/resume`, { "x-api-key": key }],
    ["POST", "/admin/v1/projects", { authorization: `Bearer ${TOKEN}` }],
    ["POST", `/admin/v1/projects/${target.project.id}/channels`, { authorization: `Bearer ${TOKEN}` }],
    ["POST", "/admin/v1/clock", { authorization: `Bearer ${TOKEN}` }],
    ["POST", "/admin/v1/prune", { authorization: `Bearer ${TOKEN}` }],
  ];
  for (const [method, path, headers] of endpoints) {
    for (const body of bodies) {
      // pause and resume take a JSON null as an empty body (project decision); "null" is not in the list
      const answer = await send(method, path, { headers, body });
      assert.is(answer.status, 400, `${method} ${path} ${JSON.stringify(body)} → ${answer.status} ${answer.text}`);
      assert.type((JSON.parse(answer.text) as { error: unknown }).error, "string");
    }
  }
});

test("invalid UTF-8 bodies answer 400", async () => {
  for (const bytes of [
    [0xff, 0xfe, 0x7b, 0x7d],
    [0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d],
    [0x7b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x3a, 0x31, 0x7d],
  ]) {
    const answer = await send("POST", "/api/v3/checks/", { key: target.project.api_key, body: new Uint8Array(bytes) });
    assert.is(answer.status, 400, answer.text);
  }
});

// Values that are wrong for each field (strict typing, ranges, patterns, lengths: research §4).
const NOT_STRING = [null, true, 0, 1.5, [], {}, ["x"]];
const WRONG: Record<string, unknown[]> = {
  name: [...NOT_STRING, "n".repeat(101)],
  slug: [...NOT_STRING, "UPPER", "with space", "dot.dot", "s".repeat(101), "../x", "\0"],
  tags: NOT_STRING,
  desc: NOT_STRING,
  timeout: [null, true, false, "60", "86400", 59, 0, -60, 31_536_001, 60.5, 1e300, [], {}, [60]],
  grace: [null, true, false, "60", 59, -1, 31_536_001, 3600.25, [], {}],
  schedule: [...NOT_STRING, "", " ", "not a cron", "* * * * * *", "0 0 31 2 *", "61 * * * *", "s".repeat(101), "\0"],
  tz: [...NOT_STRING, "", "Mars/Olympus", "utc ", "Europe/../etc/passwd", "\0"],
  manual_resume: [null, "true", 1, 0, "false", [], {}],
  methods: [null, "GET", "post", " POST", 1, [], {}],
  channels: [...NOT_STRING, "no-such-channel", ",", `${"x".repeat(36)}`, "00000000-0000-4000-8000-000000000000"],
  unique: [null, "name", ["bogus"], [1], [null], {}, true],
  start_kw: [...NOT_STRING, "k".repeat(201)],
  success_kw: [...NOT_STRING, "k".repeat(201)],
  failure_kw: [...NOT_STRING, "k".repeat(201)],
  subject: [...NOT_STRING, "k".repeat(201)],
  subject_fail: [...NOT_STRING, "k".repeat(201)],
  filter_subject: [null, "true", 1, 0, [], {}],
  filter_body: [null, "true", 1, 0, [], {}],
  filter_http_body: [null, "true", 1, 0, [], {}],
  filter_default_fail: [null, "true", 1, 0, [], {}],
  failure_threshold: [null, true, "3", 0, 101, -1, 2.5, 1e300, [], {}],
  reminder_interval: [null, true, "300", -300, 1, 299, 31_536_001, 300.5, 1e300, [], {}],
  max_duration: [null, true, "60", -60, 1, 59, 604_801, 60.5, 1e300, [], {}],
  muted_until: [true, 0, 1767225600, "", " ", "tomorrow", "2026-02-30T00:00:00Z", "2026-01-01T25:00:00Z", "\0", "9".repeat(10_000), [], {}],
};

test("a wrong type, null or out-of-range value in any create/update field answers 400 and changes nothing", async () => {
  const { api_key: key } = target.project;
  const uuid = target.checks[1].uuid;
  for (const [field, values] of Object.entries(WRONG)) {
    for (const value of values) {
      const body = { [field]: value };
      const created = await send("POST", "/api/v3/checks/", { key, body });
      assert.is(created.status, 400, `create ${JSON.stringify(body)} → ${created.status} ${created.text}`);
      assert.type((JSON.parse(created.text) as { error: unknown }).error, "string");
      // the same wrong value beside valid ones: the whole request is refused
      const updated = await send("POST", `/api/v3/checks/${uuid}`, { key, body: { name: "renamed", timeout: 120, ...body } });
      assert.is(updated.status, 400, `update ${JSON.stringify(body)} → ${updated.status} ${updated.text}`);
    }
  }
  await unchanged("nothing changed");
});

test("admin inputs of the wrong type answer 400", async () => {
  const headers = { authorization: `Bearer ${TOKEN}` };
  for (const body of [
    {},
    { name: null },
    { name: 1 },
    { name: "x".repeat(101) },
    { name: "p", check_limit: "5" },
    { name: "p", check_limit: -1 },
    { name: "p", ping_log_limit: 0 },
    { name: "p", ping_body_limit: 1.5 },
    { name: "p", ping_body_limit: 1e300 },
  ]) {
    const answer = await send("POST", "/admin/v1/projects", { headers, body });
    assert.is(answer.status, 400, `${JSON.stringify(body)} → ${answer.status} ${answer.text}`);
  }
  const channels = `/admin/v1/projects/${target.project.id}/channels`;
  for (const body of [
    {},
    { kind: "sms", value: "x" },
    { kind: null },
    { kind: "email", value: null },
    { kind: "email", value: "not-an-address" },
    { kind: "email", value: ["a@b.c"] },
    { kind: "webhook", value: "file:///etc/passwd" },
    { kind: "webhook", value: { url_down: "javascript:alert(1)" } },
    { kind: "webhook", value: { url_down: "http://x/", headers_down: { "bad header": "v" } } },
    { kind: "webhook", value: { url_down: "http://x/", headers_down: { h: 1 } } },
    { kind: "webhook", value: { url_down: "http://x/", method_down: "TRACE" } },
    { kind: "ntfy", value: { url: "http://x", topic: "a/b" } },
    { kind: "ntfy", value: { url: "http://x", topic: "t", priority_down: 9 } },
    { kind: "slack", value: 5 },
    { kind: "email", name: 5, value: "a@b.c" },
  ]) {
    const answer = await send("POST", channels, { headers, body });
    assert.is(answer.status, 400, `${JSON.stringify(body)} → ${answer.status} ${answer.text}`);
  }
  for (const body of [{}, { advance: -1 }, { advance: "10" }, { advance: null }, { advance: 1e300 }]) {
    assert.is((await send("POST", "/admin/v1/clock", { headers, body })).status, 400, JSON.stringify(body));
  }
  assert.is((await send("POST", "/admin/v1/prune", { headers, body: { before: "yesterday" } })).status, 400);
  assert.is(
    (await send("POST", "/admin/v1/projects/not-a-project/channels", { headers, body: { kind: "email", value: "a@b.c" } })).status,
    404,
  );
  await unchanged("nothing changed");
});

test("huge bodies answer 413 JSON; deeply nested JSON is refused or ignored without harm", async () => {
  const { api_key: key } = target.project;
  const uuid = target.checks[0].uuid;
  const huge = JSON.stringify({ name: "x".repeat(2_000_000) });
  for (const path of ["/api/v3/checks/", `/api/v3/checks/${uuid}`, `/api/v3/checks/${uuid}/pause`]) {
    const answer = await send("POST", path, { key, body: huge });
    assert.is(answer.status, 413, `${path} → ${answer.status}`);
    assert.type((JSON.parse(answer.text) as { error: unknown }).error, "string");
  }
  const admin = await send("POST", "/admin/v1/projects", { headers: { authorization: `Bearer ${TOKEN}` }, body: huge });
  assert.is(admin.status, 413);
  // within the 64 kB limit: 30 000 levels of arrays, then of objects under an unknown field
  const arrays = "[".repeat(30_000) + "]".repeat(30_000);
  assert.is((await send("POST", "/api/v3/checks/", { key, body: arrays })).status, 400);
  const objects = '{"x":'.repeat(10_000) + "1" + "}".repeat(10_000);
  assert.is((await send("POST", "/api/v3/checks/", { key, body: `{"timeout": "bad", "deep": ${objects}}` })).status, 400);
  // an update whose only field is unknown is a valid no-op (unknown fields are ignored)
  const noop = await send("POST", `/api/v3/checks/${uuid}`, { key, body: `{"deep": ${objects}}` });
  assert.is(noop.status, 200, noop.text);
  // many keys
  const wide = JSON.stringify(Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`k${i}`, i])));
  assert.is((await send("POST", `/api/v3/checks/${uuid}`, { key, body: wide })).status, 200);
  await unchanged("nothing changed");
});

test("oversized headers and URLs answer 431 or 414-like 4xx; the server stays up", async () => {
  const { api_key: key } = target.project;
  for (const request of [
    http("GET /api/v3/checks/", [`X-Api-Key: ${key}`, `X-Big: ${"a".repeat(20_000)}`]),
    http(`GET /api/v3/checks/?${"tag=a&".repeat(4_000)}`, [`X-Api-Key: ${key}`]),
    http(`GET /ping/${target.checks[0].uuid}/${"x".repeat(30_000)}`),
    http(`GET /${"a".repeat(100_000)}`),
    http(
      "GET /api/v3/checks/",
      Array.from({ length: 3_000 }, (_, i) => `X-H${i}: v`),
    ),
    http("GET /api/v3/checks/", [`X-Api-Key: ${"k".repeat(15_000)}`]),
  ]) {
    const answer = await raw(request);
    assert.ok(answer.status !== null && answer.status >= 400 && answer.status < 500, `${answer.status} ${answer.raw.slice(0, 100)}`);
  }
  // a long but acceptable query: fine
  const many = await send("GET", `/api/v3/checks/?${"tag=a&".repeat(1_500)}`, { key });
  assert.is(many.status, 200);
});

test("malformed HTTP: bad request lines, invalid UTF-8, NUL bytes, smuggling headers, bad chunking answer 4xx or close", async () => {
  const { api_key: key } = target.project;
  const uuid = target.checks[0].uuid;
  const requests = [
    "GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    "OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    "GET api/v3/checks/ HTTP/1.1\r\nHost: x\r\n\r\n",
    "GET http://evil.example/api/v3/checks/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    "GET / HTTP/1.0\r\n\r\n",
    "GET / HTTP/9.9\r\nHost: x\r\n\r\n",
    "GET /\r\n\r\n",
    "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
    "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", // a TLS ClientHello on the plain port
    "FOO /api/v3/checks/ HTTP/1.1\r\nHost: x\r\n\r\n",
    "CONNECT localhost:80 HTTP/1.1\r\nHost: x\r\n\r\n",
    http("GET /api/v3/checks/\xff\xfe", [`X-Api-Key: ${key}`]),
    http("GET /ping/\xff"),
    http("GET /ping/\0"),
    http("GET /api/v3/checks/", [`X-Api-Key: a\0b`]),
    http("GET /api/v3/checks/", ["X-Api-Key: \xe9\xff\xfe"]),
    http("GET /admin/v1/projects", ["Authorization: Bearer \xff\xfe\0"]),
    http("GET /api/v3/checks/", ["Host: \xff", `X-Api-Key: ${key}`]),
    http("GET /api/v3/checks/", [`X-Api-Key: ${key}`, `X-Api-Key: ${key}`]),
    http("POST /api/v3/checks/", ["Content-Length: 5", "Transfer-Encoding: chunked", `X-Api-Key: ${key}`], "0\r\n\r\n"),
    http("POST /api/v3/checks/", ["Content-Length: abc", `X-Api-Key: ${key}`]),
    http("POST /api/v3/checks/", ["Content-Length: -1", `X-Api-Key: ${key}`]),
    http("POST /api/v3/checks/", ["Content-Length: 2", "Content-Length: 3", `X-Api-Key: ${key}`], "{}"),
    http("POST /api/v3/checks/", ["Transfer-Encoding: chunked", `X-Api-Key: ${key}`], "zz\r\nabc\r\n0\r\n\r\n"),
    http("POST /api/v3/checks/", ["Transfer-Encoding: chunked", `X-Api-Key: ${key}`], "fffffffffffffffffff\r\nabc\r\n0\r\n\r\n"),
    http("POST /api/v3/checks/", ["Transfer-Encoding: gzip", `X-Api-Key: ${key}`], "abc"),
    http("POST /api/v3/checks/", ["Content-Encoding: gzip", `X-Api-Key: ${key}`, "Content-Length: 4"], "\x1f\x8b\x08\x00"),
    http(`POST /ping/${uuid}/fail`, ["Transfer-Encoding: chunked"], "5\r\nab"), // truncated chunk, then the client half-closes
    http("GET /api/v3/checks/\r\nX-Api-Key: injected"),
    http("GET /api/v3/checks/ HTTP/1.1\r\nX-Injected: 1"),
    "GET /api/v3/checks/ HTTP/1.1\nHost: x\nX-Api-Key: " + key + "\nConnection: close\n\n",
    "GET /api/v3/checks/ HTTP/1.1\r\nHost: x\r\n X-Api-Key: folded\r\nConnection: close\r\n\r\n",
  ];
  for (const request of requests) {
    const answer = await raw(request);
    assert.ok(
      answer.status === null || (answer.status >= 200 && answer.status < 500),
      `${JSON.stringify(request.slice(0, 60))} → ${answer.status}`,
    );
  }
  await unchanged("nothing changed");
});

test("path tricks: dot segments, encoded slashes, upper-case uuids, double slashes never reach another route unauthenticated", async () => {
  const { api_key: key } = target.project;
  const uuid = target.checks[0].uuid;
  const other = target.checks[1].uuid;
  const cases: [request: string, allowed: number[]][] = [
    [http(`GET /ping/${uuid}/../../admin/v1/projects`), [401, 404]],
    [http("GET /ping/%2e%2e/admin/v1/projects"), [401, 404]],
    [http("GET /badge/..%2f..%2fadmin/v1/projects"), [401, 404]],
    [http("GET /api/v3/checks/../../admin/v1/projects", [`X-Api-Key: ${key}`]), [401, 404]],
    [http(`GET /api/v3/checks/${uuid}%2Fpause`, [`X-Api-Key: ${key}`]), [404]],
    [http(`POST /api/v3/checks/${uuid}%2fpause`, [`X-Api-Key: ${key}`, "Content-Length: 0"]), [404]],
    [http(`GET /api/v3/checks%2F${uuid}`, [`X-Api-Key: ${key}`]), [404]],
    [http(`GET /api/v3/checks/${uuid.toUpperCase()}`, [`X-Api-Key: ${key}`]), [404]],
    [http(`DELETE /api/v3/checks/${uuid.toUpperCase()}`, [`X-Api-Key: ${key}`]), [404]],
    [http(`GET /ping/${uuid.toUpperCase()}`), [404]],
    [http(`GET /ping/${uuid.toUpperCase()}/fail`), [404]],
    [http(`GET /ping/${uuid}%2Ffail`), [404]],
    [http(`GET /ping/${uuid}//fail`), [404]],
    [http(`GET //ping/${uuid}`), [404]],
    [http("GET //api/v3/checks/", [`X-Api-Key: ${key}`]), [404]],
    [http("GET /api/v3//checks/", [`X-Api-Key: ${key}`]), [404]],
    [http(`GET /api/v3/checks//${uuid}`, [`X-Api-Key: ${key}`]), [404]],
    [http(`DELETE /api/v3/checks/${uuid}/`, ["Content-Length: 0"]), [401, 404]],
    [http(`POST /api/v3/checks/${uuid}/./pause`, ["Content-Length: 0"]), [401]],
    [http(`POST /api/v3/checks/${other}/../${uuid}/pause`, ["Content-Length: 0"]), [401]],
    [http("GET //localhost/admin/v1/projects"), [401, 404]],
    [http(`GET /ping/${target.project.ping_key}/..%2F..%2Fadmin`), [404]],
    [http(`GET /ping/${target.project.ping_key}/slug-target%00`), [404]],
    [http(`GET /ping/${target.project.ping_key}/SLUG-TARGET/fail`), [400, 404]],
    [http(`GET /api/v3/checks/${target.checks[0].unique_key.toUpperCase()}`, [`X-Api-Key: ${key}`]), [404]],
    [http(`GET /api/v3/checks/${uuid}/pings/-1/body`, [`X-Api-Key: ${key}`]), [404]],
    [http(`GET /api/v3/checks/${uuid}/pings/1e3/body`, [`X-Api-Key: ${key}`]), [404]],
    [http(`GET /api/v3/checks/${uuid}/pings/99999999999999999999999/body`, [`X-Api-Key: ${key}`]), [404]],
    [http(`GET /api/v3/checks/${uuid}/flips/?seconds=1e999&start=-0`, [`X-Api-Key: ${key}`]), [400]],
    [http(`GET /api/v3/checks/${uuid}/flips/?start=%ff%fe`, [`X-Api-Key: ${key}`]), [400]],
    [http("GET /api/v3/checks/?tag=%ff&slug=%00&tag=%", [`X-Api-Key: ${key}`]), [200]],
    [http(`GET /ping/${uuid}?rid=%ZZ&create=%ff`), [400]],
    [http("GET /badge/%ff/%ff/%ff.svg"), [400, 404]],
    [http("GET /badge/a/b/%E0%A4%A.svg"), [400, 404]],
    [http("GET /b/2/%ff.svg"), [400, 404]],
    [http("GET /b/99999999999999999999/x.svg"), [404]],
  ];
  for (const [request, allowed] of cases) {
    const answer = await raw(request);
    assert.ok(
      answer.status !== null && allowed.includes(answer.status),
      `${JSON.stringify(request.split("\r\n")[0])} → ${answer.status}, expected ${allowed.join("/")}`,
    );
  }
  await unchanged("nothing changed");
});

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "PROPFIND", "LOCK", "PURGE", "SEARCH"];

test("every HTTP method on every route: no 5xx; unsupported methods 405; without a key nothing changes", async () => {
  const { api_key: key, api_key_readonly: ro } = target.project;
  const [c0] = target.checks;
  const routes = [
    "/api/v3/checks/",
    `/api/v3/checks/${c0.uuid}`,
    `/api/v3/checks/${c0.unique_key}`,
    `/api/v3/checks/${c0.uuid}/pause`,
    `/api/v3/checks/${c0.uuid}/resume`,
    `/api/v3/checks/${c0.uuid}/pings/`,
    `/api/v3/checks/${c0.uuid}/pings/1/body`,
    `/api/v3/checks/${c0.uuid}/flips/`,
    `/api/v3/checks/${c0.unique_key}/flips/`,
    "/api/v3/channels/",
    "/api/v3/badges/",
    "/api/v3/status/",
    "/admin/v1/projects",
    `/admin/v1/projects/${target.project.id}/channels`,
    "/admin/v1/clock",
    "/admin/v1/prune",
    new URL(c0.badge_url).pathname,
    "/badge/x/y/z.svg",
    "/",
    "/nope",
  ];
  // Which methods each route serves (the spec and CONTRACT.md), written here rather than read from the server.
  const served = new Map<string, string[]>([
    ["/api/v3/checks/", ["GET", "POST"]],
    [`/api/v3/checks/${c0.uuid}`, ["GET", "POST", "DELETE"]],
    [`/api/v3/checks/${c0.unique_key}`, ["GET"]],
    [`/api/v3/checks/${c0.uuid}/pause`, ["POST"]],
    [`/api/v3/checks/${c0.uuid}/resume`, ["POST"]],
    [`/api/v3/checks/${c0.uuid}/pings/`, ["GET"]],
    [`/api/v3/checks/${c0.uuid}/pings/1/body`, ["GET"]],
    [`/api/v3/checks/${c0.uuid}/flips/`, ["GET"]],
    [`/api/v3/checks/${c0.unique_key}/flips/`, ["GET"]],
    ["/api/v3/channels/", ["GET"]],
    ["/api/v3/badges/", ["GET"]],
    ["/admin/v1/projects", ["GET", "POST"]],
    [`/admin/v1/projects/${target.project.id}/channels`, ["GET", "POST"]],
    ["/admin/v1/clock", ["GET", "POST"]],
    ["/admin/v1/prune", ["POST"]],
  ]);
  // read-only keys read checks, flips and badges; channels and ping logs need the read-write key (spec)
  const readOnlyReads = new Set([
    "/api/v3/checks/",
    `/api/v3/checks/${c0.uuid}`,
    `/api/v3/checks/${c0.unique_key}`,
    `/api/v3/checks/${c0.uuid}/flips/`,
    `/api/v3/checks/${c0.unique_key}/flips/`,
    "/api/v3/badges/",
  ]);
  const badge = new URL(c0.badge_url).pathname;
  /** The one status a request must get; `as` is the key it carries. */
  const expected = (method: string, path: string, as: "none" | "ro" | "rw"): number => {
    if (path === "/api/v3/status/") return 200; // answers every method, with or without a key
    if (path === "/") return method === "GET" || method === "HEAD" ? 200 : 404; // the dashboard's sign-in page
    if (path === "/nope") return 404;
    if (path === badge || path.startsWith("/badge/")) {
      if (method === "OPTIONS") return 204;
      if (method !== "GET" && method !== "HEAD") return 405;
      return path === badge ? 200 : 404; // a forged or unknown badge is not found
    }
    if (method === "OPTIONS" && path.startsWith("/api/v3/")) return 204; // CORS preflight
    const methods = served.get(path);
    if (methods === undefined) throw new Error(`no expectation for ${path}`);
    if (!methods.includes(method)) return 405;
    if (path.startsWith("/admin/") || as === "none") return 401; // API keys are not the admin token
    if (as === "ro" && (method !== "GET" || !readOnlyReads.has(path))) return 401;
    return path.endsWith("/pings/1/body") ? 404 : 200; // c0 has no ping #1
  };
  for (const path of routes) {
    for (const method of METHODS) {
      // no key, the read-only key, and the read-write key for methods no route handles: none may change anything
      for (const [as, headers] of [
        ["none", {}],
        ["ro", { "x-api-key": ro }],
        ...(["POST", "DELETE"].includes(method) ? [] : [["rw", { "x-api-key": key }]]),
      ] as ["none" | "ro" | "rw", Record<string, string>][]) {
        const request = http(`${method} ${path}`, [...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), "Content-Length: 0"]);
        const answer = await raw(request);
        assert.is(answer.status, expected(method, path, as), `${method} ${path} with ${as} key → ${answer.status}`);
        if (answer.status === 405) assert.match(answer.raw, /\r\nallow: /i, `405 names the allowed methods (${method} ${path})`);
      }
    }
  }
  await unchanged("nothing changed");
});

test("every HTTP method is a ping on ping routes, on a project of its own; bodies with NUL bytes and invalid UTF-8 are stored as sent", async () => {
  const scratch = await createProject(server, TOKEN, { name: "scratch" });
  const check = await ok<{ uuid: string }>(
    call(server.url, "POST", "/api/v3/checks/", { key: scratch.api_key, body: { name: "pinged", slug: "pinged" } }),
  );
  let pings = 0;
  for (const method of METHODS.filter((m) => m !== "HEAD")) {
    for (const path of [
      `/ping/${check.uuid}`,
      `/ping/${check.uuid}/log`,
      `/ping/${scratch.ping_key}/pinged/start`,
      `/ping/${scratch.ping_key}/pinged/0`,
    ]) {
      const answer = await raw(http(`${method} ${path}`, ["Content-Length: 0"]));
      assert.is(answer.status, 200, `${method} ${path} → ${answer.status}`);
      pings += 1;
    }
  }
  const odd = await raw(
    http(`GET /ping/${check.uuid}`, ["X-Forwarded-For: \xff\xfe,,", "User-Agent: \xff\x80\x00", "X-Forwarded-Proto: \xff"]),
  );
  assert.ok(odd.status === 200 || odd.status === 400, `${odd.status}`);
  if (odd.status === 200) pings += 1;
  const body = Buffer.from([0x00, 0xff, 0xfe, 0x41, 0x00, 0xc3, 0x28, 0x0a]);
  const sent = await raw(
    Buffer.concat([Buffer.from(http(`POST /ping/${check.uuid}/log`, [`Content-Length: ${body.length}`]), "latin1"), body]),
  );
  assert.is(sent.status, 200);
  pings += 1;
  const listed = await ok<{ pings: { n: number; body_url: string | null }[] }>(
    call(server.url, "GET", `/api/v3/checks/${check.uuid}/pings/`, { key: scratch.api_key }),
  );
  assert.is(listed.pings[0].n, pings);
  // valid JSON with a NUL and a lone surrogate in strings round-trips
  const named = await send("POST", `/api/v3/checks/${check.uuid}`, {
    key: scratch.api_key,
    body: '{"name": "a\\u0000b", "desc": "\\ud800 \\u202e"}',
  });
  assert.is(named.status, 200, named.text);
  const got = await ok<{ name: string; desc: string }>(call(server.url, "GET", `/api/v3/checks/${check.uuid}`, { key: scratch.api_key }));
  assert.is(got.name, "a\u0000b");
  await unchanged("the target project did not change");
});

test("afterwards: no 5xx anywhere, no unexpected error in the server output, the server alive and serving", async () => {
  console.log(
    `  hostile input: ${seen.requests} requests, ${seen.fiveHundreds.length} 5xx, ${abortedIn(server.output())} "Error: aborted" log lines (clients gone mid-body)`,
  );
  assert.equal(seen.fiveHundreds, []);
  assert.ok(server.alive(), "the server is still running");
  assert.is((await call(server.url, "GET", "/api/v3/status/")).status, 200);
  assert.equal(troubleIn(server.output()), [], server.output());
  await unchanged("nothing changed");
});

test.run();
