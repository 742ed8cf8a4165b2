// /api/v3 through app.request() on an in-process pool: every endpoint, every status of spec §7.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { MINUTE, SECOND } from "../../engine/model.ts";
import { uniqueKeyOf } from "../../host/unique-key.ts";
import type { Api } from "./harness.ts";
import { SITE, T0, withApi } from "./harness.ts";

const COMMON = [
  "name", "slug", "tags", "desc", "grace", "n_pings", "status", "started", "last_ping", "next_ping", "manual_resume",
  "methods", "subject", "subject_fail", "start_kw", "success_kw", "failure_kw", "filter_subject", "filter_body",
  "filter_http_body", "filter_default_fail", "badge_url", "failure_threshold", "reminder_interval", "muted_until",
  "max_duration", "acknowledged", "depends_on", "held_by",
];
const READ_WRITE = ["uuid", "ping_url", "update_url", "pause_url", "resume_url", "channels"];
const sorted = (keys: string[]) => [...keys].sort();
type Json = Record<string, unknown>;

async function addChannel(api: Api, kind: string, name: string, value: unknown): Promise<string> {
  const res = await api.admin("POST", `/admin/v1/projects/${api.project.id}/channels`, { kind, name, value });
  assert.is(res.status, 201, res.text);
  return (res.json as { id: string }).id;
}

test("create answers 201 with the defaults and the 32 fields of a simple check", () => withApi(async (api) => {
  const res = await api.call("POST", "/api/v3/checks/", { body: { name: "Backups" } });
  assert.is(res.status, 201);
  const check = res.json as Json;
  assert.equal(sorted(Object.keys(check)), sorted([...COMMON, ...READ_WRITE, "timeout"]));
  const uuid = check.uuid as string;
  assert.equal(check, {
    name: "Backups", slug: "", tags: "", desc: "", grace: 3600, n_pings: 0, status: "new", started: false,
    last_ping: null, next_ping: null, manual_resume: false, methods: "", subject: "", subject_fail: "",
    start_kw: "", success_kw: "", failure_kw: "", filter_subject: false, filter_body: false, filter_http_body: false,
    filter_default_fail: false, badge_url: check.badge_url, failure_threshold: 1, reminder_interval: 0, muted_until: null, max_duration: 0, acknowledged: false, depends_on: "", held_by: null,
    uuid, ping_url: `${SITE}/ping/${uuid}`, update_url: `${SITE}/api/v3/checks/${uuid}`, pause_url: `${SITE}/api/v3/checks/${uuid}/pause`,
    resume_url: `${SITE}/api/v3/checks/${uuid}/resume`, channels: "", timeout: 86400,
  });
  assert.match(check.badge_url as string, new RegExp(`^${SITE}/b/2/[0-9a-f-]{36}\\.svg$`));
  assert.ok(!(check.badge_url as string).includes(uuid), "the badge key is not the uuid");
  assert.match(res.headers.get("content-type") ?? "", /application\/json/);
}));

test("create stores every field it is given", () => withApi(async (api) => {
  const check = await api.create({
    name: "n", slug: "my-slug_1", tags: "prod db", desc: "d", timeout: 120, grace: 60, manual_resume: true, methods: "POST",
    start_kw: "go", success_kw: "ok,done", failure_kw: "ERR", filter_subject: true, filter_body: true, filter_http_body: true,
    filter_default_fail: true,
  });
  assert.equal(
    { ...check, uuid: 0, ping_url: 0, update_url: 0, pause_url: 0, resume_url: 0, badge_url: 0 },
    {
      name: "n", slug: "my-slug_1", tags: "prod db", desc: "d", grace: 60, n_pings: 0, status: "new", started: false,
      last_ping: null, next_ping: null, manual_resume: true, methods: "POST", subject: "ok,done", subject_fail: "ERR",
      start_kw: "go", success_kw: "ok,done", failure_kw: "ERR", filter_subject: true, filter_body: true,
      filter_http_body: true, filter_default_fail: true, channels: "", timeout: 120,
      failure_threshold: 1, reminder_interval: 0, muted_until: null, max_duration: 0, acknowledged: false, depends_on: "", held_by: null, uuid: 0, ping_url: 0, update_url: 0, pause_url: 0, resume_url: 0, badge_url: 0,
    },
  );
  const got = await api.call("GET", `/api/v3/checks/${check.uuid}`);
  assert.equal(got.json, check);
}));

