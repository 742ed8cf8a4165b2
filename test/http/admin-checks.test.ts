// The admin operations `hcd export` and `hcd apply` go through, over real HTTP on a real store: a project's
// checks listed, created with a uuid of their own (unique over every project), read, edited and deleted by
// uuid or by slug; one channel read with its value, which adds the same channel again for every kind; a
// status page and a maintenance window edited in place. Bad input is a 4xx that changes nothing.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { withServedApi } from "./harness.ts";

type Json = Record<string, unknown>;
const U1 = "11111111-2222-4333-8444-555555555555";

async function admin(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Json; text: string }> {
  const res = await fetch(url + path, {
    method,
    headers: { authorization: "Bearer admin-token-for-tests-0123456789", "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: (text === "" ? {} : JSON.parse(text)) as Json, text };
}

test("checks: created with a given uuid (its ping URL kept), listed, read and edited by uuid or slug, deleted by slug", () =>
  withServedApi(async (api, url) => {
    const base = `/admin/v1/projects/${api.project.id}/checks`;
    const made = await admin(url, "POST", base, {
      uuid: U1,
      name: "Nightly",
      slug: "nightly",
      schedule: "0 3 * * *",
      tz: "Europe/Riga",
      grace: 600,
      failure_threshold: 2,
    });
    assert.is(made.status, 201, made.text);
    assert.equal(
      [made.json.uuid, made.json.ping_url, made.json.schedule, made.json.tz, made.json.failure_threshold],
      [U1, `http://hc.test/ping/${U1}`, "0 3 * * *", "Europe/Riga", 2],
    );
    assert.is((await fetch(`${url}/ping/${U1}`)).status, 200, "the given uuid is the check's ping URL");
    const listed = await admin(url, "GET", base);
    assert.equal(
      (listed.json.checks as Json[]).map((c) => c.uuid),
      [U1],
    );
    assert.equal((await admin(url, "GET", `${base}/nightly`)).json.uuid, U1);
    const edited = await admin(url, "POST", `${base}/nightly`, { grace: 900, timeout: 3600 });
    assert.is(edited.status, 200, edited.text);
    assert.equal(
      [edited.json.grace, edited.json.timeout, edited.json.schedule],
      [900, 3600, undefined],
      "a timeout makes it simple again, as the API does",
    );
    assert.equal((await api.call("GET", `${api.root}/checks/${U1}`)).json, edited.json, "the Management API shows the same check");
    const deleted = await admin(url, "DELETE", `${base}/nightly`);
    assert.equal([deleted.status, deleted.json.uuid], [200, U1]);
    assert.is((await admin(url, "GET", `${base}/${U1}`)).status, 404);
  }));

test("checks: a uuid taken anywhere, a bad uuid, an ambiguous slug, another project's check and a bad field are refused, changing nothing", () =>
  withServedApi(async (api, url) => {
    const other = await api.newProject({ name: "other" });
    const base = `/admin/v1/projects/${api.project.id}/checks`;
    assert.is((await admin(url, "POST", `/admin/v1/projects/${other.id}/checks`, { uuid: U1, name: "theirs" })).status, 201);
    const taken = await admin(url, "POST", base, { uuid: U1, name: "mine" });
    assert.equal([taken.status, taken.json.error], [400, "json validation error: uuid is taken by another check"]);
    assert.is((await admin(url, "POST", base, { uuid: U1.toUpperCase() })).status, 400);
    assert.is((await admin(url, "POST", base, { uuid: 5 })).status, 400);
    assert.is((await admin(url, "GET", `${base}/${U1}`)).status, 404, "another project's check is not found here");
    assert.is((await admin(url, "POST", `${base}/${U1}`, { name: "stolen" })).status, 404);
    assert.is((await admin(url, "DELETE", `${base}/${U1}`)).status, 404);
    for (let i = 0; i < 2; i++) assert.is((await admin(url, "POST", base, { name: `twin ${i}`, slug: "twin" })).status, 201);
    const ambiguous = await admin(url, "POST", `${base}/twin`, { grace: 600 });
    assert.is(ambiguous.status, 409);
    assert.match(String(ambiguous.json.error), /ambiguous slug: 2 checks/);
    const one = (await admin(url, "POST", base, { name: "one", slug: "one" })).json;
    for (const body of [{ grace: 5 }, { uuid: U1 }, { unique: ["name"] }, { schedule: "not cron" }, { tz: "Mars/Base" }]) {
      const refused = await admin(url, "POST", `${base}/one`, body);
      assert.is(refused.status, 400, JSON.stringify(body));
    }
    assert.equal((await admin(url, "GET", `${base}/one`)).json, { ...one, next_ping: null }, "nothing changed");
    assert.is((await admin(url, "GET", `${base}/NO`)).status, 404);
    assert.is((await fetch(url + base, { headers: { "x-api-key": api.project.apiKey } })).status, 401, "an API key is not the admin");
    const theirs = await admin(url, "GET", `/admin/v1/projects/${other.id}/checks/${U1}`);
    assert.equal([theirs.json.name, theirs.status], ["theirs", 200]);
  }));

/** One channel of each kind that needs no server setting, as the admin API takes it. */
const CHANNELS: Json[] = [
  { kind: "email", value: "ops@example.com" },
  { kind: "webhook", value: "https://hooks.example.com/json" },
  {
    kind: "webhook",
    value: {
      method_down: "post",
      url_down: "https://hooks.example.com/d",
      body_down: "${literal} $NAME",
      headers_down: { Authorization: "Bearer x" },
      url_up: "",
    },
  },
  { kind: "slack", value: "https://hooks.slack.com/services/T/B/X" },
  { kind: "discord", value: "https://discord.com/api/webhooks/1/x" },
  { kind: "ntfy", value: "https://ntfy.sh/my-topic" },
  { kind: "ntfy", value: { url: "https://ntfy.example.com/", topic: "t", priority_down: 5 } },
  { kind: "telegram", value: { chat_id: "-100123" } },
  { kind: "pd", value: { service_key: "pd-key" } },
  { kind: "po", value: { user_key: "po-key", priority: 1 } },
  { kind: "gotify", value: { url: "https://gotify.example.com", token: "tok" } },
  { kind: "opsgenie", value: { key: "og", region: "eu" } },
  { kind: "zulip", value: { bot_email: "bot@zulip.example.com", api_key: "zk", mtype: "stream", to: "ops" } },
  { kind: "sms", value: { phone: "+15551234567", notify_up: false } },
  { kind: "call", value: { phone: "+15551234567" } },
  { kind: "msteamsw", value: { url: "https://teams.example.com/hook" } },
  { kind: "mattermost", value: { url: "https://mm.example.com/hook" } },
  { kind: "github", value: { repo: "acme/ops", token: "ghp" } },
  { kind: "matrix", value: { room_id: "!room:example.com" } },
  { kind: "alertmanager", value: { url: "https://am.example.com/", labels: "team=ops, env=prod", token: "am-token" } },
];

test("channels: GET one answers its value as channel add takes it, for every kind: adding that value again stores the same", () =>
  withServedApi(async (api, url) => {
    const base = `/admin/v1/projects/${api.project.id}/channels`;
    for (const [i, channel] of CHANNELS.entries()) {
      const made = await admin(url, "POST", base, { ...channel, name: `c${i}` });
      assert.is(made.status, 201, made.text);
      const read = await admin(url, "GET", `${base}/${made.json.id}`);
      assert.equal(Object.keys(read.json), ["id", "name", "kind", "new_checks", "every_failure", "value"]);
      const again = await admin(url, "POST", base, { kind: channel.kind, name: `again${i}`, value: read.json.value });
      assert.is(again.status, 201, `${channel.kind}: ${again.text}`);
      const reread = await admin(url, "GET", `${base}/${again.json.id}`);
      assert.equal(reread.json.value, read.json.value, `${channel.kind} keeps its value through a read and an add`);
    }
    const sms = (await admin(url, "GET", `${base}`)).json.channels as Json[];
    const smsValue = (await admin(url, "GET", `${base}/${sms.find((c) => c.kind === "sms")?.id}`)).json.value;
    assert.equal(smsValue, { phone: "+15551234567", notify_down: true, notify_up: false }, "yes-or-no fields read as true or false");
    const hook = (await admin(url, "GET", `${base}/${sms.find((c) => c.name === "c1")?.id}`)).json.value;
    assert.is(hook, "https://hooks.example.com/json", "a webhook that posts the check's JSON reads as its URL");
    assert.is((await admin(url, "GET", `${base}/00000000-0000-4000-8000-000000000000`)).status, 404);
  }));

test("status pages and maintenance windows are edited in place; bad edits are refused and change nothing", () =>
  withServedApi(async (api, url) => {
    const a = String((await api.create({ name: "a" })).uuid),
      b = String((await api.create({ name: "b" })).uuid);
    const pages = `/admin/v1/projects/${api.project.id}/status-pages`;
    assert.is((await admin(url, "POST", pages, { slug: "acme", title: "Acme", checks: [a] })).status, 201);
    const edited = await admin(url, "PUT", `${pages}/acme`, { title: "Acme services", checks: [b, a] });
    assert.is(edited.status, 200, edited.text);
    assert.equal(
      [edited.json.slug, edited.json.title, edited.json.checks, edited.json.created],
      ["acme", "Acme services", [b, a], "2026-01-15T12:00:00+00:00"],
    );
    for (const [path, body, status] of [
      [`${pages}/acme`, { title: "", checks: [a] }, 400],
      [`${pages}/acme`, { slug: "moved", title: "T", checks: [a] }, 400],
      [`${pages}/acme`, { title: "T", checks: ["00000000-0000-4000-8000-000000000000"] }, 400],
      [`${pages}/nope`, { title: "T", checks: [a] }, 404],
    ] as const)
      assert.is((await admin(url, "PUT", path, body)).status, status, JSON.stringify(body));
    assert.equal(
      ((await admin(url, "GET", pages)).json.status_pages as Json[]).map((p) => [p.title, p.checks]),
      [["Acme services", [b, a]]],
    );
    const page = (await (await fetch(`${url}/status/acme.json`)).json()) as Json;
    assert.equal(
      (page.checks as Json[]).map((c) => c.name),
      ["b", "a"],
      "the public page shows the edit",
    );

    const windows = `/admin/v1/projects/${api.project.id}/maintenance`;
    const window = (await admin(url, "POST", windows, { name: "nightly", schedule: "0 2 * * *", tz: "UTC", duration: 3600 })).json;
    const changed = await admin(url, "PUT", `${windows}/${window.id}`, {
      name: "weekly",
      schedule: "Sun *-*-* 03:00",
      tz: "Europe/Riga",
      duration: 7200,
    });
    assert.equal(changed.json, { id: window.id, name: "weekly", schedule: "Sun *-*-* 03:00", tz: "Europe/Riga", duration: 7200 });
    assert.is((await admin(url, "PUT", `${windows}/${window.id}`, { name: "x", schedule: "nope", duration: 3600 })).status, 400);
    assert.is(
      (await admin(url, "PUT", `${windows}/00000000-0000-4000-8000-000000000000`, { name: "x", schedule: "0 2 * * *", duration: 3600 }))
        .status,
      404,
    );
    assert.equal((await admin(url, "GET", windows)).json, { maintenance: [changed.json] });
  }));

test("a project's limits are set by PUT /admin/v1/projects/<id> with its name; a bad one is refused, changing nothing", () =>
  withServedApi(async (api, url) => {
    const path = `/admin/v1/projects/${api.project.id}`;
    for (const body of [
      { name: "p", check_limit: -1 },
      { name: "p", ping_log_limit: 0 },
      { name: "p", ping_body_limit: 10_000_001 },
      { name: "p", check_limit: "5" },
      { check_limit: 5 },
    ]) {
      assert.is((await admin(url, "PUT", path, body)).status, 400, JSON.stringify(body));
    }
    assert.equal(
      [(await admin(url, "GET", path)).json.check_limit, (await admin(url, "GET", path)).json.name],
      [20, "test"],
      "nothing changed",
    );
    const changed = await admin(url, "PUT", path, { name: "test", check_limit: 1, ping_body_limit: 5 });
    assert.equal(
      [changed.status, changed.json.check_limit, changed.json.ping_log_limit, changed.json.ping_body_limit],
      [200, 1, 100, 5],
      "the limit not given stays",
    );
    assert.is((await admin(url, "POST", `${path}/checks`, { name: "one" })).status, 201);
    assert.is((await admin(url, "POST", `${path}/checks`, { name: "two" })).status, 403, "the new check limit holds");
  }));

test.run();
