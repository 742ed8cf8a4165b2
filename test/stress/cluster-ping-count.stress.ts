// A cluster node counts every acknowledged ping exactly once: pings sent many at a time (so that a
// partition applies them as batches), each with its own rid, all acknowledged; afterwards the check's
// n_pings is the number sent and its log holds each rid once. One nats-server and one node, no failure:
// what is counted twice here is counted twice by the batch path itself, not by a retry.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { randomUUID } from "node:crypto";
import { haveProgram } from "../ops/extras.ts";
import { tempDir } from "../helpers.ts";
import type { RealServer } from "../security/real-server.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";
import { startNatsCluster } from "./nats-cluster.ts";

const HAVE_NATS = haveProgram("nats-server", "a cluster node's ping count");
const TOKEN = "cluster-ping-count-admin-token-012345";
const PINGS = 600,
  AT_ONCE = 60;

test("a cluster node counts each of many concurrent pings once", async () => {
  if (!HAVE_NATS) return;
  const nats = await startNatsCluster({ size: 1 });
  const dir = tempDir("hcd-cluster-count-");
  let server: RealServer | null = null;
  try {
    server = await startServer({
      dataDir: dir.path,
      env: {
        NATS_URL: nats.urls.join(","),
        NODE_ID: "a",
        ADMIN_TOKEN: TOKEN,
        CLUSTER_PARTITIONS: "2",
        CLUSTER_REPLICAS: "1",
        API_RATE_LIMIT: "0",
      },
    });
    const url = server.url;
    const project = await createProject(server, TOKEN, { name: "count", ping_log_limit: 1000 });
    const { uuid } = await ok<{ uuid: string }>(call(url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "c" } }));
    const sent: string[] = [];
    const statuses: number[] = [];
    for (let round = 0; round < PINGS / AT_ONCE; round++) {
      const rids = Array.from({ length: AT_ONCE }, () => randomUUID());
      sent.push(...rids);
      statuses.push(...(await Promise.all(rids.map((rid) => call(url, "GET", `/ping/${uuid}?rid=${rid}`).then((a) => a.status)))));
    }
    assert.equal(
      statuses.filter((s) => s !== 200),
      [],
      "every ping acknowledged",
    );
    const check = await ok<{ n_pings: number }>(call(url, "GET", `/api/v3/checks/${uuid}`, { key: project.api_key }));
    assert.is(check.n_pings, PINGS, "n_pings counts each ping once");
    const { pings } = await ok<{ pings: { rid: string }[] }>(call(url, "GET", `/api/v3/checks/${uuid}/pings/`, { key: project.api_key }));
    assert.equal(pings.map((p) => p.rid).sort(), [...sent].sort(), "the log holds each rid once");
  } finally {
    if (server) await stopServer(server);
    await nats.close();
    dir.remove();
  }
});

test.run();
