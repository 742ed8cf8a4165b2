// `hcd outbox` and `hcd channel list`: the admin API's JSON, directly on a stopped server's DATA_DIR
// (without sending anything itself) and through a running server's admin API.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Pool } from "../../host/pool-api.ts";
import { createInProcessPool } from "../../app/pools.ts";
import { HOUR, MINUTE } from "../../engine/model.ts";
import { runCli } from "../../app/cli.ts";
import { closedPort, tempDir, pingThrough } from "../helpers.ts";
import { ADMIN_TOKEN, withServedApi } from "./harness.ts";

type Json = Record<string, unknown>;
const T0 = Date.UTC(2026, 0, 15, 12);

/** Runs the CLI; returns its exit status and the JSON it printed. */
async function cli(argv: string[], env: Record<string, string>): Promise<{ status: number; json: unknown }> {
  const printed: string[] = [];
  const log = console.log;
  console.log = (text: string) => printed.push(text);
  try {
    const status = await runCli(argv, env);
    return { status, json: JSON.parse(printed.join("\n")) };
  } finally {
    console.log = log;
  }
}

/** Resolves once the pool's outbox holds an entry tried `attempts` times; fails after 5 s of real time. */
async function attempted(pool: Pool, attempts: number): Promise<void> {
  const started = Date.now();
  while (!(await pool.listOutbox()).some((entry) => entry.attempts === attempts)) {
    if (Date.now() - started > 5_000) throw new Error(`no entry with ${attempts} attempts`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

test("on a stopped server's DATA_DIR, outbox and channel list show the failed delivery and send nothing", async () => {
  const dir = tempDir();
  try {
    const pool = await createInProcessPool({
      dataDir: dir.path,
      shards: 1,
      durability: "commit",
      startAt: T0,
      clock: "virtual",
      notify: { siteRoot: "http://hc.test", allowPrivateIps: true, smtpUrl: null },
    });
    const project = await pool.createProject({ name: "ops", checkLimit: 10, pingLogLimit: 10, pingBodyLimit: 100 }, T0);
    const url = `http://127.0.0.1:${await closedPort()}/`;
    const channel = await pool.addChannel(
      project.id,
      {
        kind: "webhook",
        name: "hook",
        value: {
          kind: "webhook",
          json: true,
          spec: {
            method_down: "POST",
            url_down: url,
            body_down: "",
            headers_down: {},
            method_up: "POST",
            url_up: url,
            body_up: "",
            headers_up: {},
          },
        },
      },
      T0,
    );
    const made = await pool.createCheck(project.id, { name: "nightly", timeoutMs: HOUR, graceMs: MINUTE, channels: { all: true } }, [], T0);
    if (!channel.ok || !made.ok) throw new Error("set-up failed");
    await pingThrough(pool, {
      target: { uuid: made.value.check.uuid },
      signal: "fail",
      exitStatus: null,
      method: "GET",
      scheme: "http",
      remoteAddr: "10.0.0.1",
      ua: "",
      rid: null,
      body: null,
      at: T0,
    });
    await attempted(pool, 1);
    await pool.close();

    // the check is long overdue by the real clock and its retry long due: the CLI must apply and send neither
    const env = { DATA_DIR: dir.path, INTEGRATIONS_ALLOW_PRIVATE_IPS: "true" };
    for (let run = 0; run < 2; run++) {
      const outbox = await cli(["outbox"], env);
      assert.is(outbox.status, 0);
      const entries = (outbox.json as { outbox: Json[] }).outbox;
      assert.equal(
        entries.map((e) => [e.project, e.channel, e.check, e.attempts, e.given_up]),
        [[project.id, channel.value.id, made.value.check.uuid, 1, false]],
        `run ${run}`,
      );
      assert.type(entries[0].last_error, "string");
    }
    const channels = await cli(["channel", "list", "--project", project.id], env);
    assert.is(channels.status, 0);
    assert.equal(
      (channels.json as { channels: Json[] }).channels.map((c) => [c.id, c.pending, c.failed, typeof c.last_error]),
      [[channel.value.id, 1, 0, "string"]],
    );
    const unknown = await cli(["channel", "list", "--project", "00000000-0000-4000-8000-000000000000"], env);
    assert.is(unknown.status, 1);
    assert.type((unknown.json as Json).error, "string");
  } finally {
    dir.remove();
  }
});

test("with --url, outbox and channel list print exactly what the admin API answers", () =>
  withServedApi(async (api, url) => {
    const remote = ["--url", url, "--token", ADMIN_TOKEN];
    await api.admin("POST", `/admin/v1/projects/${api.project.id}/channels`, { kind: "email", name: "ops", value: "ops@example.com" });
    const outbox = await cli(["outbox", ...remote], {});
    assert.equal(outbox, { status: 0, json: (await api.admin("GET", "/admin/v1/outbox")).json });
    const channels = await cli(["channel", "list", "--project", api.project.id, ...remote], {});
    assert.equal(channels, { status: 0, json: (await api.admin("GET", `/admin/v1/projects/${api.project.id}/channels`)).json });
    const refused = await cli(["outbox", "--url", url, "--token", "wrong"], {});
    assert.is(refused.status, 1);
  }));

test("a misspelt or foreign option is a usage error (exit 2), never ignored; nothing is written", async () => {
  const dir = tempDir();
  try {
    const env = { DATA_DIR: dir.path };
    const errors: string[] = [];
    const error = console.error;
    console.error = (text: string) => errors.push(text);
    try {
      assert.is(await runCli(["project", "create", "--name", "ops", "--check-limt", "5"], env), 2);
      assert.is(await runCli(["project", "list", "--before", "2026-01-01"], env), 2);
      assert.is(await runCli(["outbox", "stray"], env), 2);
    } finally {
      console.error = error;
    }
    assert.match(errors[0], /check-limt/);
    assert.match(errors[1], /project list takes no --before/);
    const listed = await cli(["project", "list"], env);
    assert.equal(listed, { status: 0, json: { projects: [] } });
  } finally {
    dir.remove();
  }
});

test("without --url, project create and list answer as the admin API does (201 shape), on DATA_DIR", async () => {
  const dir = tempDir();
  try {
    const env = { DATA_DIR: dir.path };
    const made = await cli(["project", "create", "--name", "ops", "--check-limit", "5"], env);
    assert.is(made.status, 0);
    const project = made.json as Json;
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
    assert.is(project.check_limit, 5);
    const listed = await cli(["project", "list"], env);
    assert.equal(listed, { status: 0, json: { projects: [project] } });
    const bad = await cli(["project", "create", "--name", "x".repeat(200)], env);
    assert.is(bad.status, 1);
    assert.match(String((bad.json as Json).error), /name/);
  } finally {
    dir.remove();
  }
});

test("channel update on DATA_DIR replaces the value and name, keeps the kind; a bad value exits 1 and changes nothing", async () => {
  const dir = tempDir();
  try {
    const env = { DATA_DIR: dir.path };
    const project = (await cli(["project", "create", "--name", "ops"], env)).json as Json;
    const added = (
      await cli(["channel", "add", "--project", String(project.id), "--kind", "email", "--value", "old@example.com", "--name", "old"], env)
    ).json as Json;
    const update = (...more: string[]) =>
      cli(["channel", "update", "--project", String(project.id), "--channel", String(added.id), ...more], env);
    const bad = await update("--value", "not an address");
    assert.is(bad.status, 1);
    assert.match(String((bad.json as Json).error), /email/);
    const updated = await update("--value", "new@example.com", "--name", "new");
    assert.equal(updated, { status: 0, json: { id: added.id, name: "new", kind: "email" } });
    const listed = await cli(["channel", "list", "--project", String(project.id)], env);
    assert.equal(
      (listed.json as { channels: Json[] }).channels.map((c) => [c.id, c.name, c.kind]),
      [[added.id, "new", "email"]],
    );
  } finally {
    dir.remove();
  }
});

test.run();