test("the body is JSON whatever the Content-Type (curl --data), and api_key may travel in it", () => withApi(async (api) => {
  const res = await api.call("POST", "/api/v3/checks/", {
    key: null, raw: JSON.stringify({ api_key: api.project.apiKey, name: "curl" }),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  assert.is(res.status, 201, res.text);
  assert.is((res.json as Json).name, "curl");
}));

test("X-Api-Key wins over api_key in the body, even when it is empty or wrong", () => withApi(async (api) => {
  for (const header of ["", "wrong"]) {
    const res = await api.call("POST", "/api/v3/checks/", { key: header, body: { api_key: api.project.apiKey } });
    assert.is(res.status, 401, header);
  }
  assert.equal((await api.call("GET", "/api/v3/checks/")).json, { checks: [] });
}));

test("missing, wrong and non-string keys answer 401 with a JSON error", () => withApi(async (api) => {
  const rows: [string, Parameters<Api["call"]>][] = [
    ["no key on list", ["GET", "/api/v3/checks/", { key: null }]],
    ["wrong key on list", ["GET", "/api/v3/checks/", { key: "nope" }]],
    ["no key on create", ["POST", "/api/v3/checks/", { key: null, body: {} }]],
    ["numeric api_key", ["POST", "/api/v3/checks/", { key: null, body: { api_key: 123 } }]],
    ["null api_key", ["POST", "/api/v3/checks/", { key: null, body: { api_key: null } }]],
    ["channels without key", ["GET", "/api/v3/channels/", { key: null }]],
    ["badges without key", ["GET", "/api/v3/badges/", { key: null }]],
  ];
  for (const [name, args] of rows) {
    const res = await api.call(...args);
    assert.is(res.status, 401, name);
    assert.type((res.json as Json).error, "string", name);
  }
}));

test("a read-only key reads checks without the sensitive fields, and is refused (401) on write endpoints", () => withApi(async (api) => {
  const check = await api.create({ name: "ro", tags: "a" });
  const ro = api.project.apiKeyReadonly;
  const list = await api.call("GET", "/api/v3/checks/", { key: ro });
  assert.is(list.status, 200);
  const [shown] = (list.json as { checks: Json[] }).checks;
  assert.equal(sorted(Object.keys(shown)), sorted([...COMMON, "unique_key", "timeout"]));
  assert.is(shown.unique_key, uniqueKeyOf(check.uuid as string));
  const byKey = await api.call("GET", `/api/v3/checks/${shown.unique_key}`, { key: ro });
  assert.equal(byKey.json, shown);
  assert.is((await api.call("GET", `/api/v3/checks/${check.uuid}`, { key: ro })).status, 200);
  assert.is((await api.call("GET", `/api/v3/checks/${check.uuid}/flips/`, { key: ro })).status, 200);
  assert.is((await api.call("GET", "/api/v3/badges/", { key: ro })).status, 200);
  const writes: [string, string][] = [
    ["POST", "/api/v3/checks/"], ["POST", `/api/v3/checks/${check.uuid}`], ["DELETE", `/api/v3/checks/${check.uuid}`],
    ["POST", `/api/v3/checks/${check.uuid}/pause`], ["POST", `/api/v3/checks/${check.uuid}/resume`],
    ["GET", `/api/v3/checks/${check.uuid}/pings/`], ["GET", `/api/v3/checks/${check.uuid}/pings/1/body`], ["GET", "/api/v3/channels/"],
  ];
  for (const [method, path] of writes) {
    assert.is((await api.call(method, path, { key: ro, body: method === "POST" ? {} : undefined })).status, 401, `${method} ${path}`);
  }
  const after = await api.call("GET", `/api/v3/checks/${check.uuid}`);
  assert.equal(after.json, check);
}));

test("unparsable or non-object bodies answer 400 before the key is looked at", () => withApi(async (api) => {
  for (const raw of ["{", "[]", "123", "\"x\"", "null", "true", "name=foo", "\xff"]) {
    const res = await api.call("POST", "/api/v3/checks/", { key: null, raw });
    assert.is(res.status, 400, raw);
    assert.type((res.json as Json).error, "string");
  }
  const invalidUtf8 = await api.call("POST", "/api/v3/checks/", { raw: new Uint8Array([0x7b, 0xff, 0x7d]) });
  assert.is(invalidUtf8.status, 400);
  assert.equal((await api.call("GET", "/api/v3/checks/")).json, { checks: [] });
}));

test("an empty body creates a check with the defaults", () => withApi(async (api) => {
  const res = await api.call("POST", "/api/v3/checks/", { raw: "" });
  assert.is(res.status, 201);
}));

const INVALID: [string, Json][] = [
  ["name not a string", { name: 5 }],
  ["name too long", { name: "x".repeat(101) }],
  ["slug with upper case", { slug: "Abc" }],
  ["slug with a space", { slug: "a b" }],
  ["slug too long", { slug: "a".repeat(101) }],
  ["tags not a string", { tags: ["a"] }],
  ["desc not a string", { desc: 1 }],
  ["timeout a string", { timeout: "60" }],
  ["timeout fractional", { timeout: 60.5 }],
  ["timeout too small", { timeout: 59 }],
  ["timeout too large", { timeout: 31536001 }],
  ["timeout a boolean", { timeout: true }],
  ["grace too small", { grace: 0 }],
  ["grace too large", { grace: 31536001 }],
  ["manual_resume a string", { manual_resume: "true" }],
  ["filter_body a number", { filter_body: 1 }],
  ["filter_subject zero", { filter_subject: 0 }],
  ["methods lower case", { methods: "post" }],
  ["methods GET", { methods: "GET" }],
  ["keywords too long", { success_kw: "k".repeat(201) }],
  ["subject too long", { subject: "k".repeat(201) }],
  ["null name", { name: null }],
  ["null timeout", { timeout: null }],
  ["null channels", { channels: null }],
  ["unknown tz", { tz: "Mars/Olympus" }],
  ["tz lower case", { tz: "europe/riga" }],
  ["empty schedule", { schedule: "" }],
  ["schedule not a string", { schedule: 5 }],
  ["schedule without a next time", { schedule: "0 0 31 2 *" }],
  ["schedule garbage", { schedule: "every blue moon" }],
  ["unique a string", { unique: "name" }],
  ["unique with an unknown field", { unique: ["desc"] }],
  ["unique with a number", { unique: [1] }],
  ["unknown channel", { channels: "nope" }],
  ["empty channel identifier", { channels: "a,,b" }],
];

test("invalid create requests answer 400 and create nothing", () => withApi(async (api) => {
  for (const [name, body] of INVALID) {
    const res = await api.call("POST", "/api/v3/checks/", { body });
    assert.is(res.status, 400, `${name}: ${res.status} ${res.text}`);
    assert.type((res.json as Json).error, "string", name);
  }
  assert.equal((await api.call("GET", "/api/v3/checks/")).json, { checks: [] });
}));

test("invalid update requests answer 400 and change nothing", () => withApi(async (api) => {
  const check = await api.create({ name: "keep", tags: "t", timeout: 300 });
  for (const [name, body] of INVALID) {
    const res = await api.call("POST", `/api/v3/checks/${check.uuid}`, { body: { name: "changed", ...body } });
    assert.is(res.status, 400, `${name}: ${res.status} ${res.text}`);
  }
  assert.equal((await api.call("GET", `/api/v3/checks/${check.uuid}`)).json, check);
}));

test("unknown fields are ignored", () => withApi(async (api) => {
  const check = await api.create({ status: "up", n_pings: 7, uuid: "x", whatever: [1] });
  assert.is(check.status, "new");
  assert.is(check.n_pings, 0);
}));

test("legacy time zone names are accepted and stored canonically", () => withApi(async (api) => {
  const check = await api.create({ schedule: "0 3 * * *", tz: "Europe/Kiev" });
  assert.is(check.tz, "Europe/Kyiv");
}));

test("a schedule makes a cron check (schedule and tz, no timeout) and wins over timeout", () => withApi(async (api) => {
  const check = await api.create({ schedule: "*/5 * * * *", tz: "Europe/Riga", timeout: 120 });
  assert.equal(sorted(Object.keys(check)), sorted([...COMMON, ...READ_WRITE, "schedule", "tz"]));
  assert.is(check.schedule, "*/5 * * * *");
  assert.is(check.tz, "Europe/Riga");
  await api.ping(check.uuid as string);
  const pinged = (await api.call("GET", `/api/v3/checks/${check.uuid}`)).json as Json;
  assert.equal([pinged.status, pinged.next_ping], ["up", "2026-01-15T12:05:00+00:00"]);
  const simple = await api.call("POST", `/api/v3/checks/${check.uuid}`, { body: { timeout: 600 } });
  assert.is((simple.json as Json).timeout, 600);
  assert.is((simple.json as Json).next_ping, "2026-01-15T12:10:00+00:00");
  assert.is((simple.json as Json).schedule, undefined);
  const onCalendar = await api.create({ schedule: "Mon *-*-* 12:00" });
  assert.is(onCalendar.schedule, "Mon *-*-* 12:00");
  assert.is(onCalendar.tz, "UTC");
}));

test("the deprecated subject fields set the keywords and filter_subject", () => withApi(async (api) => {
  const check = await api.create({ subject: "SUCCESS", subject_fail: "FAIL" });
  assert.equal([check.success_kw, check.failure_kw, check.filter_subject, check.subject, check.subject_fail], ["SUCCESS", "FAIL", true, "SUCCESS", "FAIL"]);
  const cleared = await api.call("POST", `/api/v3/checks/${check.uuid}`, { body: { subject: "" } });
  assert.equal([(cleared.json as Json).success_kw, (cleared.json as Json).filter_subject], ["", true]); // failure_kw still set
  const off = await api.call("POST", `/api/v3/checks/${check.uuid}`, { body: { subject_fail: "" } });
  assert.is((off.json as Json).filter_subject, false);
  const explicit = await api.create({ subject: "S", filter_subject: false });
  assert.equal([explicit.success_kw, explicit.filter_subject, explicit.subject], ["S", false, ""]);
}));

test("upsert: a match on every unique field updates (200), otherwise creates (201)", () => withApi(async (api) => {
  const first = await api.create({ name: "job", tags: "a", timeout: 300, unique: ["name"] });
  const again = await api.call("POST", "/api/v3/checks/", { body: { name: "job", desc: "second", unique: ["name"] } });
  assert.is(again.status, 200);
  assert.is((again.json as Json).uuid, first.uuid);
  assert.is((again.json as Json).desc, "second");
  const other = await api.call("POST", "/api/v3/checks/", { body: { name: "job", timeout: 600, unique: ["name", "timeout"] } });
  assert.is(other.status, 201);
  // a unique field absent from the request → no lookup → a new check
  const absent = await api.call("POST", "/api/v3/checks/", { body: { unique: ["name"] } });
  assert.is(absent.status, 201);
  assert.is(((await api.call("GET", "/api/v3/checks/")).json as { checks: Json[] }).checks.length, 3);
}));

test("the check limit refuses a new check with 403 but lets a matching upsert through; delete frees a slot", () => withApi(async (api) => {
  const project = await api.newProject({ checkLimit: 2 });
  const call = (body: Json) => api.call("POST", "/api/v3/checks/", { key: project.apiKey, body });
  assert.is((await call({ name: "a" })).status, 201);
  const b = await call({ name: "b" });
  assert.is(b.status, 201);
  const over = await call({ name: "c" });
  assert.is(over.status, 403);
  assert.type((over.json as Json).error, "string");
  assert.is((await call({ name: "a", desc: "x", unique: ["name"] })).status, 200);
  assert.is((await api.call("DELETE", `/api/v3/checks/${(b.json as Json).uuid}`, { key: project.apiKey })).status, 200);
  assert.is((await call({ name: "c" })).status, 201);
}));

test("list filters by slug and by every given tag", () => withApi(async (api) => {
  await api.create({ name: "1", slug: "s1", tags: "prod db" });
  await api.create({ name: "2", slug: "s1", tags: "prod" });
  await api.create({ name: "3", slug: "s3", tags: "dev db" });
  const names = async (query: string) =>
    ((await api.call("GET", `/api/v3/checks/${query}`)).json as { checks: Json[] }).checks.map((c) => c.name).sort();
  assert.equal(await names(""), ["1", "2", "3"]);
  assert.equal(await names("?slug=s1"), ["1", "2"]);
  assert.equal(await names("?slug=none"), []);
  assert.equal(await names("?slug="), ["1", "2", "3"]);
  assert.equal(await names("?tag=prod"), ["1", "2"]);
  assert.equal(await names("?tag=prod&tag=db"), ["1"]);
  assert.equal(await names("?tag=pro"), []);
  assert.equal(await names("?tag=db&slug=s3"), ["3"]);
}));

test("get: unknown 404, another project's check 403, upper-case uuid 404, foreign unique_key 404", () => withApi(async (api) => {
  const mine = await api.create({ name: "mine" });
  const other = await api.newProject();
  const theirs = await api.call("POST", "/api/v3/checks/", { key: other.apiKey, body: { name: "theirs" } });
  const theirUuid = (theirs.json as Json).uuid as string;
  assert.is((await api.call("GET", `/api/v3/checks/${theirUuid}`)).status, 403);
  assert.is((await api.call("GET", `/api/v3/checks/${uniqueKeyOf(theirUuid)}`)).status, 404);
  assert.is((await api.call("GET", "/api/v3/checks/00000000-0000-4000-8000-000000000000")).status, 404);
  assert.is((await api.call("GET", `/api/v3/checks/${(mine.uuid as string).toUpperCase()}`)).status, 404);
  assert.is((await api.call("GET", "/api/v3/checks/not-a-uuid")).status, 404);
  const notFound = await api.call("GET", "/api/v3/checks/00000000-0000-4000-8000-000000000000");
  assert.type((notFound.json as Json).error, "string");
  // an unknown check with a wrong key: the key is checked first
  assert.is((await api.call("GET", "/api/v3/checks/00000000-0000-4000-8000-000000000000", { key: "bad" })).status, 401);
  for (const [method, path] of [["POST", ""], ["DELETE", ""], ["POST", "/pause"], ["POST", "/resume"], ["GET", "/pings/"], ["GET", "/flips/"]]) {
    const res = await api.call(method, `/api/v3/checks/${theirUuid}${path}`, { body: method === "POST" ? {} : undefined });
    assert.is(res.status, 403, `${method} ${path}`);
  }
  const theirsAfter = await api.call("GET", `/api/v3/checks/${theirUuid}`, { key: other.apiKey });
  assert.equal(theirsAfter.json, theirs.json);
}));

test("update changes only what it is sent, answers 200 even when nothing changes", () => withApi(async (api) => {
  const check = await api.create({ name: "a", slug: "a", tags: "x", timeout: 300 });
  const res = await api.call("POST", `/api/v3/checks/${check.uuid}/`, { body: { name: "b", grace: 120 } });
  assert.is(res.status, 200);
  assert.equal(res.json, { ...check, name: "b", grace: 120 });
  const same = await api.call("POST", `/api/v3/checks/${check.uuid}`, { body: {} });
  assert.is(same.status, 200);
  assert.equal(same.json, res.json);
  const cleared = await api.call("POST", `/api/v3/checks/${check.uuid}`, { body: { slug: "" } });
  assert.is((cleared.json as Json).slug, "");
  assert.is((await api.call("POST", "/api/v3/checks/00000000-0000-4000-8000-000000000000", { body: {} })).status, 404);
  // update validates after the check is found: an unknown check with a bad body is 404
  assert.is((await api.call("POST", "/api/v3/checks/00000000-0000-4000-8000-000000000000", { body: { timeout: 1 } })).status, 404);
}));

test("update recomputes next_ping from the last ping and keeps status and pings", () => withApi(async (api) => {
  const check = await api.create({ timeout: 300 });
  await api.ping(check.uuid as string);
  const res = await api.call("POST", `/api/v3/checks/${check.uuid}`, { body: { timeout: 600 } });
  const updated = res.json as Json;
  assert.equal([updated.status, updated.n_pings, updated.last_ping], ["up", 1, "2026-01-15T12:00:00+00:00"]);
  assert.is(updated.next_ping, "2026-01-15T12:10:00+00:00");
}));

test("status is derived at read time: up, grace, down", () => withApi(async (api) => {
  const check = await api.create({ timeout: 60, grace: 60 });
  await api.ping(check.uuid as string);
  const status = async () => ((await api.call("GET", `/api/v3/checks/${check.uuid}`)).json as Json).status;
  assert.is(await status(), "up");
  api.clock.advance(90 * SECOND);
  assert.is(await status(), "grace");
  api.clock.advance(60 * SECOND);
  assert.is(await status(), "down");
}));

test("pause, resume, and resume of a check that is not paused (409)", () => withApi(async (api) => {
  const check = await api.create({ timeout: 300 });
  await api.ping(check.uuid as string);
  const paused = await api.call("POST", `/api/v3/checks/${check.uuid}/pause`, { raw: "" });
  assert.is(paused.status, 200);
  assert.equal([(paused.json as Json).status, (paused.json as Json).next_ping, (paused.json as Json).last_ping], ["paused", null, "2026-01-15T12:00:00+00:00"]);
  assert.is((await api.call("POST", `/api/v3/checks/${check.uuid}/pause`, { body: null })).status, 200, "null body on pause");
  const resumed = await api.call("POST", `/api/v3/checks/${check.uuid}/resume`, { body: null });
  assert.is(resumed.status, 200);
  assert.equal([(resumed.json as Json).status, (resumed.json as Json).last_ping], ["new", null]);
  const again = await api.call("POST", `/api/v3/checks/${check.uuid}/resume`);
  assert.is(again.status, 409);
  assert.type((again.json as Json).error, "string");
  assert.is((await api.call("POST", `/api/v3/checks/${check.uuid}/pause`, { raw: "[]" })).status, 400);
  assert.is((await api.call("POST", "/api/v3/checks/00000000-0000-4000-8000-000000000000/pause")).status, 404);
  assert.is((await api.call("POST", "/api/v3/checks/00000000-0000-4000-8000-000000000000/resume")).status, 404);
  assert.is((await api.call("POST", `/api/v3/checks/${check.uuid}/pause`, { key: null, body: { api_key: api.project.apiKey } })).status, 200);
}));

test("delete answers the check as it was (channels \"\"), then every endpoint says 404", () => withApi(async (api) => {
  const channel = await addChannel(api, "email", "ops", "ops@example.com");
  const check = await api.create({ name: "gone", channels: "*" });
  assert.is(check.channels, channel);
  const res = await api.call("DELETE", `/api/v3/checks/${check.uuid}`);
  assert.is(res.status, 200);
  assert.equal(res.json, { ...check, channels: "" });
  for (const [method, path] of [["GET", ""], ["POST", ""], ["DELETE", ""], ["POST", "/pause"], ["GET", "/pings/"], ["GET", "/flips/"]]) {
    assert.is((await api.call(method, `/api/v3/checks/${check.uuid}${path}`)).status, 404, `${method} ${path}`);
  }
  assert.is((await api.call("DELETE", "/api/v3/checks/00000000-0000-4000-8000-000000000000")).status, 404);
}));

test("pings are listed newest first with their fields, and bodies are served as text/plain", () => withApi(async (api) => {
  const check = await api.create({ timeout: 300 });
  const uuid = check.uuid as string;
  const rid = "0a1b2c3d-0000-4000-8000-00000000000a";
  await api.ping(uuid, { signal: "start", rid, method: "POST", ua: "agent" });
  api.clock.advance(1_234);
  await api.ping(uuid, { rid, method: "POST", body: new TextEncoder().encode("hello body"), remoteAddr: "192.0.2.1" });
  const res = await api.call("GET", `/api/v3/checks/${uuid}/pings/`);
  assert.is(res.status, 200);
  const pings = (res.json as { pings: Json[] }).pings;
  assert.equal(pings, [
    { type: "success", date: "2026-01-15T12:00:01.234000+00:00", n: 2, scheme: "http", remote_addr: "192.0.2.1", method: "POST",
      ua: "curl/8", rid, body_url: `${SITE}/api/v3/checks/${uuid}/pings/2/body`, duration: 1.23 },
    { type: "start", date: "2026-01-15T12:00:00+00:00", n: 1, scheme: "http", remote_addr: "10.0.0.1", method: "POST",
      ua: "agent", rid, body_url: null },
  ]);
  const body = await api.call("GET", `/api/v3/checks/${uuid}/pings/2/body`);
  assert.is(body.status, 200);
  assert.is(body.text, "hello body");
  assert.is(body.headers.get("content-type"), "text/plain");
  const none = await api.call("GET", `/api/v3/checks/${uuid}/pings/1/body`);
  assert.is(none.status, 404);
  assert.type((none.json as Json).error, "string");
  assert.is((await api.call("GET", `/api/v3/checks/${uuid}/pings/99/body`)).status, 404);
  assert.is((await api.call("GET", `/api/v3/checks/${uuid}/pings/x/body`)).status, 404);
  const checkNow = (await api.call("GET", `/api/v3/checks/${uuid}`)).json as Json;
  assert.is(checkNow.last_duration, 1);
}));

test("flips: a bare array, newest first, up only for changes to up; filters by start, end and seconds", () => withApi(async (api) => {
  const check = await api.create({ timeout: 300 });
  const uuid = check.uuid as string;
  await api.ping(uuid); // new → up at T0
  api.clock.advance(10 * MINUTE);
  await api.ping(uuid, { signal: "fail" }); // up → down at T0+10m
  api.clock.advance(10 * MINUTE);
  await api.call("POST", `/api/v3/checks/${uuid}/pause`); // → paused at T0+20m
  const flips = async (query = "") => (await api.call("GET", `/api/v3/checks/${uuid}/flips/${query}`)).json;
  assert.equal(await flips(), [
    { timestamp: "2026-01-15T12:20:00+00:00", up: 0 },
    { timestamp: "2026-01-15T12:10:00+00:00", up: 0 },
    { timestamp: "2026-01-15T12:00:00+00:00", up: 1 },
  ]);
  const t0 = T0 / 1000;
  assert.is((await flips(`?start=${t0 + 600}`) as unknown[]).length, 2);
  assert.is((await flips(`?end=${t0 + 600}`) as unknown[]).length, 1);
  assert.is((await flips(`?start=${t0}&end=${t0 + 1}`) as unknown[]).length, 1);
  assert.is((await flips("?seconds=601") as unknown[]).length, 2);
  assert.is((await flips("?seconds=0") as unknown[]).length, 3);
  assert.is((await flips("?seconds=") as unknown[]).length, 3);
  assert.is((await flips("?end=0") as unknown[]).length, 0);
  assert.equal(await flips(`?start=${t0 + 3600}`), []);
  const byKey = await api.call("GET", `/api/v3/checks/${uniqueKeyOf(uuid)}/flips/`, { key: api.project.apiKeyReadonly });
  assert.is((byKey.json as unknown[]).length, 3);
  for (const query of ["?start=", "?end=", "?start=abc", "?start=-1", "?start=10000000001", "?seconds=1.5", "?seconds=-5", "?seconds=31536001", "?end=1.5"]) {
    const res = await api.call("GET", `/api/v3/checks/${uuid}/flips/${query}`);
    assert.is(res.status, 400, query);
    assert.type((res.json as Json).error, "string", query);
  }
  assert.is((await api.call("GET", "/api/v3/checks/00000000-0000-4000-8000-000000000000/flips/?start=x")).status, 404);
  assert.is((await api.call("GET", `/api/v3/checks/${uniqueKeyOf("00000000-0000-4000-8000-000000000000")}/flips/`)).status, 404);
}));

test("channels: listed as {id, name, kind}; assigned by *, ids or names; \"\" unassigns", () => withApi(async (api) => {
  const email = await addChannel(api, "email", "ops", "ops@example.com");
  const hook = await addChannel(api, "webhook", "hook", "https://example.com/hook");
  const dup1 = await addChannel(api, "slack", "dup", "https://hooks.slack.com/services/x");
  await addChannel(api, "discord", "dup", "https://discord.com/api/webhooks/y");
  const list = await api.call("GET", "/api/v3/channels/");
  assert.is(list.status, 200);
  const channels = (list.json as { channels: Json[] }).channels;
  assert.equal(channels.map((c) => Object.keys(c).sort()), channels.map(() => ["id", "kind", "name"]));
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
    const res = await api.call("POST", `/api/v3/checks/${named.uuid}`, { body: { channels, name: "changed" } });
    assert.is(res.status, 400, channels);
  }
  const unchanged = (await api.call("GET", `/api/v3/checks/${named.uuid}`)).json as Json;
  assert.equal(unchanged, named);
  const cleared = await api.call("POST", `/api/v3/checks/${named.uuid}`, { body: { channels: "" } });
  assert.is((cleared.json as Json).channels, "");
  const other = await api.newProject();
  const foreign = await api.call("POST", "/api/v3/checks/", { key: other.apiKey, body: { channels: email } });
  assert.is(foreign.status, 400, "another project's channel never matches");
}));

test("badges: \"*\" plus every tag, six signed URLs each", () => withApi(async (api) => {
  await api.create({ tags: "prod  db" });
  await api.create({ tags: "db web" });
  const res = await api.call("GET", "/api/v3/badges/");
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
}));

test("status answers 200 without a key, and 500 when the store probe fails", async () => {
  await withApi(async (api) => {
    const res = await api.call("GET", "/api/v3/status/", { key: null });
    assert.is(res.status, 200);
  });
  let failing = false;
  await withApi(async (api) => {
    failing = true;
    const res = await api.call("GET", "/api/v3/status/", { key: null });
    assert.is(res.status, 500);
    assert.type((res.json as Json).error, "string");
    assert.is(api.unexpected.length, 1, "the probe failure is reported");
    api.unexpected.length = 0;
  }, { pool: (pool) => ({ ...bindAll(pool), probe: async () => { if (failing) throw new Error("disk gone"); } }) });
});

test("CORS on every /api/v3 answer, OPTIONS preflight without a key, 405 JSON for other methods", () => withApi(async (api) => {
  const check = await api.create();
  const preflight = await api.call("OPTIONS", `/api/v3/checks/${check.uuid}`, { key: null });
  assert.is(preflight.status, 204);
  assert.is(preflight.headers.get("access-control-allow-origin"), "*");
  assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /X-Api-Key/);
  assert.is(preflight.headers.get("access-control-allow-methods"), "GET, POST, DELETE, OPTIONS");
  assert.is(preflight.headers.get("access-control-max-age"), "600");
  for (const [method, path, key] of [["GET", "/api/v3/checks/", undefined], ["GET", "/api/v3/checks/", null], ["GET", "/api/v3/channels", undefined]] as const) {
    const res = await api.call(method, path, { key });
    assert.is(res.headers.get("access-control-allow-origin"), "*", `${method} ${path} ${key}`);
  }
  const wrongMethod = await api.call("PUT", "/api/v3/checks/");
  assert.is(wrongMethod.status, 405);
  assert.type((wrongMethod.json as Json).error, "string");
  assert.is(wrongMethod.headers.get("access-control-allow-origin"), "*");
  assert.is((await api.call("DELETE", "/api/v3/checks/")).status, 405);
  assert.is((await api.call("POST", `/api/v3/checks/${check.uuid}/pings/`)).status, 405);
  assert.is((await api.call("GET", `/api/v3/checks/${check.uuid}/pause`)).status, 405);
  assert.is((await api.call("POST", `/api/v3/checks/${uniqueKeyOf(check.uuid as string)}`, { body: {} })).status, 405);
  assert.is((await api.call("OPTIONS", "/api/v3/checks/")).headers.get("access-control-allow-methods"), "GET, POST, OPTIONS");
}));

