// The Alertmanager receiver (CONTRACT "Alerting, third part") against a real Prometheus Alertmanager and a
// real hcd process (CLOCK=virtual): an alert posted to Alertmanager as Prometheus posts it is routed to
// hcd's /api/alertmanager/<ping key> by a one-line webhook receiver, and pings the check its labels name:
// the always-firing Watchdog keeps its check up and, once Alertmanager is gone, the check goes down (a dead
// man's switch); an alert labelled hcd_signal=fail makes its check go down while firing and up once
// resolved. Every wait ends on a positive marker (the check's pings counted), never on a timing.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { haveProgram } from "./extras.ts";
import type { RealServer } from "../security/real-server.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";
import type { Alertmanager } from "./alertmanager-rig.ts";
import { ALERTMANAGER, startAlertmanager } from "./alertmanager-rig.ts";

const HAVE = haveProgram(ALERTMANAGER, "the Alertmanager receiver against a real Alertmanager");
const TOKEN = "alertmanager-receiver-admin-token-0123456789";
type CheckJson = { name: string; slug: string; status: string; n_pings: number; uuid: string };

test("a real Alertmanager's Watchdog keeps its check up, and its silence makes it go down; hcd_signal=fail goes down and up", async () => {
  if (!HAVE) return;
  const dir = tempDir();
  let server: RealServer | null = null;
  let am: Alertmanager | null = null;
  try {
    server = await startServer({ dataDir: `${dir.path}/hcd`, env: { ADMIN_TOKEN: TOKEN, CLOCK: "virtual" } });
    const project = await createProject(server, TOKEN, { name: "Prometheus" });
    const url = server.url;
    // the one line of Alertmanager configuration: the receiver's URL
    am = await startAlertmanager(
      dir.path,
      `route:
  receiver: hcd
  group_by: ['alertname']
  group_wait: 0s
  group_interval: 1s
  repeat_interval: 1s
receivers:
  - name: hcd
    webhook_configs:
      - url: ${url}/api/alertmanager/${project.ping_key}?create=1
        send_resolved: true
`,
    );
    const checkNamed = async (slug: string): Promise<CheckJson | null> => {
      const list = await ok<{ checks: CheckJson[] }>(call(url, "GET", `/api/v3/checks/?slug=${slug}`, { key: project.api_key }));
      return list.checks[0] ?? null;
    };
    /** Waits until the check `slug` has more than `pings` pings and the status `status` (Alertmanager delivers in its own time). */
    const pinged = async (slug: string, pings: number, status: string): Promise<CheckJson> => {
      const failAt = Date.now() + 30_000;
      for (;;) {
        const check = await checkNamed(slug);
        if (check !== null && check.n_pings > pings && check.status === status) return check;
        if (Date.now() > failAt)
          assert.unreachable(`${slug}: ${JSON.stringify(check)}, not ${status} after ${pings} pings\n${am?.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const far = new Date(Date.now() + 3_600_000).toISOString();
    await am.post([{ labels: { alertname: "Watchdog", severity: "none" }, annotations: { summary: "always firing" }, endsAt: far }]);
    const watchdog = await pinged("watchdog", 0, "up");
    assert.is(watchdog.name, "watchdog", "created by the first delivery (?create=1), named by the alert's name");
    const pings = await ok<{ pings: { type: string; method: string; body?: string }[] }>(
      call(url, "GET", `/api/v3/checks/${watchdog.uuid}/pings/`, { key: project.api_key }),
    );
    assert.equal([pings.pings[0].type, pings.pings[0].method], ["success", "POST"]);
    await pinged("watchdog", watchdog.n_pings, "up"); // Alertmanager repeats it: each repeat is a ping

    await am.post([{ labels: { alertname: "DiskFull", hcd_signal: "fail", instance: "db1" }, endsAt: far }]);
    const full = await pinged("diskfull", 0, "down");
    await am.post([{ labels: { alertname: "DiskFull", hcd_signal: "fail", instance: "db1" }, endsAt: new Date().toISOString() }]); // resolved
    await pinged("diskfull", full.n_pings, "up");

    // Alertmanager is gone: the Watchdog's pings stop, and its check goes down once its period and grace have passed
    await ok(call(url, "POST", `/api/v3/checks/${watchdog.uuid}`, { key: project.api_key, body: { timeout: 60, grace: 60 } }));
    const last = await pinged("watchdog", 0, "up");
    await am.kill();
    am = null;
    await ok(call(url, "POST", "/admin/v1/clock", { headers: { authorization: `Bearer ${TOKEN}` }, body: { advance: 121 } }));
    const silent = await checkNamed("watchdog");
    assert.is(silent?.status, "down", "the dead man's switch: no Watchdog, the check is down");
    assert.ok((silent?.n_pings ?? 0) >= last.n_pings);
  } finally {
    await am?.kill();
    if (server !== null) assert.is(await stopServer(server), 0);
    dir.remove();
  }
});

test.run();
