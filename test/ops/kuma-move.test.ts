// docs/moving-from-uptime-kuma.md's recipe, run as the page writes it (sqlite3 and jq from Debian) on a
// database with Kuma's `monitor` table: each push monitor becomes a check with its token and timing, the
// other monitors stay out, the file applies to a real server and a second run changes nothing, and a push
// through each token brought over is answered {"ok":true} and logged on its check.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import { haveProgram } from "./extras.ts";
import { call, ok, startServer, stopServer } from "../security/real-server.ts";
import { ADMIN, hcdIn, remote, SERVER_ENV } from "./as-code-rig.ts";

type Json = Record<string, unknown>;

/**
 * Kuma's `monitor` table with the columns the recipe reads and those around them, as Kuma's schema has
 * them on SQLite: the 1.x base of db/knex_init_db.js (name, active, interval, type, maxretries,
 * upside_down, push_token as VARCHAR(20) widened to 32 by db/knex_migrations/2023-10-11-1915-push-token-to-32.js),
 * retry_interval (db/old_migrations/patch-add-retry-interval-monitor.sql) and description
 * (patch-add-description-monitor.sql).
 */
const MONITOR_TABLE = `
CREATE TABLE monitor (
  id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  name VARCHAR(150),
  active BOOLEAN NOT NULL DEFAULT 1,
  user_id INTEGER,
  interval INTEGER NOT NULL DEFAULT 20,
  url TEXT,
  type VARCHAR(20),
  weight INTEGER DEFAULT 2000,
  hostname VARCHAR(255),
  port INTEGER,
  created_date DATETIME NOT NULL DEFAULT (DATETIME('now')),
  keyword VARCHAR(255),
  maxretries INTEGER NOT NULL DEFAULT 0,
  ignore_tls BOOLEAN NOT NULL DEFAULT 0,
  upside_down BOOLEAN NOT NULL DEFAULT 0,
  maxredirects INTEGER NOT NULL DEFAULT 10,
  accepted_statuscodes_json TEXT NOT NULL DEFAULT '["200-299"]',
  retry_interval INTEGER NOT NULL DEFAULT 0,
  push_token VARCHAR(32) DEFAULT NULL,
  method TEXT NOT NULL DEFAULT 'GET',
  resend_interval INTEGER NOT NULL DEFAULT 0,
  description TEXT DEFAULT NULL
);
INSERT INTO monitor (name, type, url, interval) VALUES ('website', 'http', 'https://example.com', 60);
INSERT INTO monitor (name, type, interval, retry_interval, maxretries, push_token, description)
  VALUES ('nightly backup', 'push', 86400, 600, 3, 'Zq3kT9pXw2LmN8vB4cR7yH1dF6gJ0sAe', 'the database dump');
INSERT INTO monitor (name, type, interval, push_token) VALUES ('heartbeat', 'push', 20, 'aB3dE5gH7j');
INSERT INTO monitor (name, type, interval, push_token) VALUES ('never set up', 'push', 60, NULL);
`;

test("the page's recipe brings every push monitor of a Kuma database over; pushes through their tokens are answered and logged", async () => {
  if (!haveProgram("sqlite3", "moving Kuma push monitors") || !haveProgram("jq", "moving Kuma push monitors")) return;
  const dir = tempDir();
  const server = await startServer({ dataDir: join(dir.path, "data"), env: SERVER_ENV });
  try {
    const made = spawnSync("sqlite3", [join(dir.path, "kuma.db")], { input: MONITOR_TABLE, encoding: "utf8" });
    assert.is(made.status, 0, made.stderr);
    const page = readFileSync(new URL("../../../docs/moving-from-uptime-kuma.md", import.meta.url), "utf8");
    const recipe = /```sh\n([\s\S]*?)```/.exec(page)?.[1];
    assert.ok(recipe?.includes("sqlite3 -json kuma.db"), "the page has the recipe");
    const ran = spawnSync("sh", ["-e", "-c", recipe ?? ""], { cwd: dir.path, encoding: "utf8" });
    assert.is(ran.status, 0, ran.stderr);
    const file = join(dir.path, "kuma.json");
    assert.equal(JSON.parse(readFileSync(file, "utf8")), {
      projects: [
        {
          name: "Uptime Kuma",
          checks: [
            {
              slug: "kuma-2",
              name: "nightly backup",
              push_token: "Zq3kT9pXw2LmN8vB4cR7yH1dF6gJ0sAe",
              timeout: 86_400,
              grace: 1_800,
              desc: "the database dump",
            },
            { slug: "kuma-3", name: "heartbeat", push_token: "aB3dE5gH7j", timeout: 60, grace: 60, desc: "" },
          ],
        },
      ],
    });

    const applied = await hcdIn(["apply", "-f", file, ...remote(server)]);
    assert.is(applied.status, 0, applied.stderr + applied.stdout);
    assert.match(applied.stdout, /Applied 3 changes\./);
    assert.equal((await hcdIn(["apply", "-f", file, ...remote(server)])).stdout.trim(), "No changes: hcd matches the file.");
    const { projects } = await ok<{ projects: { name: string; api_key: string }[] }>(
      call(server.url, "GET", "/admin/v1/projects", { headers: { authorization: `Bearer ${ADMIN}` } }),
    );
    const key = projects.find((p) => p.name === "Uptime Kuma")?.api_key ?? "";
    for (const token of ["Zq3kT9pXw2LmN8vB4cR7yH1dF6gJ0sAe", "aB3dE5gH7j"]) {
      assert.equal(await (await fetch(`${server.url}/api/push/${token}?status=up&msg=OK&ping=`)).json(), { ok: true }, token);
    }
    const { checks } = await ok<{ checks: Json[] }>(call(server.url, "GET", "/api/v3/checks/", { key }));
    assert.equal(checks.map((c) => [c.slug, c.status, c.n_pings, c.timeout, c.grace]).sort(), [
      ["kuma-2", "up", 1, 86_400, 1_800],
      ["kuma-3", "up", 1, 60, 60],
    ]);
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    dir.remove();
  }
});

test.run();
