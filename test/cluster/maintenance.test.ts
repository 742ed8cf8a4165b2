// Recurring maintenance windows through a cluster, with real processes: one nats-server and two hcd nodes.
// A window added through either node is in that node's admin list at once (the owner's change reaches
// the asking node's directory before the answer), reaches the other node's list, and a delete through
// the other node removes it from both. Each node's /metrics counts a project whose window is on now once
// (a node asks each partition's owner for its figures: every node shows the cluster's).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { haveProgram } from "../ops/extras.ts";
import type { RealServer } from "../security/real-server.ts";
import { call, ok, startServer, stopServer } from "../security/real-server.ts";
import type { ConfiguredNats } from "./nats-trust-setup.ts";
import { startConfiguredNats } from "./nats-trust-setup.ts";

const HAVE_NATS = haveProgram("nats-server", "maintenance windows through a cluster");
const TOKEN = "cluster-maintenance-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const SCRAPER = "cluster-maintenance-scraper-0123456789";

type WindowJson = { id: string; name: string; schedule: string; tz: string; duration: number };

test("a window added through one node is listed by it at once and by the other; a delete through the other removes it", async () => {
  if (!HAVE_NATS) return;
  const dir = tempDir("hcd-cluster-maintenance-");
  let nats: ConfiguredNats | null = null;
  const nodes: RealServer[] = [];
  try {
    nats = await startConfiguredNats({ dir: dir.path, config: "" });
    for (const id of ["a", "b"]) {
      nodes.push(
        await startServer({
          dataDir: "",
          env: {
            DATA_DIR: `${dir.path}/node-${id}`,
            ADMIN_TOKEN: TOKEN,
            NATS_URL: `nats://${nats.address}`,
            NODE_ID: id,
            CLUSTER_PARTITIONS: "4",
            CLUSTER_REPLICAS: "1",
            LOG_FORMAT: "text",
            METRICS_TOKEN: SCRAPER,
          },
        }),
      );
    }
    const [a, b] = nodes;
    const list = async (node: RealServer, projectId: string) =>
      (
        await ok<{ maintenance: WindowJson[] }>(call(node.url, "GET", `/admin/v1/projects/${projectId}/maintenance`, { headers: admin }))
      ).maintenance.map((w) => w.name);
    /** Lists until `expected` shows on `node` (a failure deadline: the other node's directory follows the bucket). */
    const eventually = async (node: RealServer, projectId: string, expected: string[]) => {
      const failAt = Date.now() + 15_000;
      for (;;) {
        const names = await list(node, projectId);
        if (JSON.stringify(names) === JSON.stringify(expected)) return;
        if (Date.now() > failAt) assert.unreachable(`${node.url} lists ${JSON.stringify(names)}, not ${JSON.stringify(expected)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    // several projects: their partitions are spread over the two nodes, so each node asks an owner that is not itself
    for (let i = 0; i < 4; i++) {
      const project = await ok<{ id: string }>(call(a.url, "POST", "/admin/v1/projects", { headers: admin, body: { name: `p${i}` } }));
      await eventually(b, project.id, []); // the project is known to b
      const [asked, other] = i % 2 === 0 ? [a, b] : [b, a];
      const window = await ok<WindowJson>(
        call(asked.url, "POST", `/admin/v1/projects/${project.id}/maintenance`, {
          headers: admin,
          body: { name: `nightly ${i}`, schedule: "0 2 * * *", tz: "Europe/Riga", duration: 3600 },
        }),
      );
      assert.equal(await list(asked, project.id), [`nightly ${i}`], "the asking node lists the window in its answer's wake");
      await eventually(other, project.id, [`nightly ${i}`]);
      const removed = await call(other.url, "DELETE", `/admin/v1/projects/${project.id}/maintenance/${window.id}`, { headers: admin });
      assert.is(removed.status, 204, removed.text);
      assert.equal(await list(other, project.id), [], "the deleting node lists it no more at once");
      await eventually(asked, project.id, []);
    }
    // a window on now (every minute, for an hour): each node's metrics count its project once
    const muted = await ok<{ id: string }>(call(a.url, "POST", "/admin/v1/projects", { headers: admin, body: { name: "in maintenance" } }));
    await ok(
      call(a.url, "POST", `/admin/v1/projects/${muted.id}/maintenance`, {
        headers: admin,
        body: { name: "always", schedule: "* * * * *", tz: "UTC", duration: 3600 },
      }),
    );
    const inMaintenance = async (node: RealServer) => {
      const text = await (await fetch(`${node.url}/metrics`, { headers: { authorization: `Bearer ${SCRAPER}` } })).text();
      const line = text.split("\n").find((l) => l.startsWith("hcd_projects_in_maintenance "));
      return line === undefined ? NaN : Number(line.split(" ")[1]);
    };
    assert.equal([await inMaintenance(a), await inMaintenance(b)], [1, 1]);
  } finally {
    for (const node of nodes) assert.is(await stopServer(node), 0);
    await nats?.stop();
    dir.remove();
  }
});

test.run();
