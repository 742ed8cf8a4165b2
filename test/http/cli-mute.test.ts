// `hcd project mute`: through a running server's admin API (--url) and directly on a stopped server's
// DATA_DIR; the mute is stored, and usage errors exit 2.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createInProcessPool } from "../../app/pools.ts";
import { runCli } from "../../app/cli.ts";
import { tempDir } from "../helpers.ts";
import { ADMIN_TOKEN, withServedApi } from "./harness.ts";

type Json = Record<string, unknown>;
const T0 = Date.UTC(2026, 0, 15, 12);

/** Runs the CLI; returns its exit status and what it printed (JSON when it is). */
async function cli(argv: string[], env: Record<string, string>): Promise<{ status: number; json: unknown }> {
  const printed: string[] = [];
  const [log, error] = [console.log, console.error];
  console.log = (text: string) => printed.push(text);
  console.error = () => {};
  try {
    const status = await runCli(argv, env);
    let json: unknown = null;
    try {
      json = JSON.parse(printed.join("\n"));
    } catch {
      json = null;
    }
    return { status, json };
  } finally {
    [console.log, console.error] = [log, error];
  }
}

test("with --url: mute and clear through the admin API, shown in the project list", () =>
  withServedApi(async (api, url) => {
    const remote = ["--url", url, "--token", ADMIN_TOKEN];
    const muted = await cli(["project", "mute", "--project", api.project.id, "--until", "2026-01-16T06:00:00Z", ...remote], {});
    assert.equal(muted, { status: 0, json: { muted_until: "2026-01-16T06:00:00+00:00" } });
    const listed = (await api.admin("GET", "/admin/v1/projects")).json as { projects: Json[] };
    assert.is(listed.projects.find((p) => p.id === api.project.id)?.muted_until, "2026-01-16T06:00:00+00:00");
    const cleared = await cli(["project", "mute", "--project", api.project.id, "--clear", ...remote], {});
    assert.equal(cleared, { status: 0, json: { muted_until: null } });
    const bad = await cli(["project", "mute", "--project", api.project.id, "--until", "soon", ...remote], {});
    assert.is(bad.status, 1);
    assert.type((bad.json as Json).error, "string");
  }));

test("on a stopped server's DATA_DIR: the mute is stored and a restart shows it; usage errors exit 2", async () => {
  const dir = tempDir();
  try {
    const options = {
      dataDir: dir.path,
      shards: 2,
      durability: "commit" as const,
      startAt: T0,
      clock: "virtual" as const,
      notify: { siteRoot: "http://hc.test", allowPrivateIps: true, smtpUrl: null },
    };
    const pool = await createInProcessPool(options);
    const project = await pool.createProject({ name: "ops", checkLimit: 10, pingLogLimit: 10, pingBodyLimit: 100 }, T0);
    await pool.close();
    const env = { DATA_DIR: dir.path };
    const muted = await cli(["project", "mute", "--project", project.id, "--until", "2030-01-01T00:00:00+01:00"], env);
    assert.equal(muted, { status: 0, json: { muted_until: "2029-12-31T23:00:00+00:00" } });
    const reopened = await createInProcessPool(options);
    try {
      assert.is(reopened.listProjects().find((p) => p.id === project.id)?.mutedUntilAt, Date.UTC(2029, 11, 31, 23));
    } finally {
      await reopened.close();
    }
    assert.is((await cli(["project", "mute", "--project", project.id], env)).status, 2, "neither --until nor --clear");
    assert.is(
      (await cli(["project", "mute", "--project", project.id, "--clear", "--until", "2030-01-01T00:00:00Z"], env)).status,
      2,
      "both",
    );
    assert.is((await cli(["project", "mute", "--until", "2030-01-01T00:00:00Z"], env)).status, 2, "no --project");
    const unknown = await cli(["project", "mute", "--project", "00000000-0000-4000-8000-000000000000", "--clear"], env);
    assert.is(unknown.status, 1);
  } finally {
    dir.remove();
  }
});

test.run();
