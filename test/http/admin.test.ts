// /admin/v1 through app.request() on an in-process pool (CONTRACT.md "Admin API").
import { test } from "uvu";
import * as assert from "uvu/assert";
import { SECOND } from "../../engine/model.ts";
import { T0, withApi } from "./harness.ts";

type Json = Record<string, unknown>;

test("a missing or wrong admin token answers 401 JSON on every admin path", () =>
  withApi(async (api) => {
    for (const [method, path] of [
      ["GET", "/admin/v1/projects"],
      ["POST", "/admin/v1/projects"],
      ["GET", "/admin/v1/clock"],
      ["POST", "/admin/v1/clock"],
      ["POST", `/admin/v1/projects/${api.project.id}/channels`],
      ["POST", "/admin/v1/prune"],
    ]) {
      for (const authorization of [undefined, "Bearer wrong", "Basic abc", `Bearer ${api.project.apiKey}`]) {
        const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
        const res = await api.call(method, path, { key: null, headers, body: method === "POST" ? { name: "x" } : undefined });
        assert.is(res.status, 401, `${method} ${path} ${authorization}`);
        assert.type((res.json as Json).error, "string");
      }
    }
    assert.is((await api.admin("GET", "/admin/v1/projects")).status, 200);
  }));

test("projects: create answers 201 with fresh random keys and the defaults; list shows them", () =>
  withApi(async (api) => {
    const res = await api.admin("POST", "/admin/v1/projects", { name: "Ops" });
    assert.is(res.status, 201);
    const project = res.json as Json;
    assert.equal(Object.keys(project).sort(), [
      "api_key",
      "api_key_readonly",
      "check_limit",
      "hashed_keys",
      "id",
      "muted_until",
      "name",
      "ping_body_limit",
      "ping_key",
      "ping_log_limit",
    ]);
    assert.equal(
      [project.name, project.check_limit, project.ping_log_limit, project.ping_body_limit, project.muted_until],
      ["Ops", 20, 100, 10000, null],
    );
    for (const key of ["api_key", "api_key_readonly", "ping_key"]) assert.ok((project[key] as string).length >= 22, key);
    assert.is.not(project.api_key, project.api_key_readonly);
    const limits = await api.admin("POST", "/admin/v1/projects", {
      name: "Big",
      check_limit: 500,
      ping_log_limit: 1000,
      ping_body_limit: 0,
    });
    assert.equal(
      [(limits.json as Json).check_limit, (limits.json as Json).ping_log_limit, (limits.json as Json).ping_body_limit],
      [500, 1000, 0],
    );
    const list = await api.admin("GET", "/admin/v1/projects/");
    const projects = (list.json as { projects: Json[] }).projects;
    assert.equal(projects.map((p) => p.name).sort(), ["Big", "Ops", "test"]);
    assert.equal(
      projects.find((p) => p.id === project.id),
      project,
    );
    // the new key works on the API at once
    const checks = await api.call("GET", "/api/v3/checks/", { key: project.api_key as string });
    assert.is(checks.status, 200);
  }));

test("projects: invalid bodies answer 400 and create nothing", () =>
  withApi(async (api) => {
    for (const body of [
      {},
      { name: 5 },
      { name: "x".repeat(101) },
      { name: "a", check_limit: -1 },
      { name: "a", check_limit: "5" },
      { name: "a", ping_log_limit: 0 },
      { name: "a", ping_body_limit: 1.5 },
    ]) {
      const res = await api.admin("POST", "/admin/v1/projects", body);
      assert.is(res.status, 400, JSON.stringify(body));
    }
    const raw = await api.call("POST", "/admin/v1/projects", {
      key: null,
      raw: "{",
      headers: { authorization: "Bearer admin-token-for-tests-0123456789" },
    });
    assert.is(raw.status, 400);
    assert.is(((await api.admin("GET", "/admin/v1/projects")).json as { projects: Json[] }).projects.length, 1);
  }));

const VALID_CHANNELS: [string, unknown][] = [
  ["email", "ops@example.com"],
  ["webhook", "https://example.com/hook"],
  [
    "webhook",
    { method_down: "POST", url_down: "https://example.com/down", body_down: "$NAME is down", headers_down: { "X-Token": "t" }, url_up: "" },
  ],
  ["webhook", { url_up: "http://127.0.0.1:9999/up", method_up: "put" }],
  ["slack", "https://hooks.slack.com/services/T/B/X"],
  ["discord", "https://discord.com/api/webhooks/1/abc"],
  ["ntfy", "https://ntfy.sh/my-topic"],
  ["ntfy", { url: "https://ntfy.example.com", topic: "alerts", priority_down: 4, priority_up: 0 }],
];
const INVALID_CHANNELS: [string, unknown][] = [
  ["sms", "+123"],
  ["email", "not-an-address"],
  ["email", 5],
  ["webhook", "ftp://example.com"],
  ["webhook", {}],
  ["webhook", { url_down: "notaurl" }],
  ["webhook", { url_down: "https://x.example", method_down: "DELETE" }],
  ["webhook", { url_down: "https://x.example", headers_down: { "X-A": 1 } }],
  ["webhook", { url_down: "https://x.example", headers_down: ["a"] }],
  ["slack", "hooks.slack.com"],
  ["discord", { url: "https://discord.com" }],
  ["ntfy", "https://ntfy.sh/"],
  ["ntfy", { url: "https://ntfy.sh", topic: "" }],
  ["ntfy", { url: "https://ntfy.sh", topic: "t", priority_down: 9 }],
  ["ntfy", { topic: "t" }],
];

