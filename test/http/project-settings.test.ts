// Managing a project through the admin API over real HTTP: rename (bad names refused), an API key created
// anew (the old one refused at once) or revoked, and deleting a project: its checks, pings, badges, status
// pages and keys answer nothing afterwards, while another project is untouched.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { ADMIN_TOKEN, withServedApi } from "./harness.ts";

type Json = Record<string, unknown>;

async function send(
  url: string,
  method: string,
  path: string,
  opts: { body?: unknown; key?: string } = {},
): Promise<{ status: number; text: string; json: Json }> {
  const headers: Record<string, string> = opts.key === undefined ? { authorization: `Bearer ${ADMIN_TOKEN}` } : { "x-api-key": opts.key };
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(url + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  let json: Json = {};
  try {
    json = JSON.parse(text) as Json;
  } catch {
    /* an empty body */
  }
  return { status: res.status, text, json };
}

test("rename: PUT gives the project its new name; bad names are a 400 and change nothing", () =>
  withServedApi(async (api, url) => {
    const path = `/admin/v1/projects/${api.project.id}`;
    const renamed = await send(url, "PUT", path, { body: { name: "  Billing jobs " } });
    assert.equal([renamed.status, renamed.json.name, renamed.json.id], [200, "Billing jobs", api.project.id]);
    for (const body of [{ name: "" }, { name: "   " }, { name: 5 }, {}, { name: "x".repeat(101) }]) {
      const answer = await send(url, "PUT", path, { body });
      assert.is(answer.status, 400, JSON.stringify(body));
      assert.type(answer.json.error, "string");
    }
    assert.is((await send(url, "GET", path)).json.name, "Billing jobs");
    assert.equal(
      ((await send(url, "GET", "/admin/v1/projects")).json.projects as Json[]).map((p) => p.name),
      ["Billing jobs"],
    );
    assert.is((await send(url, "PUT", "/admin/v1/projects/00000000-0000-4000-8000-000000000000", { body: { name: "x" } })).status, 404);
    assert.is((await send(url, "PUT", path, { body: { name: "x" }, key: api.project.apiKey })).status, 401, "an API key is not the admin");
  }));

test("keys: a key created anew works and the old one is refused at once; a revoked key is refused", () =>
  withServedApi(async (api, url) => {
    const checks = (key: string) => send(url, "GET", "/api/v3/checks/", { key });
    const { apiKey, apiKeyReadonly } = api.project;
    assert.is((await checks(apiKey)).status, 200);
    const fresh = await send(url, "POST", `/admin/v1/projects/${api.project.id}/keys/read-write`);
    assert.is(fresh.status, 200, fresh.text);
    const newKey = String(fresh.json.api_key);
    assert.ok(newKey.length >= 32 && newKey !== apiKey);
    assert.is(fresh.json.api_key_readonly, apiKeyReadonly, "the other key stays");
    assert.is((await checks(apiKey)).status, 401);
    assert.is((await checks(newKey)).status, 200);
    assert.is((await checks(apiKeyReadonly)).status, 200);
    const revoked = await send(url, "DELETE", `/admin/v1/projects/${api.project.id}/keys/read-only`);
    assert.equal([revoked.status, revoked.text], [204, ""]);
    assert.is((await checks(apiKeyReadonly)).status, 401);
    assert.is((await send(url, "GET", `/admin/v1/projects/${api.project.id}`)).json.api_key_readonly, "");
    assert.is((await checks("")).status, 401, "an empty key names no project");
    assert.is((await send(url, "POST", `/admin/v1/projects/${api.project.id}/keys/ping`)).status, 404);
  }));

test("delete: the project's checks, pings, status pages and keys answer nothing; another project is untouched", () =>
  withServedApi(async (api, url) => {
    const made = await api.create({ name: "nightly", slug: "nightly" });
    const uuid = String(made.uuid);
    const other = await api.newProject({ name: "other" });
    const theirs = await send(url, "POST", "/api/v3/checks/", { key: other.apiKey, body: { name: "theirs" } });
    assert.is(theirs.status, 201);
    assert.is(
      (
        await send(url, "POST", `/admin/v1/projects/${api.project.id}/status-pages`, {
          body: { slug: "ops", title: "Ops", checks: [uuid] },
        })
      ).status,
      201,
    );
    assert.is(
      (await send(url, "POST", `/admin/v1/projects/${api.project.id}/channels`, { body: { kind: "email", value: "ops@example.com" } }))
        .status,
      201,
    );
    assert.is((await fetch(`${url}/ping/${uuid}`)).status, 200);

    const deleted = await send(url, "DELETE", `/admin/v1/projects/${api.project.id}`);
    assert.equal([deleted.status, deleted.text], [204, ""]);
    assert.is((await send(url, "GET", `/admin/v1/projects/${api.project.id}`)).status, 404);
    assert.equal(
      ((await send(url, "GET", "/admin/v1/projects")).json.projects as Json[]).map((p) => p.name),
      ["other"],
    );
    assert.is((await send(url, "GET", "/api/v3/checks/", { key: api.project.apiKey })).status, 401);
    assert.is((await send(url, "GET", "/api/v3/checks/", { key: api.project.apiKeyReadonly })).status, 401);
    assert.is((await fetch(`${url}/ping/${uuid}`)).status, 404);
    assert.is((await fetch(`${url}/ping/${api.project.pingKey}/nightly`)).status, 404);
    assert.is((await fetch(`${url}/ping/${api.project.pingKey}/fresh?create=1`)).status, 404, "the ping key creates nothing");
    assert.is((await fetch(`${url}/status/ops.json`)).status, 404);
    assert.is((await send(url, "DELETE", `/admin/v1/projects/${api.project.id}`)).status, 404);
    assert.equal(await api.pool.listChecks(api.project.id, { tags: [] }), [], "its checks are gone from their shard, not only unreachable");
    assert.equal(await api.pool.listChannels(api.project.id), [], "and its integrations");
    assert.is((await send(url, "GET", "/api/v3/checks/", { key: other.apiKey })).json.checks instanceof Array, true);
    assert.equal(
      ((await send(url, "GET", "/api/v3/checks/", { key: other.apiKey })).json.checks as Json[]).map((c) => c.name),
      ["theirs"],
    );
  }));

test.run();
