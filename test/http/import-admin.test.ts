// The admin API's operations for bringing data over (http/routes/admin-import.ts, POST /admin/v1/projects
// and channels' kept ids, users' Django hashes): a check put whole with its uuid, state and flips, its
// past pings, a project with its own keys (Healthchecks' hashed ones too), a stub integration that
// sends nothing until given its settings; each validated, and idempotent.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createHmac, pbkdf2Sync } from "node:crypto";
import { HOUR, MINUTE } from "../../engine/model.ts";
import { until } from "../helpers.ts";
import { T0, withApi } from "./harness.ts";
import type { Api } from "./harness.ts";

type Json = Record<string, unknown>;
const UUID = "0237ba80-f8b2-4440-9119-d2c2c64a08f9";
const iso = (ms: number) => new Date(ms).toISOString();

/** A check as Healthchecks had it: up, pinged 4 times, its last ping an hour ago, two flips. */
function imported(overrides: Json = {}): Json {
  return {
    name: "Backup DB",
    slug: "backup-db",
    tags: "prod db",
    desc: "nightly dump",
    timeout: 86_400,
    grace: 3_600,
    manual_resume: false,
    methods: "",
    badge_key: "8530b991-e358-4c68-beab-7cf59f237d7a",
    status: "up",
    n_pings: 4,
    last_ping: iso(T0 - HOUR),
    last_duration: 12.5,
    created: iso(T0 - 30 * 24 * HOUR),
    flips: [
      { timestamp: iso(T0 - 2 * HOUR), from: "down", to: "up", reason: "" },
      { timestamp: iso(T0 - 3 * HOUR), from: "new", to: "down", reason: "fail" },
    ],
    ...overrides,
  };
}

const put = (api: Api, body: Json, uuid = UUID, project = api.project.id) =>
  api.admin("PUT", `/admin/v1/projects/${project}/checks/${uuid}`, body);
const get = async (api: Api, path: string) => (await api.call("GET", `/api/v3${path}`)).json as Json;

test("a check put whole: its uuid, settings, state and flips as given; again: unchanged; changed settings: updated, its state kept", () =>
  withApi(async (api) => {
    const made = await put(api, imported());
    assert.equal([made.status, made.json], [201, { uuid: UUID, result: "created" }]);
    const check = await get(api, `/checks/${UUID}`);
    assert.equal(
      [
        check.name,
        check.slug,
        check.tags,
        check.desc,
        check.timeout,
        check.grace,
        check.status,
        check.n_pings,
        check.last_ping,
        check.last_duration,
        check.badge_url,
      ],
      [
        "Backup DB",
        "backup-db",
        "prod db",
        "nightly dump",
        86_400,
        3_600,
        "up",
        4,
        iso(T0 - HOUR).replace(".000Z", "+00:00"),
        12,
        "http://hc.test/b/2/8530b991-e358-4c68-beab-7cf59f237d7a.svg",
      ],
    );
    assert.equal(await get(api, `/checks/${UUID}/flips/`), [
      { timestamp: iso(T0 - 2 * HOUR).replace(".000Z", "+00:00"), up: 1 },
      { timestamp: iso(T0 - 3 * HOUR).replace(".000Z", "+00:00"), up: 0 },
    ]);
    assert.equal((await put(api, imported())).json, { uuid: UUID, result: "unchanged" });
    await api.ping(UUID);
    const renamed = await put(api, imported({ name: "Backup", n_pings: 99, flips: [] }));
    assert.equal([renamed.status, renamed.json], [200, { uuid: UUID, result: "updated" }]);
    const after = await get(api, `/checks/${UUID}`);
    assert.equal([after.name, after.n_pings], ["Backup", 5], "hcd's own state stays");
    assert.is(((await get(api, `/checks/${UUID}/flips/`)) as unknown as unknown[]).length, 2, "and its flips");
    const pinged = await api.call("GET", `/ping/${UUID}`);
    assert.is(pinged.status, 200, "its old ping URL answers");
  }));

test("a check put whole from another hcd keeps its run rules: the shortest run, overlapping runs, runs per period", () =>
  withApi(async (api) => {
    const rules = { min_duration: 90, alert_on_overlap: true, max_runs_per_period: 2 };
    assert.is((await put(api, imported(rules))).status, 201);
    const check = await get(api, `/checks/${UUID}`);
    assert.equal([check.min_duration, check.alert_on_overlap, check.max_runs_per_period], [90, true, 2]);
  }));

