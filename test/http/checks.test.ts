// The API's checks through app.request() on an in-process pool, under each version (v1, v2, v3) where the
// answer is the same: create, keys, validation, upsert, list, get, update. The other endpoints:
// check-endpoints.test.ts; what differs per version: api-versions.test.ts.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { uniqueKeyOf } from "../../host/unique-key.ts";
import type { Api, ApiOptions } from "./harness.ts";
import { SITE, testEachVersion } from "./harness.ts";

const COMMON = [
  "name",
  "slug",
  "tags",
  "desc",
  "grace",
  "n_pings",
  "status",
  "started",
  "last_ping",
  "next_ping",
  "manual_resume",
  "methods",
  "subject",
  "subject_fail",
  "start_kw",
  "success_kw",
  "failure_kw",
  "filter_subject",
  "filter_body",
  "filter_http_body",
  "filter_default_fail",
  "badge_url",
  "failure_threshold",
  "reminder_interval",
  "muted_until",
  "max_duration",
  "acknowledged",
  "depends_on",
  "held_by",
  "min_duration",
  "alert_on_overlap",
  "max_runs_per_period",
  "escalation",
  "escalated",
];
const READ_WRITE = ["uuid", "ping_url", "update_url", "pause_url", "resume_url", "channels"];
const sorted = (keys: string[]) => [...keys].sort();
type Json = Record<string, unknown>;
const each = (name: string, body: (api: Api) => Promise<void>, options?: ApiOptions) => testEachVersion(test, name, body, options);

each("create answers 201 with the defaults and the 37 fields of a simple check", async (api) => {
  const res = await api.call("POST", `${api.root}/checks/`, { body: { name: "Backups" } });
  assert.is(res.status, 201);
  const check = res.json as Json;
  assert.equal(sorted(Object.keys(check)), sorted([...COMMON, ...READ_WRITE, "timeout"]));
  const uuid = check.uuid as string;
  // v1 and v2: the name sets the slug
  assert.equal(check, {
    name: "Backups",
    slug: api.version === 3 ? "" : "backups",
    tags: "",
    desc: "",
    grace: 3600,
    n_pings: 0,
    status: "new",
    started: false,
    last_ping: null,
    next_ping: null,
    manual_resume: false,
    methods: "",
    subject: "",
    subject_fail: "",
    start_kw: "",
    success_kw: "",
    failure_kw: "",
    filter_subject: false,
    filter_body: false,
    filter_http_body: false,
    filter_default_fail: false,
    badge_url: check.badge_url,
    failure_threshold: 1,
    reminder_interval: 0,
    muted_until: null,
    max_duration: 0,
    acknowledged: false,
    depends_on: "",
    held_by: null,
    min_duration: 0,
    alert_on_overlap: false,
    max_runs_per_period: 0,
    escalation: null,
    escalated: 0,
    uuid,
    ping_url: `${SITE}/ping/${uuid}`,
    update_url: `${SITE}${api.root}/checks/${uuid}`,
    pause_url: `${SITE}${api.root}/checks/${uuid}/pause`,
    resume_url: `${SITE}${api.root}/checks/${uuid}/resume`,
    channels: "",
    timeout: 86400,
  });
  assert.match(check.badge_url as string, new RegExp(`^${SITE}/b/2/[0-9a-f-]{36}\\.svg$`));
  assert.ok(!(check.badge_url as string).includes(uuid), "the badge key is not the uuid");
  assert.match(res.headers.get("content-type") ?? "", /application\/json/);
});

