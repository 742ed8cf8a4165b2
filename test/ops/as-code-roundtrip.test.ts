// `hcd export` and `hcd apply -f` round trips, the real CLI against a real server (--url) and a stopped
// DATA_DIR, real LMDB: an export of a rich project applied back plans no change; applied to an empty hcd
// it makes the same project (same check uuids: the ping URLs work there); a second apply changes nothing.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { tempDir } from "../helpers.ts";
import { startServer, stopServer } from "../security/real-server.ts";
import type { RealServer } from "../security/real-server.ts";
import { adminCall, everything, hcd, hcdIn, remote, RICH_SECRETS, richProject, SERVER_ENV } from "./as-code-rig.ts";
import type { Rich } from "./as-code-rig.ts";

type Json = Record<string, unknown>;

let server: RealServer;
let dir: { path: string; remove: () => void };
let rich: Rich;

test.before(async () => {
  dir = tempDir();
  server = await startServer({ dataDir: join(dir.path, "data"), env: SERVER_ENV });
  rich = await richProject(server);
});

test.after(async () => {
  assert.is(await stopServer(server), 0, server.output());
  dir.remove();
});

/** The export's document without what differs between two servers: the ids of projects, channels and windows. */
function portable(text: string): unknown {
  const document = parse(text) as { projects: Json[] };
  return document.projects.map(({ id: _id, channels, maintenance, checks, ...project }) => ({
    ...project,
    checks: (checks as Json[]).sort((a, b) => String(a.uuid).localeCompare(String(b.uuid))),
    channels: (channels as Json[]).map(({ id: _c, ...channel }) => channel).sort((a, b) => String(a.name).localeCompare(String(b.name))),
    maintenance: (maintenance as Json[]).map(({ id: _m, ...window }) => window),
  }));
}

test("export of a rich project, applied back: no change planned, with the secrets from the environment or written in clear", async () => {
  const before = await everything(server);
  const exported = await hcdIn(["export", ...remote(server)]);
  assert.is(exported.status, 0, exported.stderr);
  for (const secret of Object.values(RICH_SECRETS)) assert.not.ok(exported.stdout.includes(secret), `no stored secret in clear: ${secret}`);
  const named = [...exported.stdout.matchAll(/^# {3}(HCD_\w+): /gm)].map((m) => m[1]).sort();
  assert.equal(named, Object.keys(RICH_SECRETS).sort(), "the header names every variable the file reads");
  assert.match(exported.stdout, /^# yaml-language-server: \$schema=/);
  const document = parse(exported.stdout) as { projects: { checks: Json[] }[] };
  const uuids = document.projects[0].checks.map((c) => c.uuid).sort();
  assert.equal(uuids, Object.values(rich.checks).sort(), "every check, by its uuid");
  const file = join(dir.path, "rich.yaml");
  writeFileSync(file, exported.stdout);

  const back = await hcdIn(["apply", "-f", file, "--dry-run", ...remote(server)], RICH_SECRETS);
  assert.is(back.status, 0, back.stderr);
  assert.match(back.stdout, /^No changes: hcd matches the file\.$/m);
  const inClear = await hcdIn(["export", "--include-secrets", ...remote(server)]);
  assert.ok(inClear.stdout.includes(RICH_SECRETS.HCD_RICH_SLACK_URL));
  const piped = await hcd(["apply", "-f", "-", "--dry-run", "--prune", ...remote(server)], {}, inClear.stdout);
  assert.is(piped.status, 0, piped.stderr);
  assert.match(piped.stdout, /^No changes: hcd matches the file\.$/m);
  const applied = await hcdIn(["apply", "-f", file, "--prune", ...remote(server)], RICH_SECRETS);
  assert.equal([applied.status, applied.stdout.trim()], [0, "No changes: hcd matches the file."]);
  assert.is(await everything(server), before, "nothing changed");
});

test("the export applied to an empty hcd (a stopped DATA_DIR) makes the same project with the same check uuids; a second apply changes nothing", async () => {
  const exported = (await hcdIn(["export", "--project", rich.project.id, ...remote(server)])).stdout;
  const file = join(dir.path, "rich.yaml");
  writeFileSync(file, exported);
  const target = join(dir.path, "target");
  const first = await hcdIn(["apply", "-f", file], { ...RICH_SECRETS, DATA_DIR: target, SHELL_ENABLED: "true" });
  assert.is(first.status, 0, first.stderr + first.stdout);
  assert.match(
    first.stdout,
    /Plan: 24 to create, 1 to change, 0 to delete\./,
    "1 project, 14 channels, 5 checks, 2 pages, 2 windows; the project's escalation policy",
  );
  assert.match(first.stdout, /^updated the escalation policy of project "rich"$/m);
  assert.equal(first.stdout.split("\n").filter((l) => l.startsWith("created ")).length, 24);
  assert.match(first.stdout, /\+ create channel "old pager" \(pd\) in project "rich": needs its settings/);
  const second = await hcd(["apply", "-f", file, "--prune"], { ...RICH_SECRETS, DATA_DIR: target, SHELL_ENABLED: "true" });
  assert.equal([second.status, second.stdout.trim()], [0, "No changes: hcd matches the file."]);

  const moved = await startServer({ dataDir: target, env: SERVER_ENV });
  try {
    const again = await hcdIn(["export", "--include-secrets", ...remote(moved)]);
    const original = await hcdIn(["export", "--include-secrets", ...remote(server)]);
    assert.equal(portable(again.stdout), portable(original.stdout), "the same project, checks, channels (values too), pages and windows");
    const pagesOf = async (at: RealServer) =>
      (await adminCall<{ status_pages: Json[] }>(at, "GET", `/admin/v1/projects/${rich.project.id}/status-pages`)).status_pages.map(
        ({ created: _created, ...page }) => page,
      );
    const pages = await pagesOf(moved);
    assert.equal(pages, await pagesOf(server), "pages with their description, logo and groups");
    assert.equal(
      [pages[0].description, pages[0].logo, pages[0].groups],
      ["Nightly work first\nthen the rest", "https://cdn.example.com/rich.png", [{ name: "Nightly", checks: [rich.checks.cron] }]],
    );
    for (const uuid of Object.values(rich.checks))
      assert.is((await fetch(`${moved.url}/ping/${uuid}`)).status, 200, `ping URL ${uuid} works after the move`);
    const { projects } = await adminCall<{ projects: Json[] }>(moved, "GET", "/admin/v1/projects");
    assert.equal(
      projects.map((p) => [p.id, p.name, p.check_limit, p.ping_log_limit, p.ping_body_limit]),
      [[rich.project.id, "rich", 50, 200, 20_000]],
      "made with its id",
    );
    const { channels } = await adminCall<{ channels: Json[] }>(moved, "GET", `/admin/v1/projects/${rich.project.id}/channels`);
    assert.equal(channels.map((c) => c.id).sort(), Object.values(rich.channels).sort(), "channels made with their ids");
    assert.equal(channels.find((c) => c.id === rich.channels["old pager"])?.needs_settings, true, "a stub stays a stub");
  } finally {
    assert.is(await stopServer(moved), 0, moved.output());
  }
});

test.run();
