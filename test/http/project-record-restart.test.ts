// What lives in the project records the store keeps survives a restart: status pages (CONTRACT "Status
// pages"; one added is listed and served after it, one removed stays removed), a new name, a key created
// anew or revoked, and a deleted project.
import { createServer } from "node:http";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { toNodeHandler } from "h3/node";
import { createInProcessPool } from "../../app/pools.ts";
import { finishConfig, readSettings } from "../../app/config.ts";
import { VirtualClock } from "../../host/clock.ts";
import type { Pool } from "../../host/pool-api.ts";
import { createApp } from "../../http/app.ts";
import { readMail } from "../../mail/message.ts";
import { serviceKindsOf } from "../../notify/kinds/service.ts";
import { HOUR } from "../../engine/model.ts";
import { tempDir } from "../helpers.ts";
import { ADMIN_TOKEN, BADGE_SECRET } from "./harness.ts";

const T0 = Date.UTC(2026, 5, 1, 12);

/** Opens the store in `dir` with the app served on loopback while `body` runs, then closes both. */
async function served(dir: string, body: (url: string, pool: Pool) => Promise<void>): Promise<void> {
  const pool = await createInProcessPool({
    dataDir: dir,
    shards: 2,
    durability: "commit",
    startAt: T0,
    clock: "virtual",
    notify: { siteRoot: "http://hcd.test", allowPrivateIps: true, smtpUrl: null },
  });
  const config = finishConfig(readSettings({ DATA_DIR: dir, SITE_ROOT: "http://hcd.test" }), {
    adminToken: ADMIN_TOKEN,
    badgeSecret: BADGE_SECRET,
    boundPort: 8000,
  });
  const unexpected: unknown[] = [];
  const app = createApp(
    {
      pool,
      clock: new VirtualClock(T0),
      config,
      readMail,
      sendTestNotification: async () => null,
      serviceKinds: serviceKindsOf(config.services),
    },
    { report: (e) => unexpected.push(e) },
  );
  const server = createServer(toNodeHandler(app));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("no port");
    await body(`http://127.0.0.1:${address.port}`, pool);
    assert.equal(unexpected.map(String), []);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await pool.close();
  }
}

const admin = (url: string, method: string, path: string, body?: unknown) =>
  fetch(url + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

test("restart: a page added before it is listed and served after it; one removed before it stays removed", async () => {
  const dir = tempDir();
  try {
    let projectId = "";
    await served(dir.path, async (url, pool) => {
      const project = await pool.createProject({ name: "ops", checkLimit: 10, pingLogLimit: 10, pingBodyLimit: 1000 }, T0);
      projectId = project.id;
      const made = await pool.createCheck(project.id, { name: "nightly backup", timeoutMs: HOUR, graceMs: HOUR }, [], T0);
      if (!made.ok) throw new Error("create failed");
      const path = `/admin/v1/projects/${project.id}/status-pages`;
      assert.is((await admin(url, "POST", path, { slug: "kept", title: "Kept page", checks: [made.value.check.uuid] })).status, 201);
      assert.is((await admin(url, "POST", path, { slug: "gone", title: "Gone page", checks: [made.value.check.uuid] })).status, 201);
      assert.is((await admin(url, "DELETE", `${path}/gone`)).status, 204);
    });
    await served(dir.path, async (url) => {
      const listed = (await (await admin(url, "GET", `/admin/v1/projects/${projectId}/status-pages`)).json()) as {
        status_pages: { slug: string }[];
      };
      assert.equal(
        listed.status_pages.map((p) => p.slug),
        ["kept"],
      );
      const page = await fetch(`${url}/status/kept.json`);
      assert.is(page.status, 200);
      assert.equal(await page.json(), {
        title: "Kept page",
        overall: { status: "operational", down: 0, late: 0, total: 1 },
        checks: [{ name: "nightly backup", status: "new", uptime_90d: 100, unknown_90d: 0 }],
        incidents: [],
        unknown: [],
      });
      assert.is((await fetch(`${url}/status/gone`)).status, 404);
    });
  } finally {
    dir.remove();
  }
});

test("restart: a new name, a key created anew and a revoked one, and a deleted project stay so", async () => {
  const dir = tempDir();
  try {
    let kept = { id: "", oldKey: "", newKey: "", readonlyKey: "" };
    let gone = { id: "", apiKey: "" };
    await served(dir.path, async (url, pool) => {
      const project = await pool.createProject({ name: "ops", checkLimit: 10, pingLogLimit: 10, pingBodyLimit: 1000 }, T0);
      const doomed = await pool.createProject({ name: "doomed", checkLimit: 10, pingLogLimit: 10, pingBodyLimit: 1000 }, T0);
      assert.is((await admin(url, "PUT", `/admin/v1/projects/${project.id}`, { name: "Ops renamed" })).status, 200);
      const fresh = (await (await admin(url, "POST", `/admin/v1/projects/${project.id}/keys/read-write`)).json()) as { api_key: string };
      assert.is((await admin(url, "DELETE", `/admin/v1/projects/${project.id}/keys/read-only`)).status, 204);
      assert.is((await admin(url, "DELETE", `/admin/v1/projects/${doomed.id}`)).status, 204);
      kept = { id: project.id, oldKey: project.apiKey, newKey: fresh.api_key, readonlyKey: project.apiKeyReadonly };
      gone = { id: doomed.id, apiKey: doomed.apiKey };
    });
    await served(dir.path, async (url) => {
      const listed = (await (await admin(url, "GET", "/admin/v1/projects")).json()) as { projects: { id: string; name: string }[] };
      assert.equal(
        listed.projects.map((p) => [p.id, p.name]),
        [[kept.id, "Ops renamed"]],
      );
      const checks = (key: string) => fetch(`${url}/api/v3/checks/`, { headers: { "x-api-key": key } });
      assert.is((await checks(kept.newKey)).status, 200);
      assert.is((await checks(kept.oldKey)).status, 401);
      assert.is((await checks(kept.readonlyKey)).status, 401);
      assert.is((await checks(gone.apiKey)).status, 401);
      assert.is((await admin(url, "GET", `/admin/v1/projects/${gone.id}`)).status, 404);
    });
  } finally {
    dir.remove();
  }
});

test.run();
