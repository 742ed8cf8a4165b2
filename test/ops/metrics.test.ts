// GET /metrics on a real server: its tokens, what it counts (pings, flips, notifications, API requests,
// commits) after known traffic, and Prometheus's own `promtool check metrics` on a real scrape.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawnSync } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { sample, tempDir } from "../helpers.ts";
import { startServer, stopServer } from "../security/real-server.ts";
import { haveProgram } from "./extras.ts";
import { pingKindOf, routeOf } from "../../http/metrics.ts";

const ADMIN = "admin-token-metrics-test-0123456789";
const SCRAPER = "scraper-token-0123456789";

test("/metrics counts pings, flips, notifications and API requests, and passes promtool", async () => {
  const hooks: string[] = [];
  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      hooks.push(req.url ?? "");
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const dir = tempDir();
  const server = await startServer({
    dataDir: dir.path,
    env: { ADMIN_TOKEN: ADMIN, METRICS_TOKEN: SCRAPER, INTEGRATIONS_ALLOW_PRIVATE_IPS: "true" },
  });
  try {
    const admin = { authorization: `Bearer ${ADMIN}` };
    const project = (await (
      await fetch(`${server.url}/admin/v1/projects`, { method: "POST", headers: admin, body: JSON.stringify({ name: "m" }) })
    ).json()) as Record<string, string>;
    const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/down`;
    assert.is(
      (
        await fetch(`${server.url}/admin/v1/projects/${project.id}/channels`, {
          method: "POST",
          headers: admin,
          body: JSON.stringify({ kind: "webhook", value: hook }),
        })
      ).status,
      201,
    );
    const created = await fetch(`${server.url}/api/v3/checks/`, {
      method: "POST",
      headers: { "x-api-key": project.api_key },
      body: JSON.stringify({ name: "c", channels: "*" }),
    });
    assert.is(created.status, 201);
    const check = (await created.json()) as Record<string, string>;
    const ping = async (suffix: string, status: number) => assert.is((await fetch(`${server.url}/ping/${suffix}`)).status, status);
    for (let i = 0; i < 3; i++) await ping(check.uuid, 200);
    await ping(`${check.uuid}/start`, 200);
    await ping("00000000-0000-4000-8000-000000000000", 404);
    await ping(`${check.uuid}/fail`, 200); // up → down: one webhook notification

    // refused without a token, with a wrong one, and with a project key
    assert.is((await fetch(`${server.url}/metrics`)).status, 401);
    assert.is((await fetch(`${server.url}/metrics`, { headers: { authorization: "Bearer wrong" } })).status, 401);
    assert.is((await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${project.api_key}` } })).status, 401);

    // the notification is counted once it is delivered: scrape until it shows (the receiver heard it first)
    let text = "";
    for (let tries = 0; tries < 100; tries++) {
      const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${SCRAPER}` } });
      assert.is(res.status, 200);
      assert.is(res.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
      text = await res.text();
      if (sample(text, 'hcd_notifications_total{kind="webhook",result="sent"}') === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(hooks, ["/down"]);
    assert.is(sample(text, 'hcd_notifications_total{kind="webhook",result="sent"}'), 1);
    assert.is(sample(text, 'hcd_pings_total{kind="success",outcome="ok"}'), 3);
    assert.is(sample(text, 'hcd_pings_total{kind="start",outcome="ok"}'), 1);
    assert.is(sample(text, 'hcd_pings_total{kind="fail",outcome="ok"}'), 1);
    assert.is(sample(text, 'hcd_pings_total{kind="success",outcome="not_found"}'), 1);
    assert.is(sample(text, "hcd_ping_duration_seconds_count"), 6);
    assert.is(sample(text, 'hcd_flips_total{to="up"}'), 1);
    assert.is(sample(text, 'hcd_flips_total{to="down"}'), 1);
    assert.is(sample(text, 'hcd_checks{status="down"}'), 1);
    assert.is(sample(text, 'hcd_checks{status="up"}'), 0);
    assert.is(sample(text, "hcd_outbox_pending"), 0);
    for (const failures of [
      "hcd_commit_failures_total",
      "hcd_checkpoint_failures_total",
      "hcd_write_probe_failures_total",
      "hcd_rebuild_failures_total",
    ]) {
      assert.is(sample(text, failures), 0, failures);
    }
    assert.is(sample(text, 'hcd_http_requests_total{route="/api/v3/checks/",status="201"}'), 1);
    assert.is(sample(text, 'hcd_http_requests_total{route="/admin/v1/projects/:id/channels",status="201"}'), 1);
    // the 5 recorded pings reached their shard in 5 groups or fewer (hand-offs or commits), the 404 in none
    const pingsCommitted = sample(text, "hcd_commit_group_size_sum");
    assert.is(pingsCommitted, 5);
    assert.ok((sample(text, 'hcd_commit_duration_seconds_bucket{le="+Inf"}') ?? 0) >= 1);
    assert.ok(sample(text, "process_cpu_user_seconds_total") !== undefined, "process metrics");
    assert.ok(sample(text, "nodejs_heap_size_used_bytes") !== undefined, "Node.js metrics");
    // each shard thread's own heap (the nodejs_heap_* figures are the main thread's)
    for (const shard of ["0", "1"]) {
      const used = sample(text, `hcd_shard_heap_bytes{shard="${shard}",kind="used"}`) ?? 0;
      const total = sample(text, `hcd_shard_heap_bytes{shard="${shard}",kind="total"}`) ?? 0;
      assert.ok(used > 1_000_000 && used <= total, `shard ${shard}'s heap: ${used} used of ${total}`);
    }
    assert.not.ok(text.includes(project.api_key) || text.includes(ADMIN), "no secret in the exposition");

    if (haveProgram("promtool", "checking the exposition with promtool")) {
      const checked = spawnSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" });
      assert.is(checked.status, 0, `promtool check metrics: ${checked.stdout}${checked.stderr}`);
    }
  } finally {
    await stopServer(server);
    receiver.close();
    dir.remove();
  }
});

