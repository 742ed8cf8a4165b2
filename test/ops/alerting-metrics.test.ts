// GET /metrics and alerting's second part on a real server with CLOCK=virtual: acknowledged checks,
// checks a down dependency holds, projects a recurring maintenance window mutes now, and the runs that
// outlived max_duration, each counted after known events; `promtool check metrics` on the scrape.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawnSync } from "node:child_process";
import { sample, tempDir } from "../helpers.ts";
import type { ProjectJson } from "../security/real-server.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";
import { haveProgram } from "./extras.ts";

const ADMIN = "admin-token-alerting-metrics-0123456789";
const SCRAPER = "scraper-token-alerting-0123456789";

const FIGURES = ["hcd_checks_acknowledged", "hcd_checks_held", "hcd_projects_in_maintenance", "hcd_run_too_long_total"] as const;

test("/metrics counts acknowledged and held checks, projects in a maintenance window and runs that took too long", async () => {
  const dir = tempDir();
  const server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: ADMIN, METRICS_TOKEN: SCRAPER, CLOCK: "virtual" } });
  try {
    const admin = { authorization: `Bearer ${ADMIN}` };
    const scrape = async () => {
      const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${SCRAPER}` } });
      assert.is(res.status, 200);
      return res.text();
    };
    const figures = (text: string) => Object.fromEntries(FIGURES.map((name) => [name, sample(text, name)]));
    const project: ProjectJson = await createProject(server, ADMIN, { name: "jobs" });
    const quiet: ProjectJson = await createProject(server, ADMIN, { name: "quiet" });
    const api = <T>(method: string, path: string, body?: unknown) => ok<T>(call(server.url, method, path, { key: project.api_key, body }));
    const database = await api<{ uuid: string }>("POST", "/api/v3/checks/", { name: "database", timeout: 60, grace: 60 });
    const child = await api<{ uuid: string }>("POST", "/api/v3/checks/", {
      name: "report",
      timeout: 60,
      grace: 60,
      depends_on: database.uuid,
    });
    const job = await api<{ uuid: string }>("POST", "/api/v3/checks/", { name: "long job", timeout: 3600, grace: 3600, max_duration: 60 });
    for (const uuid of [database.uuid, child.uuid]) await call(server.url, "GET", `/ping/${uuid}`);
    await call(server.url, "GET", `/ping/${job.uuid}/start`);
    // a window of the other project that starts daily at the next full hour, for two hours: off now, on in an hour
    const { now } = await ok<{ now: string }>(call(server.url, "GET", "/admin/v1/clock", { headers: admin }));
    const nextHour = (new Date(now).getUTCHours() + 1) % 24;
    await ok(
      call(server.url, "POST", `/admin/v1/projects/${quiet.id}/maintenance`, {
        headers: admin,
        body: { name: "nightly", schedule: `0 ${nextHour} * * *`, tz: "UTC", duration: 7200 },
      }),
    );

    const before = await scrape();
    assert.equal(figures(before), {
      hcd_checks_acknowledged: 0,
      hcd_checks_held: 0,
      hcd_projects_in_maintenance: 0,
      hcd_run_too_long_total: 0,
    });

    await ok(call(server.url, "POST", "/admin/v1/clock", { headers: admin, body: { advance: 3600 } }));
    const held = await api<{ status: string; held_by: string | null }>("GET", `/api/v3/checks/${child.uuid}`);
    assert.equal(held, { ...held, status: "down", held_by: database.uuid }, "the API's account: down, held by the database");
    assert.is((await api<{ status: string }>("GET", `/api/v3/checks/${job.uuid}`)).status, "down");
    await api("POST", `/api/v3/checks/${child.uuid}/acknowledge`);

    const after = await scrape();
    assert.equal(figures(after), {
      hcd_checks_acknowledged: 1,
      hcd_checks_held: 1,
      hcd_projects_in_maintenance: 1,
      hcd_run_too_long_total: 1,
    });
    assert.is(sample(after, 'hcd_flips_total{to="down"}'), 3, "three checks went down; one of them for a run that took too long");

    // the database comes back: the report is held no more; a ping ends the acknowledged outage
    await call(server.url, "GET", `/ping/${database.uuid}`);
    await call(server.url, "GET", `/ping/${child.uuid}`);
    const released = figures(await scrape());
    assert.is(released.hcd_checks_held, 0);
    assert.is(released.hcd_checks_acknowledged, 0);

    if (haveProgram("promtool", "checking the exposition with promtool")) {
      const checked = spawnSync("promtool", ["check", "metrics"], { input: after, encoding: "utf8" });
      assert.is(checked.status, 0, `promtool check metrics: ${checked.stdout}${checked.stderr}`);
    }
  } finally {
    await stopServer(server);
    dir.remove();
  }
});

test.run();
