// The audit log in cluster mode, with real processes (one nats-server, two hcd nodes): a change is recorded
// in the DATA_DIR of the node that received it (README "Audit log": the log is not replicated), so each
// node lists the changes it received, and the two lists together are the project's whole log.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { haveProgram } from "../ops/extras.ts";
import type { RealServer } from "../security/real-server.ts";
import { call, ok, startServer, stopServer } from "../security/real-server.ts";
import type { ConfiguredNats } from "./nats-trust-setup.ts";
import { startConfiguredNats } from "./nats-trust-setup.ts";

const HAVE_NATS = haveProgram("nats-server", "the audit log through a cluster");
const TOKEN = "cluster-audit-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };

test("each node records the changes it received, with their actors", async () => {
  if (!HAVE_NATS) return;
  const dir = tempDir("hcd-cluster-audit-");
  let nats: ConfiguredNats | null = null;
  const nodes: RealServer[] = [];
  try {
    nats = await startConfiguredNats({ dir: dir.path, config: "" });
    for (const id of ["a", "b"]) {
      nodes.push(await startServer({ dataDir: "", env: {
        DATA_DIR: `${dir.path}/node-${id}`, ADMIN_TOKEN: TOKEN, NATS_URL: `nats://${nats.address}`, NODE_ID: id,
        CLUSTER_PARTITIONS: "4", CLUSTER_REPLICAS: "1", LOG_FORMAT: "text",
      } }));
    }
    const [a, b] = nodes;
    const project = await ok<{ id: string; api_key: string }>(call(a.url, "POST", "/admin/v1/projects", { headers: admin, body: { name: "Ops" } }));
    // b learns of the project from the replicated directory: a create through it is refused (401) until then
    const failAt = Date.now() + 15_000; // a failure deadline
    let created = await call(b.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "job" } });
    while (created.status === 401 && Date.now() < failAt) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      created = await call(b.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "job" } });
    }
    assert.is(created.status, 201, created.text);
    const { uuid } = JSON.parse(created.text) as { uuid: string };
    await ok(call(a.url, "POST", `/api/v3/checks/${uuid}/pause`, { key: project.api_key }));

    const lines = async (node: RealServer) => (await ok<{ events: { actor: string; action: string; target: string }[] }>(
      call(node.url, "GET", `/admin/v1/projects/${project.id}/audit`, { headers: admin }))).events.map((e) => `${e.actor} | ${e.action} | ${e.target}`);
    assert.equal(await lines(a), [
      `API key (read-write) | check.paused | check "job" ${uuid}`,
      `admin token | project.created | project "Ops" ${project.id}`,
    ]);
    assert.equal(await lines(b), [`API key (read-write) | check.created | check "job" ${uuid}`]);
  } finally {
    for (const node of nodes) assert.is(await stopServer(node), 0);
    await nats?.stop();
    dir.remove();
  }
});

test.run();