test("route labels replace ids, numbers and unknown words, so untrusted paths cannot grow the series", () => {
  assert.is(routeOf("/api/v3/checks/"), "/api/v3/checks/");
  assert.is(routeOf("/api/v3/checks/6421613d-5093-47dc-94df-68ab592a0ac3/pings/12/body"), "/api/v3/checks/:id/pings/:n/body");
  assert.is(
    routeOf("/projects/6421613d-5093-47dc-94df-68ab592a0ac3/metrics/AbCdEf0123456789AbCdEf0123456789"),
    "/projects/:id/metrics/:key",
  );
  assert.is(routeOf("/wp-admin/setup.php"), "/:key/:key");
  assert.is(routeOf("/a/b/c/d/e/f/g/h"), "other");
  const seen = new Set(Array.from({ length: 1000 }, (_, i) => routeOf(`/api/v3/word${i}/${i}x`)));
  assert.equal([...seen], ["/api/v3/:key/:key"]);
});

test("ping kinds from the URL: start, fail, log, an exit status, else success", () => {
  const kinds = ["success", "start", "fail", "log"];
  const kind = (path: string) => kinds[pingKindOf(path)];
  assert.is(kind("/ping/6421613d-5093-47dc-94df-68ab592a0ac3"), "success");
  assert.is(kind("/ping/6421613d-5093-47dc-94df-68ab592a0ac3/start"), "start");
  assert.is(kind("/ping/key/slug/fail"), "fail");
  assert.is(kind("/ping/key/slug/log"), "log");
  assert.is(kind("/ping/key/slug/0"), "success");
  assert.is(kind("/ping/key/slug/3"), "fail");
  assert.is(kind("/ping/key/backup"), "success");
});

test.run();
