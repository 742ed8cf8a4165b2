// Status pages and project management through a cluster, with real processes: one nats-server and two hcd
// nodes. A page added through one node is served by it at once and by the other; a key created anew through
// one node is refused as the old one by the other; a project deleted through one node is gone from both.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { tempDir } from "../helpers.ts";
import { haveProgram } from "../ops/extras.ts";
import type { RealServer } from "../security/real-server.ts";
import { call, ok, startServer, stopServer } from "../security/real-server.ts";
import type { ConfiguredNats } from "./nats-trust-setup.ts";
import { startConfiguredNats } from "./nats-trust-setup.ts";

const HAVE_NATS = haveProgram("nats-server", "status pages through a cluster");
const TOKEN = "cluster-status-pages-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };

/** Asks until `answer` gives `expected` (a failure deadline: the other node's directory follows the bucket). */
async function eventually<T>(what: string, answer: () => Promise<T>, expected: T): Promise<void> {
  const failAt = Date.now() + 15_000;
  for (;;) {
    const got = await answer();
    if (JSON.stringify(got) === JSON.stringify(expected)) return;
    if (Date.now() > failAt) assert.unreachable(`${what}: ${JSON.stringify(got)}, not ${JSON.stringify(expected)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test("a page through one node is served by both; a new key and a deleted project reach the other node", async () => {
  if (!HAVE_NATS) return;
  const dir = tempDir("hcd-cluster-status-");
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
          },
        }),
      );
    }
    const [a, b] = nodes;
    const page = async (node: RealServer, slug: string) => {
      const res = await fetch(`${node.url}/status/${slug}.json`);
      return res.status === 200 ? ((await res.json()) as { checks: { name: string }[] }).checks.map((c) => c.name) : res.status;
    };
    const status = async (node: RealServer, key: string) =>
      (await fetch(`${node.url}/api/v3/checks/`, { headers: { "x-api-key": key } })).status;
    for (let i = 0; i < 4; i++) {
      // several projects: their partitions are spread over the two nodes
      const [asked, other] = i % 2 === 0 ? [a, b] : [b, a];
      const project = await ok<{ id: string; api_key: string }>(
        call(asked.url, "POST", "/admin/v1/projects", { headers: admin, body: { name: `p${i}` } }),
      );
      const check = await ok<{ uuid: string }>(
        call(asked.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: `job ${i}` } }),
      );
      await ok(
        call(asked.url, "POST", `/admin/v1/projects/${project.id}/status-pages`, {
          headers: admin,
          body: { slug: `page-${i}`, title: "T", checks: [check.uuid] },
        }),
      );
      assert.equal(await page(asked, `page-${i}`), [`job ${i}`], "the asking node serves the page in its answer's wake");
      await eventually("the other node's page", () => page(other, `page-${i}`), [`job ${i}`]);
      const dup = await call(other.url, "POST", `/admin/v1/projects/${project.id}/status-pages`, {
        headers: admin,
        body: { slug: `page-${i}`, title: "T", checks: [check.uuid] },
      });
      assert.is(dup.status, 409, "a slug is taken on every node");

      const fresh = await ok<{ api_key: string }>(
        call(other.url, "POST", `/admin/v1/projects/${project.id}/keys/read-write`, { headers: admin }),
      );
      assert.is(await status(other, project.api_key), 401);
      await eventually("the old key on the asking node", () => status(asked, project.api_key), 401);
      await eventually("the new key on the asking node", () => status(asked, fresh.api_key), 200);

      const deleted = await call(asked.url, "DELETE", `/admin/v1/projects/${project.id}`, { headers: admin });
      assert.is(deleted.status, 204, deleted.text);
      assert.is(await page(asked, `page-${i}`), 404);
      await eventually("the deleted project's page on the other node", () => page(other, `page-${i}`), 404);
      await eventually("the deleted project's key on the other node", () => status(other, fresh.api_key), 401);
      await eventually(
        "the deleted project on the other node",
        async () => (await call(other.url, "GET", `/admin/v1/projects/${project.id}`, { headers: admin })).status,
        404,
      );
    }
  } finally {
    for (const node of nodes) assert.is(await stopServer(node), 0);
    await nats?.stop();
    dir.remove();
  }
});

test.run();