test("a dry run answers what would happen and changes nothing", () =>
  withApi(async (api) => {
    assert.equal((await put(api, { ...imported(), dry_run: true })).json, { uuid: UUID, result: "created", dry_run: true });
    assert.is((await api.call("GET", `/api/v3/checks/${UUID}`)).status, 404);
    await put(api, imported());
    assert.equal((await put(api, { ...imported({ tags: "other" }), dry_run: true })).json, {
      uuid: UUID,
      result: "updated",
      dry_run: true,
    });
    assert.is((await get(api, `/checks/${UUID}`)).tags, "prod db");
  }));

test("a check put refuses what Healthchecks never stored: a bad uuid, a status, an instant in the future, a bad flip; another project's uuid is a conflict", () =>
  withApi(async (api) => {
    const refusals: [Json, string, string?][] = [
      [imported(), "uuid", "NOT-A-UUID"],
      [imported({ status: "grace" }), "status must be one of"],
      [imported({ last_ping: iso(T0 + 24 * HOUR) }), "last_ping lies in the future"],
      [imported({ status: "up", last_ping: null }), "a check that is up has a last ping"],
      [imported({ flips: [{ timestamp: iso(T0), from: "up", to: "sideways" }] }), "flips[0] needs a timestamp"],
      [imported({ flips: "all of them" }), "flips must be an array"],
      [imported({ timeout: 5 }), "timeout is too small"],
      [imported({ n_pings: -1 }), "n_pings must be a non-negative integer"],
      [imported({ badge_key: "x" }), "badge_key must be a lower-case uuid"],
    ];
    for (const [body, message, uuid] of refusals) {
      const refused = await put(api, body, uuid);
      assert.is(refused.status, 400, message);
      assert.match(String((refused.json as Json).error), message);
    }
    const other = await api.newProject({ name: "other" });
    assert.is((await put(api, imported(), UUID, other.id)).status, 201);
    const clash = await put(api, imported());
    assert.equal([clash.status, clash.json], [409, { error: "another project has a check with this uuid" }]);
    const full = await api.newProject({ checkLimit: 0 });
    assert.equal((await put(api, imported(), "00000000-0000-4000-8000-00000000abcd", full.id)).status, 403, "the check limit holds");
  }));

test("past pings: numbered as they were, those logged left out, those the log would not keep left out, none past n_pings", () =>
  withApi(async (api) => {
    await put(api, imported({ n_pings: 6 }));
    const ping = (n: number, body: string | null = null) => ({
      n,
      date: iso(T0 - HOUR - (6 - n) * MINUTE),
      type: n === 3 ? "fail" : "success",
      scheme: "https",
      remote_addr: "10.1.2.3",
      method: "POST",
      ua: "backup.sh",
      rid: null,
      exitstatus: n === 3 ? 2 : 0,
      body_base64: body === null ? null : Buffer.from(body).toString("base64"),
    });
    const path = `/admin/v1/projects/${api.project.id}/checks/${UUID}/pings`;
    assert.equal((await api.admin("POST", path, { pings: [ping(6, "done"), ping(5), ping(4)] })).json, { added: 3 });
    assert.equal((await api.admin("POST", path, { pings: [ping(6, "done"), ping(5), ping(4), ping(3, "boom")], dry_run: true })).json, {
      added: 1,
      dry_run: true,
    });
    assert.equal((await api.admin("POST", path, { pings: [ping(6, "done"), ping(5), ping(4), ping(3, "boom")] })).json, { added: 1 });
    const listed = ((await get(api, `/checks/${UUID}/pings/`)).pings as Json[]).map((p) => [
      p.n,
      p.type,
      p.remote_addr,
      p.ua,
      p.scheme,
      p.method,
    ]);
    assert.equal(listed, [
      [6, "success", "10.1.2.3", "backup.sh", "https", "POST"],
      [5, "success", "10.1.2.3", "backup.sh", "https", "POST"],
      [4, "success", "10.1.2.3", "backup.sh", "https", "POST"],
      [3, "fail", "10.1.2.3", "backup.sh", "https", "POST"],
    ]);
    assert.is((await api.call("GET", `/api/v3/checks/${UUID}/pings/3/body`)).text, "boom");
    const beyond = await api.admin("POST", path, { pings: [ping(7)] });
    assert.equal(
      [beyond.status, (beyond.json as Json).error],
      [400, "json validation error: pings has ping 7, outside 1 to the check's n_pings (6)"],
    );
    for (const bad of [
      { pings: [{ ...ping(2), date: "yesterday" }] },
      { pings: [{ ...ping(2), rid: "../x" }] },
      { pings: [ping(2), ping(2)] },
      { pings: "x" },
    ]) {
      assert.is((await api.admin("POST", path, bad)).status, 400, JSON.stringify(bad).slice(0, 80));
    }
    // a log of 3: the older ones would only be trimmed again
    const small = ((await api.admin("POST", "/admin/v1/projects", { name: "small", ping_log_limit: 3 })).json as Json).id as string;
    const other = "00000000-0000-4000-8000-000000000123";
    assert.is(
      (
        await api.admin(
          "PUT",
          `/admin/v1/projects/${small}/checks/${other}`,
          imported({ n_pings: 6, badge_key: "00000000-0000-4000-8000-000000000124" }),
        )
      ).status,
      201,
    );
    const smallPath = `/admin/v1/projects/${small}/checks/${other}/pings`;
    assert.equal((await api.admin("POST", smallPath, { pings: [ping(6), ping(5), ping(4), ping(3), ping(2)] })).json, { added: 3 });
    assert.equal((await api.admin("POST", smallPath, { pings: [ping(3), ping(2), ping(1)] })).json, { added: 0 });
  }));

