// hcd's own time away shown as unknown (CONTRACT "Alerting, third part"), on a real server process with the
// real clock: a stop and a start on the same DATA_DIR record the stretch in between, durably; the status
// page (HTML and JSON), the check's downtime table and /metrics show it as unknown and say so in words,
// while the flips and the check's API answer stay as they were. Bounds come from the order of events (the
// stretch covers the time between the stop's end and the start's beginning), never from a timing.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { session } from "../dashboard/form-session.ts";
import type { RealServer } from "../security/real-server.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";

const TOKEN = "unknown-time-admin-token-0123456789abcdef";
const admin = { authorization: `Bearer ${TOKEN}` };
type StatusJson = { checks: { name: string; uptime_90d: number; unknown_90d: number }[]; unknown: { from: string; to: string }[] };
const seconds = (iso: string) => Date.parse(iso) / 1000;

test("a stop and a start record the time between as unknown, shown in words on the status page, the downtime table and /metrics", async () => {
  const dir = tempDir();
  let server: RealServer = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
  try {
    const project = await createProject(server, TOKEN, { name: "Ops" });
    const check = await ok<{ uuid: string }>(
      call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "backup", timeout: 86_400, grace: 3600 } }),
    );
    assert.is((await call(server.url, "GET", `/ping/${check.uuid}`)).status, 200);
    await ok(
      call(server.url, "POST", `/admin/v1/projects/${project.id}/status-pages`, {
        headers: admin,
        body: { slug: "ops", title: "Ops", checks: [check.uuid] },
      }),
    );
    const before = await ok<StatusJson>(call(server.url, "GET", "/status/ops.json"));
    assert.equal(before.unknown, []);
    const flipsBefore = await ok(call(server.url, "GET", `/api/v3/checks/${check.uuid}/flips/`, { key: project.api_key }));
    assert.is(await stopServer(server), 0);
    const stoppedAt = Date.now();
    while (Date.now() < stoppedAt + 1_500) await new Promise((resolve) => setTimeout(resolve, 100)); // a stretch of a second and more
    const startingAt = Date.now();
    server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });

    const after = await ok<StatusJson>(call(server.url, "GET", "/status/ops.json"));
    assert.is(after.unknown.length, 1, JSON.stringify(after));
    const [stretch] = after.unknown;
    assert.ok(seconds(stretch.from) <= Math.floor(stoppedAt / 1000), `${stretch.from} is before the stop ended`);
    assert.ok(seconds(stretch.to) >= Math.floor(startingAt / 1000), `${stretch.to} is after the start began`);
    const gap = seconds(stretch.to) - seconds(stretch.from);
    // the check's share of the stretch: the part after its first ping (before it, it was new: not watched)
    // and surely all between the stop and the start; the instants are shown to the second, lengths rounded
    const unknownS = after.checks[0].unknown_90d;
    assert.ok(
      unknownS <= gap + 1 && unknownS >= Math.floor((startingAt - stoppedAt) / 1000) - 1,
      `the check's unknown time ${unknownS} s lies between the stop and start's ${(startingAt - stoppedAt) / 1000} s and the stretch's ${gap} s`,
    );
    assert.is(after.checks[0].uptime_90d, 100, "unknown time is not downtime");
    const page = await fetch(`${server.url}/status/ops`).then((res) => res.text());
    assert.match(page, "<h2>Unknown time</h2>");
    assert.match(page, "The monitor itself was not watching in these stretches");
    assert.match(page, /Unknown for \d+ seconds?: the monitor was not watching then, so that time counts as neither up nor down\./);

    // the flips and the check's answer are what they were
    assert.equal(await ok(call(server.url, "GET", `/api/v3/checks/${check.uuid}/flips/`, { key: project.api_key })), flipsBefore);

    const metrics = await call(server.url, "GET", "/metrics", { headers: admin });
    assert.match(metrics.text, /^hcd_unknown_time_stretches 1$/m);
    const reported = Number(/^hcd_unknown_time_seconds (\d+)$/m.exec(metrics.text)?.[1]);
    assert.ok(reported >= gap - 1 && reported <= gap + 1, `hcd_unknown_time_seconds ${reported}, the stretch ${gap}`);

    const dashboard = await session(server.url, project.api_key);
    const checkPage = (await dashboard.page(`/checks/${check.uuid}`)).text;
    assert.match(checkPage, /<th scope="col">Unknown<\/th>/);
    assert.match(checkPage, /<td class="unknown">\d+ seconds?<\/td>/);
    assert.match(checkPage, "Unknown: time hcd was not watching this check");

    // durable: another restart keeps the first stretch and adds the next
    assert.is(await stopServer(server), 0);
    server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
    const again = await ok<StatusJson>(call(server.url, "GET", "/status/ops.json"));
    assert.is(again.unknown.length, 2, JSON.stringify(again.unknown) + server.output());
    assert.equal(again.unknown[1], stretch, "newest first: the first stretch is kept as it was");
  } finally {
    await stopServer(server);
    dir.remove();
  }
});

test.run();