each("create stores every field it is given", async (api) => {
  const check = await api.create({
    name: "n",
    slug: "my-slug_1",
    tags: "prod db",
    desc: "d",
    timeout: 120,
    grace: 60,
    manual_resume: true,
    methods: "POST",
    start_kw: "go",
    success_kw: "ok,done",
    failure_kw: "ERR",
    filter_subject: true,
    filter_body: true,
    filter_http_body: true,
    filter_default_fail: true,
  });
  assert.equal(
    { ...check, uuid: 0, ping_url: 0, update_url: 0, pause_url: 0, resume_url: 0, badge_url: 0 },
    {
      name: "n",
      slug: "my-slug_1",
      tags: "prod db",
      desc: "d",
      grace: 60,
      n_pings: 0,
      status: "new",
      started: false,
      last_ping: null,
      next_ping: null,
      manual_resume: true,
      methods: "POST",
      subject: "ok,done",
      subject_fail: "ERR",
      start_kw: "go",
      success_kw: "ok,done",
      failure_kw: "ERR",
      filter_subject: true,
      filter_body: true,
      filter_http_body: true,
      filter_default_fail: true,
      channels: "",
      timeout: 120,
      failure_threshold: 1,
      reminder_interval: 0,
      muted_until: null,
      max_duration: 0,
      acknowledged: false,
      depends_on: "",
      held_by: null,
      min_duration: 0,
      alert_on_overlap: false,
      max_runs_per_period: 0,
      escalation: null,
      escalated: 0,
      uuid: 0,
      ping_url: 0,
      update_url: 0,
      pause_url: 0,
      resume_url: 0,
      badge_url: 0,
    },
  );
  const got = await api.call("GET", `${api.root}/checks/${check.uuid}`);
  assert.equal(got.json, check);
});