test("every path answers with and without its trailing slash", () => withApi(async (api) => {
  const check = await api.create();
  const uuid = check.uuid as string;
  for (const path of ["/api/v3/checks", `/api/v3/checks/${uuid}`, `/api/v3/checks/${uuid}/pings`, `/api/v3/checks/${uuid}/flips`, "/api/v3/channels", "/api/v3/badges", "/api/v3/status"]) {
    assert.is((await api.call("GET", path)).status, 200, path);
    assert.is((await api.call("GET", `${path}/`)).status, 200, `${path}/`);
  }
  assert.is((await api.call("POST", `/api/v3/checks/${uuid}/pause/`)).status, 200);
  assert.is((await api.call("POST", `/api/v3/checks/${uuid}/resume`)).status, 200);
}));

test("unknown API paths answer a JSON 404", () => withApi(async (api) => {
  for (const path of ["/api/v3/nothing", "/api/v3/checks/x/y/z", "/api/v4/checks/"]) {
    const res = await api.call("GET", path);
    assert.is(res.status, 404, path);
    assert.type((res.json as Json).error, "string", path);
  }
}));

test("a body over 64 KiB answers 413 with a JSON error", () => withApi(async (api) => {
  const res = await api.call("POST", "/api/v3/checks/", { body: { name: "x", desc: "d".repeat(70_000) } });
  assert.is(res.status, 413);
  assert.type((res.json as Json).error, "string");
}));

test("the rate limit answers 429 past the per-minute limit of a key, and resets the next minute", () => withApi(async (api) => {
  const limited = async () => (await api.call("GET", "/api/v3/checks/")).status;
  assert.equal([await limited(), await limited(), await limited()], [200, 200, 429]);
  const res = await api.call("GET", "/api/v3/checks/");
  assert.type((res.json as Json).error, "string");
  assert.ok(Number(res.headers.get("retry-after")) >= 1);
  const other = await api.call("GET", "/api/v3/checks/", { key: api.project.apiKeyReadonly });
  assert.is(other.status, 200, "another key has its own budget");
  api.clock.advance(MINUTE);
  assert.is(await limited(), 200);
}, { apiRateLimit: 2 }));

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