test("a stub integration: made with its kept id, sends nothing (its notifications given up, saying why) until given its settings", () =>
  withApi(async (api) => {
    const id = "2223ad7d-4071-4377-a4c8-8f7eec2a8c18";
    const channels = `/admin/v1/projects/${api.project.id}/channels`;
    assert.equal(
      (await api.admin("POST", channels, { id, kind: "email", name: "Ops mailbox", needs_settings: true, value: "x@example.org" })).status,
      400,
      "a stub has no value",
    );
    assert.equal((await api.admin("POST", channels, { id: "ABC", kind: "email", value: "x@example.org" })).status, 400);
    assert.equal((await api.admin("POST", channels, { id, kind: "email", name: "Ops mailbox", needs_settings: true })).status, 201);
    assert.equal((await api.admin("POST", channels, { id, kind: "email", value: "x@example.org" })).status, 409, "its id is taken");
    const listed = ((await api.admin("GET", channels)).json as { channels: Json[] }).channels;
    assert.equal(
      listed.map((c) => [c.id, c.name, c.needs_settings]),
      [[id, "Ops mailbox", true]],
    );
    assert.equal(
      ((await api.call("GET", "/api/v3/channels/")).json as { channels: Json[] }).channels,
      [{ id, name: "Ops mailbox", kind: "email" }],
      "the API shows it as any other",
    );
    await put(api, imported({ channels: id }));
    await api.ping(UUID, { signal: "fail" });
    await until("the down notification tried", async () => (await api.pool.listOutbox()).some((entry) => entry.attempts > 0));
    const outbox = ((await api.admin("GET", "/admin/v1/outbox")).json as { outbox: Json[] }).outbox;
    assert.equal(
      outbox.map((e) => [e.channel, e.given_up]),
      [[id, true]],
    );
    assert.match(String(outbox[0].last_error), /the email integration "Ops mailbox" needs its settings: it was imported without them/);
    assert.is((await api.admin("PUT", `${channels}/${id}`, { value: "ops@example.org" })).status, 200);
    const given = ((await api.admin("GET", channels)).json as { channels: Json[] }).channels;
    assert.equal(
      given.map((c) => c.needs_settings),
      [false],
    );
  }));