each("the body is JSON whatever the Content-Type (curl --data), and api_key may travel in it", async (api) => {
  const res = await api.call("POST", `${api.root}/checks/`, {
    key: null,
    raw: JSON.stringify({ api_key: api.project.apiKey, name: "curl" }),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  assert.is(res.status, 201, res.text);
  assert.is((res.json as Json).name, "curl");
});

each("X-Api-Key wins over api_key in the body, even when it is empty or wrong", async (api) => {
  for (const header of ["", "wrong"]) {
    const res = await api.call("POST", `${api.root}/checks/`, { key: header, body: { api_key: api.project.apiKey } });
    assert.is(res.status, 401, header);
  }
  assert.equal((await api.call("GET", `${api.root}/checks/`)).json, { checks: [] });
});

each("missing, wrong and non-string keys answer 401 with a JSON error", async (api) => {
  const rows: [string, Parameters<Api["call"]>][] = [
    ["no key on list", ["GET", `${api.root}/checks/`, { key: null }]],
    ["wrong key on list", ["GET", `${api.root}/checks/`, { key: "nope" }]],
    ["no key on create", ["POST", `${api.root}/checks/`, { key: null, body: {} }]],
    ["numeric api_key", ["POST", `${api.root}/checks/`, { key: null, body: { api_key: 123 } }]],
    ["null api_key", ["POST", `${api.root}/checks/`, { key: null, body: { api_key: null } }]],
    ["channels without key", ["GET", `${api.root}/channels/`, { key: null }]],
    ["badges without key", ["GET", `${api.root}/badges/`, { key: null }]],
  ];
  for (const [name, args] of rows) {
    const res = await api.call(...args);
    assert.is(res.status, 401, name);
    assert.type((res.json as Json).error, "string", name);
  }
});

each("a read-only key reads checks without the sensitive fields, and is refused (401) on write endpoints", async (api) => {
  const check = await api.create({ name: "ro", tags: "a" });
  const ro = api.project.apiKeyReadonly;
  const list = await api.call("GET", `${api.root}/checks/`, { key: ro });
  assert.is(list.status, 200);
  const [shown] = (list.json as { checks: Json[] }).checks;
  assert.equal(sorted(Object.keys(shown)), sorted([...COMMON, "unique_key", "timeout"]));
  assert.is(shown.unique_key, uniqueKeyOf(check.uuid as string));
  const byKey = await api.call("GET", `${api.root}/checks/${shown.unique_key}`, { key: ro });
  assert.equal(byKey.json, shown);
  assert.is((await api.call("GET", `${api.root}/checks/${check.uuid}`, { key: ro })).status, 200);
  assert.is((await api.call("GET", `${api.root}/checks/${check.uuid}/flips/`, { key: ro })).status, 200);
  assert.is((await api.call("GET", `${api.root}/badges/`, { key: ro })).status, 200);
  const writes: [string, string][] = [
    ["POST", `${api.root}/checks/`],
    ["POST", `${api.root}/checks/${check.uuid}`],
    ["DELETE", `${api.root}/checks/${check.uuid}`],
    ["POST", `${api.root}/checks/${check.uuid}/pause`],
    ["POST", `${api.root}/checks/${check.uuid}/resume`],
    ["GET", `${api.root}/checks/${check.uuid}/pings/`],
    ["GET", `${api.root}/checks/${check.uuid}/pings/1/body`],
    ["GET", `${api.root}/channels/`],
  ];
  for (const [method, path] of writes) {
    assert.is((await api.call(method, path, { key: ro, body: method === "POST" ? {} : undefined })).status, 401, `${method} ${path}`);
  }
  const after = await api.call("GET", `${api.root}/checks/${check.uuid}`);
  assert.equal(after.json, check);
});

each("unparsable or non-object bodies answer 400 before the key is looked at", async (api) => {
  for (const raw of ["{", "[]", "123", '"x"', "null", "true", "name=foo", "\xff"]) {
    const res = await api.call("POST", `${api.root}/checks/`, { key: null, raw });
    assert.is(res.status, 400, raw);
    assert.type((res.json as Json).error, "string");
  }
  const invalidUtf8 = await api.call("POST", `${api.root}/checks/`, { raw: new Uint8Array([0x7b, 0xff, 0x7d]) });
  assert.is(invalidUtf8.status, 400);
  assert.equal((await api.call("GET", `${api.root}/checks/`)).json, { checks: [] });
});

each("an empty body creates a check with the defaults", async (api) => {
  const res = await api.call("POST", `${api.root}/checks/`, { raw: "" });
  assert.is(res.status, 201);
});

const INVALID: [string, Json][] = [
  ["name not a string", { name: 5 }],
  ["name too long", { name: "x".repeat(101) }],
  ["slug with upper case", { slug: "Abc" }],
  ["slug with a space", { slug: "a b" }],
  ["slug too long", { slug: "a".repeat(101) }],
  ["tags not a string", { tags: ["a"] }],
  ["tags too long (the reference's 500 characters)", { tags: "t".repeat(501) }],
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

each("tags of 500 characters, the reference's limit, are kept whole", async (api) => {
  const tags = "t".repeat(500);
  const res = await api.call("POST", `${api.root}/checks/`, { body: { tags } });
  assert.is(res.status, 201);
  assert.is((res.json as Json).tags, tags);
});

each("invalid create requests answer 400 and create nothing", async (api) => {
  for (const [name, body] of INVALID) {
    const res = await api.call("POST", `${api.root}/checks/`, { body });
    assert.is(res.status, 400, `${name}: ${res.status} ${res.text}`);
    assert.type((res.json as Json).error, "string", name);
  }
  assert.equal((await api.call("GET", `${api.root}/checks/`)).json, { checks: [] });
});

each("invalid update requests answer 400 and change nothing", async (api) => {
  const check = await api.create({ name: "keep", tags: "t", timeout: 300 });
  for (const [name, body] of INVALID) {
    const res = await api.call("POST", `${api.root}/checks/${check.uuid}`, { body: { name: "changed", ...body } });
    assert.is(res.status, 400, `${name}: ${res.status} ${res.text}`);
  }
  assert.equal((await api.call("GET", `${api.root}/checks/${check.uuid}`)).json, check);
});

each("unknown fields are ignored", async (api) => {
  const check = await api.create({ status: "up", n_pings: 7, uuid: "x", whatever: [1] });
  assert.is(check.status, "new");
  assert.is(check.n_pings, 0);
});

each("legacy time zone names are accepted and stored canonically", async (api) => {
  const check = await api.create({ schedule: "0 3 * * *", tz: "Europe/Kiev" });
  assert.is(check.tz, "Europe/Kyiv");
});

each("a schedule makes a cron check (schedule and tz, no timeout) and wins over timeout", async (api) => {
  const check = await api.create({ schedule: "*/5 * * * *", tz: "Europe/Riga", timeout: 120 });
  assert.equal(sorted(Object.keys(check)), sorted([...COMMON, ...READ_WRITE, "schedule", "tz"]));
  assert.is(check.schedule, "*/5 * * * *");
  assert.is(check.tz, "Europe/Riga");
  await api.ping(check.uuid as string);
  const pinged = (await api.call("GET", `${api.root}/checks/${check.uuid}`)).json as Json;
  assert.equal([pinged.status, pinged.next_ping], ["up", "2026-01-15T12:05:00+00:00"]);
  const simple = await api.call("POST", `${api.root}/checks/${check.uuid}`, { body: { timeout: 600 } });
  assert.is((simple.json as Json).timeout, 600);
  assert.is((simple.json as Json).next_ping, "2026-01-15T12:10:00+00:00");
  assert.is((simple.json as Json).schedule, undefined);
  const onCalendar = await api.create({ schedule: "Mon *-*-* 12:00" });
  assert.is(onCalendar.schedule, "Mon *-*-* 12:00");
  assert.is(onCalendar.tz, "UTC");
});

each("the deprecated subject fields set the keywords and filter_subject", async (api) => {
  const check = await api.create({ subject: "SUCCESS", subject_fail: "FAIL" });
  assert.equal(
    [check.success_kw, check.failure_kw, check.filter_subject, check.subject, check.subject_fail],
    ["SUCCESS", "FAIL", true, "SUCCESS", "FAIL"],
  );
  const cleared = await api.call("POST", `${api.root}/checks/${check.uuid}`, { body: { subject: "" } });
  assert.equal([(cleared.json as Json).success_kw, (cleared.json as Json).filter_subject], ["", true]); // failure_kw still set
  const off = await api.call("POST", `${api.root}/checks/${check.uuid}`, { body: { subject_fail: "" } });
  assert.is((off.json as Json).filter_subject, false);
  const explicit = await api.create({ subject: "S", filter_subject: false });
  assert.equal([explicit.success_kw, explicit.filter_subject, explicit.subject], ["S", false, ""]);
});

each("upsert: a match on every unique field updates (200), otherwise creates (201)", async (api) => {
  const first = await api.create({ name: "job", tags: "a", timeout: 300, unique: ["name"] });
  const again = await api.call("POST", `${api.root}/checks/`, { body: { name: "job", desc: "second", unique: ["name"] } });
  assert.is(again.status, 200);
  assert.is((again.json as Json).uuid, first.uuid);
  assert.is((again.json as Json).desc, "second");
  const other = await api.call("POST", `${api.root}/checks/`, { body: { name: "job", timeout: 600, unique: ["name", "timeout"] } });
  assert.is(other.status, 201);
  // a unique field absent from the request → no lookup → a new check
  const absent = await api.call("POST", `${api.root}/checks/`, { body: { unique: ["name"] } });
  assert.is(absent.status, 201);
  assert.is(((await api.call("GET", `${api.root}/checks/`)).json as { checks: Json[] }).checks.length, 3);
});

each("the check limit refuses a new check with 403 but lets a matching upsert through; delete frees a slot", async (api) => {
  const project = await api.newProject({ checkLimit: 2 });
  const call = (body: Json) => api.call("POST", `${api.root}/checks/`, { key: project.apiKey, body });
  assert.is((await call({ name: "a" })).status, 201);
  const b = await call({ name: "b" });
  assert.is(b.status, 201);
  const over = await call({ name: "c" });
  assert.is(over.status, 403);
  assert.type((over.json as Json).error, "string");
  assert.is((await call({ name: "a", desc: "x", unique: ["name"] })).status, 200);
  assert.is((await api.call("DELETE", `${api.root}/checks/${(b.json as Json).uuid}`, { key: project.apiKey })).status, 200);
  assert.is((await call({ name: "c" })).status, 201);
});

each("list filters by slug and by every given tag", async (api) => {
  await api.create({ name: "1", slug: "s1", tags: "prod db" });
  await api.create({ name: "2", slug: "s1", tags: "prod" });
  await api.create({ name: "3", slug: "s3", tags: "dev db" });
  const names = async (query: string) =>
    ((await api.call("GET", `${api.root}/checks/${query}`)).json as { checks: Json[] }).checks.map((c) => c.name).sort();
  assert.equal(await names(""), ["1", "2", "3"]);
  assert.equal(await names("?slug=s1"), ["1", "2"]);
  assert.equal(await names("?slug=none"), []);
  assert.equal(await names("?slug="), ["1", "2", "3"]);
  assert.equal(await names("?tag=prod"), ["1", "2"]);
  assert.equal(await names("?tag=prod&tag=db"), ["1"]);
  assert.equal(await names("?tag=pro"), []);
  assert.equal(await names("?tag=db&slug=s3"), ["3"]);
});

each("get: unknown 404, another project's check 403, upper-case uuid 404, foreign unique_key 404", async (api) => {
  const mine = await api.create({ name: "mine" });
  const other = await api.newProject();
  const theirs = await api.call("POST", `${api.root}/checks/`, { key: other.apiKey, body: { name: "theirs" } });
  const theirUuid = (theirs.json as Json).uuid as string;
  assert.is((await api.call("GET", `${api.root}/checks/${theirUuid}`)).status, 403);
  assert.is((await api.call("GET", `${api.root}/checks/${uniqueKeyOf(theirUuid)}`)).status, 404);
  assert.is((await api.call("GET", `${api.root}/checks/00000000-0000-4000-8000-000000000000`)).status, 404);
  assert.is((await api.call("GET", `${api.root}/checks/${(mine.uuid as string).toUpperCase()}`)).status, 404);
  assert.is((await api.call("GET", `${api.root}/checks/not-a-uuid`)).status, 404);
  const notFound = await api.call("GET", `${api.root}/checks/00000000-0000-4000-8000-000000000000`);
  assert.type((notFound.json as Json).error, "string");
  // an unknown check with a wrong key: the key is checked first
  assert.is((await api.call("GET", `${api.root}/checks/00000000-0000-4000-8000-000000000000`, { key: "bad" })).status, 401);
  for (const [method, path] of [
    ["POST", ""],
    ["DELETE", ""],
    ["POST", "/pause"],
    ["POST", "/resume"],
    ["GET", "/pings/"],
    ["GET", "/flips/"],
  ]) {
    const res = await api.call(method, `${api.root}/checks/${theirUuid}${path}`, { body: method === "POST" ? {} : undefined });
    assert.is(res.status, 403, `${method} ${path}`);
  }
  const theirsAfter = await api.call("GET", `${api.root}/checks/${theirUuid}`, { key: other.apiKey });
  assert.equal(theirsAfter.json, theirs.json);
});

each("update changes only what it is sent, answers 200 even when nothing changes", async (api) => {
  const check = await api.create({ name: "a", slug: "a", tags: "x", timeout: 300 });
  const res = await api.call("POST", `${api.root}/checks/${check.uuid}/`, { body: { name: "b", grace: 120 } });
  assert.is(res.status, 200);
  assert.equal(res.json, { ...check, name: "b", grace: 120, slug: api.version === 3 ? "a" : "b" }); // v1, v2: the name sets the slug
  const same = await api.call("POST", `${api.root}/checks/${check.uuid}`, { body: {} });
  assert.is(same.status, 200);
  assert.equal(same.json, res.json);
  const cleared = await api.call("POST", `${api.root}/checks/${check.uuid}`, { body: { slug: "" } });
  assert.is((cleared.json as Json).slug, "");
  assert.is((await api.call("POST", `${api.root}/checks/00000000-0000-4000-8000-000000000000`, { body: {} })).status, 404);
  // update validates after the check is found: an unknown check with a bad body is 404
  assert.is((await api.call("POST", `${api.root}/checks/00000000-0000-4000-8000-000000000000`, { body: { timeout: 1 } })).status, 404);
});

each("update recomputes next_ping from the last ping and keeps status and pings", async (api) => {
  const check = await api.create({ timeout: 300 });
  await api.ping(check.uuid as string);
  const res = await api.call("POST", `${api.root}/checks/${check.uuid}`, { body: { timeout: 600 } });
  const updated = res.json as Json;
  assert.equal([updated.status, updated.n_pings, updated.last_ping], ["up", 1, "2026-01-15T12:00:00+00:00"]);
  assert.is(updated.next_ping, "2026-01-15T12:10:00+00:00");
});

test.run();
