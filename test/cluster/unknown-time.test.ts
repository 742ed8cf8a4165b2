// A partition without an owner is unknown time (CONTRACT "Alerting, third part"), with real processes: one
// nats-server and hcd nodes. Node a serves every partition; it is killed (SIGKILL: no handover), and node
// b, started later, takes them over: the stretch from a's last sign of life to b's takeover is stored in the
// cluster's bucket before b serves, so b's status page shows it as unknown (JSON and words), and /metrics
// counts it. Bounds come from the order of events, never from a timing.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { haveProgram } from "../ops/extras.ts";
import type { RealServer } from "../security/real-server.ts";
import { call, ok, startServer, stopServer } from "../security/real-server.ts";
import type { ConfiguredNats } from "./nats-trust-setup.ts";
import { startConfiguredNats } from "./nats-trust-setup.ts";

const HAVE_NATS = haveProgram("nats-server", "unknown time through a cluster");
const TOKEN = "cluster-unknown-time-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
type StatusJson = { checks: { unknown_90d: number }[]; unknown: { from: string; to: string }[] };
const seconds = (iso: string) => Date.parse(iso) / 1000;

test("a killed node's partitions, taken over by another, show the time without an owner as unknown", async () => {
  if (!HAVE_NATS) return;
  const dir = tempDir("hcd-cluster-unknown-");
  let nats: ConfiguredNats | null = null;
  const nodes: RealServer[] = [];
  const start = async (id: string) => {
    const node = await startServer({
      dataDir: "",
      env: {
        DATA_DIR: `${dir.path}/node-${id}`,
        ADMIN_TOKEN: TOKEN,
        NATS_URL: `nats://${nats!.address}`,
        NODE_ID: id,
        CLUSTER_PARTITIONS: "2",
        CLUSTER_REPLICAS: "1",
        LOG_FORMAT: "text",
      },
    });
    nodes.push(node);
    return node;
  };
  try {
    nats = await startConfiguredNats({ dir: dir.path, config: "" });
    const a = await start("a");
    const project = await ok<{ id: string; api_key: string }>(
      call(a.url, "POST", "/admin/v1/projects", { headers: admin, body: { name: "ops" } }),
    );
    const check = await ok<{ uuid: string }>(
      call(a.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "job", timeout: 86_400 } }),
    );
    assert.is((await call(a.url, "GET", `/ping/${check.uuid}`)).status, 200);
    await ok(
      call(a.url, "POST", `/admin/v1/projects/${project.id}/status-pages`, {
        headers: admin,
        body: { slug: "ops", title: "Ops", checks: [check.uuid] },
      }),
    );
    assert.equal((await ok<StatusJson>(call(a.url, "GET", "/status/ops.json"))).unknown, []);
    a.child.kill("SIGKILL");
    await a.exited;
    const killedAt = Date.now();
    const b = await start("b");
    const startingAt = killedAt; // b starts after the kill: its takeover comes later still
    // b serves the project once it took the partition over (its lease first lapses: up to 15 s)
    const failAt = Date.now() + 60_000;
    let shown: StatusJson | null = null;
    while (shown === null) {
      const res = await call(b.url, "GET", "/status/ops.json");
      if (res.status === 200) shown = JSON.parse(res.text) as StatusJson;
      else if (Date.now() > failAt) assert.unreachable(`b never served the page: ${res.status} ${res.text}`);
      else await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.is(shown.unknown.length, 1, JSON.stringify(shown) + b.output());
    const [stretch] = shown.unknown;
    assert.ok(seconds(stretch.from) <= Math.floor(killedAt / 1000), `${stretch.from}: at or before a's last sign of life`);
    assert.ok(seconds(stretch.to) >= Math.floor(startingAt / 1000), `${stretch.to}: at or after the kill`);
    assert.ok(shown.checks[0].unknown_90d > 0);
    const page = await fetch(`${b.url}/status/ops`).then((res) => res.text());
    assert.match(page, "<h2>Unknown time</h2>");
    const metrics = await call(b.url, "GET", "/metrics", { headers: admin });
    assert.match(
      metrics.text,
      /^hcd_unknown_time_stretches [12]$/m,
      "one stretch a partition at most, merged across them when they overlap",
    );
  } finally {
    for (const node of nodes) await stopServer(node);
    await nats?.stop();
    dir.remove();
  }
});

test.run();
