// The alertmanager kind (CONTRACT "Alerting, third part") against a real Prometheus Alertmanager and a real
// hcd process: a check that goes down shows in Alertmanager's API as an active alert (alertname CheckDown,
// the check's labels and the integration's, the reason as annotations, generatorURL the check's link), and
// once the check is up again the alert is resolved (Alertmanager's API lists resolved alerts no more).
// Every wait ends on a positive marker (the alert listed, then not), never on a timing.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { uniqueKeyOf } from "../../host/unique-key.ts";
import { tempDir } from "../helpers.ts";
import { haveProgram } from "./extras.ts";
import type { RealServer } from "../security/real-server.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";
import type { Alertmanager, AmAlert } from "./alertmanager-rig.ts";
import { ALERTMANAGER, startAlertmanager } from "./alertmanager-rig.ts";

const HAVE = haveProgram(ALERTMANAGER, "the alertmanager kind against a real Alertmanager");
const TOKEN = "alertmanager-kind-admin-token-0123456789";
const SITE = "https://hc.example.org";

test("a check down is a firing alert in a real Alertmanager, with its labels, annotations and link; up resolves it", async () => {
  if (!HAVE) return;
  const dir = tempDir();
  let server: RealServer | null = null;
  let am: Alertmanager | null = null;
  try {
    // the alerts go nowhere from Alertmanager: the test reads them from its API
    am = await startAlertmanager(dir.path, "route:\n  receiver: none\nreceivers:\n  - name: none\n");
    server = await startServer({
      dataDir: `${dir.path}/hcd`,
      env: { ADMIN_TOKEN: TOKEN, INTEGRATIONS_ALLOW_PRIVATE_IPS: "true", SITE_ROOT: SITE },
    });
    const url = server.url;
    const project = await createProject(server, TOKEN, { name: "Ops" });
    await ok(
      call(url, "POST", `/admin/v1/projects/${project.id}/channels`, {
        headers: { authorization: `Bearer ${TOKEN}` },
        body: { kind: "alertmanager", name: "Alertmanager", value: { url: am.url, labels: "team=ops" } },
      }),
    );
    const check = await ok<{ uuid: string }>(
      call(url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "backup", timeout: 3600, channels: "*" } }),
    );
    const key = uniqueKeyOf(check.uuid);
    const mine = [`check_id="${key}"`];
    const listed = async (want: (alerts: AmAlert[]) => boolean, what: string): Promise<AmAlert[]> => {
      const failAt = Date.now() + 30_000;
      for (;;) {
        const alerts = await am!.alerts(mine);
        if (want(alerts)) return alerts;
        if (Date.now() > failAt) assert.unreachable(`${what}: ${JSON.stringify(alerts)}\n${am!.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    assert.is((await call(url, "POST", `/ping/${check.uuid}/fail`)).status, 200);
    const [alert] = await listed((alerts) => alerts.length === 1, "the check's alert");
    assert.is(alert.status.state, "active");
    assert.equal(alert.labels, {
      alertname: "CheckDown",
      check: "backup",
      check_id: key,
      project: "Ops",
      severity: "critical",
      team: "ops",
    });
    assert.is(alert.annotations.summary, "backup is DOWN");
    assert.match(alert.annotations.description, "received a failure signal");
    assert.is(alert.generatorURL, `${SITE}/cloaked/${key}/`, "generatorURL: the check's link");
    assert.ok(Date.parse(alert.endsAt) > Date.now() + 300 * 86_400_000, "firing until hcd resolves it");
    assert.equal((await am.alerts(["alertname=CheckDown", "team=ops"])).length, 1, "routable by its labels");

    assert.is((await call(url, "POST", `/ping/${check.uuid}`)).status, 200);
    await listed((alerts) => alerts.length === 0, "the alert resolved");
  } finally {
    await am?.kill();
    if (server !== null) assert.is(await stopServer(server), 0);
    dir.remove();
  }
});

test.run();