test("channels: every kind's value forms are accepted (201 {id, name, kind}) and listed by the API", () =>
  withApi(async (api) => {
    const ids: string[] = [];
    for (const [kind, value] of VALID_CHANNELS) {
      const res = await api.admin("POST", `/admin/v1/projects/${api.project.id}/channels`, { kind, value, name: `${kind}-ch` });
      assert.is(res.status, 201, `${kind} ${JSON.stringify(value)}: ${res.text}`);
      const channel = res.json as Json;
      assert.equal(Object.keys(channel).sort(), ["id", "kind", "name"]);
      assert.equal([channel.kind, channel.name], [kind, `${kind}-ch`]);
      ids.push(channel.id as string);
    }
    const noName = await api.admin("POST", `/admin/v1/projects/${api.project.id}/channels`, { kind: "email", value: "a@b.c" });
    assert.is((noName.json as Json).name, "");
    const listed = ((await api.call("GET", "/api/v3/channels/")).json as { channels: Json[] }).channels;
    assert.equal(listed.map((c) => c.id).sort(), [...ids, (noName.json as Json).id].sort());
  }));

test("channels: invalid values answer 400 and add nothing; an unknown project is 404", () =>
  withApi(async (api) => {
    for (const [kind, value] of INVALID_CHANNELS) {
      const res = await api.admin("POST", `/admin/v1/projects/${api.project.id}/channels`, { kind, value });
      assert.is(res.status, 400, `${kind} ${JSON.stringify(value)}`);
      assert.type((res.json as Json).error, "string");
    }
    assert.equal((await api.call("GET", "/api/v3/channels/")).json, { channels: [] });
    const unknown = await api.admin("POST", "/admin/v1/projects/00000000-0000-4000-8000-000000000000/channels", {
      kind: "email",
      value: "a@b.c",
    });
    assert.is(unknown.status, 404);
    assert.type((unknown.json as Json).error, "string");
  }));

test("clock: GET shows the virtual now; POST advances it and fires every deadline before answering", () =>
  withApi(async (api) => {
    assert.equal((await api.admin("GET", "/admin/v1/clock")).json, { now: new Date(T0).toISOString() });
    const check = await api.create({ timeout: 60, grace: 60 });
    await api.ping(check.uuid as string);
    const res = await api.admin("POST", "/admin/v1/clock", { advance: 121.5 });
    assert.is(res.status, 200);
    assert.equal(res.json, { now: new Date(T0 + 121.5 * SECOND).toISOString() });
    assert.is(api.clock.now(), T0 + 121_500);
    const flips = (await api.call("GET", `/api/v3/checks/${check.uuid}/flips/`)).json as Json[];
    assert.equal(flips[0], { timestamp: "2026-01-15T12:02:00+00:00", up: 0 }, "the down flip carries its own due time");
    for (const body of [{}, { advance: -1 }, { advance: "10" }, { advance: null }]) {
      assert.is((await api.admin("POST", "/admin/v1/clock", body)).status, 400, JSON.stringify(body));
    }
    assert.is(api.clock.now(), T0 + 121_500);
  }));

test("clock: POST answers 404 when the clock is real", () =>
  withApi(
    async (api) => {
      const res = await api.admin("POST", "/admin/v1/clock", { advance: 10 });
      assert.is(res.status, 404);
      assert.type((res.json as Json).error, "string");
      assert.is((await api.admin("GET", "/admin/v1/clock")).status, 200);
    },
    { clock: "real" },
  ));

test("prune removes flips older than the cut-off and says how many", () =>
  withApi(async (api) => {
    const check = await api.create({ timeout: 60, grace: 60 });
    await api.ping(check.uuid as string); // flip at T0
    await api.admin("POST", "/admin/v1/clock", { advance: 200 }); // down flip at T0+120s
    const res = await api.admin("POST", "/admin/v1/prune", { before: new Date(T0 + 60 * SECOND).toISOString() });
    assert.is(res.status, 200);
    assert.is((res.json as Json).pruned, 1);
    assert.is(((await api.call("GET", `/api/v3/checks/${check.uuid}/flips/`)).json as Json[]).length, 1);
    const retention = await api.admin("POST", "/admin/v1/prune", {});
    assert.equal(retention.json, { pruned: 0, before: "2025-11-01T00:00:00.000Z" });
    assert.is((await api.admin("POST", "/admin/v1/prune", { before: "yesterday" })).status, 400);
  }));

test("unknown admin paths and methods answer JSON 404 / 405", () =>
  withApi(async (api) => {
    const missing = await api.admin("GET", "/admin/v1/nothing");
    assert.is(missing.status, 404);
    assert.type((missing.json as Json).error, "string");
    const method = await api.admin("DELETE", "/admin/v1/projects");
    assert.is(method.status, 405);
    assert.type((method.json as Json).error, "string");
  }));

test.run();