test("a project with kept id, keys and ping key; Healthchecks' hashed keys verified with its SECRET_KEY until created anew; clashes refused", () =>
  withApi(async (api) => {
    const secret = "hc-secret-key-for-tests";
    const rw = "hcw_YC3ViooJNnBC7UsV1yOLqmtObbgc",
      ro = "hcr_pjHuRBXMykjDFpvdRCF9xKTNJ8fN";
    const stored = (key: string) => `${key.slice(4, 12)}.${createHmac("sha256", secret).update(key).digest("hex")}`;
    const id = "a0bc2731-b197-4dac-bc45-b855f5862150";
    const body = {
      name: "Backend Jobs",
      id,
      api_key: "",
      api_key_readonly: "",
      ping_key: "lujulxibyfnsi9e3ajcqyg",
      hashed_api_keys: { secret_key: secret, api_key: stored(rw), api_key_readonly: stored(ro) },
    };
    const made = await api.admin("POST", "/admin/v1/projects", body);
    assert.is(made.status, 201, made.text);
    assert.equal(
      [(made.json as Json).id, (made.json as Json).ping_key, (made.json as Json).hashed_keys],
      [id, "lujulxibyfnsi9e3ajcqyg", ["read-write", "read-only"]],
    );
    assert.not.match(made.text, new RegExp(secret), "the secret is never shown");
    const list = (key: string) => api.call("GET", "/api/v3/checks/", { key });
    assert.is((await list(rw)).status, 200);
    assert.is((await list(ro)).status, 200);
    assert.is((await api.call("POST", "/api/v3/checks/", { key: ro, body: { name: "x" } })).status, 401, "the read-only one reads only");
    assert.is((await list(`${rw.slice(0, 12)}AAAAAAAAAAAAAAAAAAAA`)).status, 401);
    assert.is((await list(`hcr_${rw.slice(4)}`)).status, 401, "a read-write key's rest with the read-only prefix");
    for (const [clash, error] of [
      [{ ...body, name: "again" }, "a project with this id exists"],
      [{ name: "x", ping_key: "lujulxibyfnsi9e3ajcqyg" }, "another project has this ping_key"],
      [{ name: "x", api_key: api.project.apiKey }, "another project has this API key"],
    ] as const) {
      const refused = await api.admin("POST", "/admin/v1/projects", clash);
      assert.equal([refused.status, (refused.json as Json).error], [409, error]);
    }
    for (const bad of [
      { name: "x", id: "nope" },
      { name: "x", ping_key: "a/b" },
      { name: "x", api_key: "short" },
      { name: "x", hashed_api_keys: { secret_key: "s", api_key: "nothashed" } },
    ]) {
      assert.is((await api.admin("POST", "/admin/v1/projects", bad)).status, 400, JSON.stringify(bad));
    }
    assert.is((await api.admin("POST", `/admin/v1/projects/${id}/keys/read-write`)).status, 200);
    assert.is((await list(rw)).status, 401, "a key created anew: the old hashed one stops");
    assert.is((await list(ro)).status, 200, "the other stays");
    assert.equal(((await api.admin("GET", `/admin/v1/projects/${id}`)).json as Json).hashed_keys, ["read-only"]);
  }));

test("a user with a Django password hash signs in with their password; a hash of another kind or a hostile one is refused", () =>
  withApi(async (api) => {
    const hash = (password: string, iterations: number) =>
      `pbkdf2_sha256$${iterations}$somesalt$${pbkdf2Sync(password, "somesalt", iterations, 32, "sha256").toString("base64")}`;
    const made = await api.admin("POST", "/admin/v1/users", { email: "Alice@Example.org", password_hash: hash("alice-password-1", 1000) });
    assert.is(made.status, 201, made.text);
    assert.is((made.json as Json).invite_url, undefined, "no invitation");
    const signIn = async (email: string, password: string) =>
      (await api.app.request("/signin/password", { method: "POST", body: new URLSearchParams({ email, password }), redirect: "manual" }))
        .status;
    assert.is(await signIn("alice@example.org", "wrong password!"), 401);
    assert.is(await signIn("alice@example.org", "alice-password-1"), 303);
    assert.is(await signIn("alice@example.org", "alice-password-1"), 303, "again, with hcd's own hash that replaced it");
    assert.is((await api.admin("POST", "/admin/v1/users", { email: "nopass@example.org", password_hash: null })).status, 201);
    for (const bad of [
      "argon2$argon2id$v=19$m=102400,t=2,p=8$c2FsdA$aGFzaA",
      "pbkdf2_sha256$99999999999$s$AAAA",
      "pbkdf2_sha256$1000$salt$notbase64!",
      "!unusable",
      7,
    ]) {
      const refused = await api.admin("POST", "/admin/v1/users", { email: "bad@example.org", password_hash: bad });
      assert.is(refused.status, 400, String(bad));
      assert.match(String((refused.json as Json).error), /password_hash/);
    }
  }));

test.run();
