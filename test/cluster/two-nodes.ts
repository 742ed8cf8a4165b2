// Two real hcd cluster nodes on one real nats-server (R1, 4 partitions), for the tests of what one node
// does and the other must show; and a wait for such a change with a failure deadline.
import * as assert from "uvu/assert";
import { haveProgram } from "../ops/extras.ts";
import { startNatsCluster } from "../stress/nats-cluster.ts";
import { tempDir } from "../helpers.ts";
import type { RealServer } from "../security/real-server.ts";
import { startServer, stopServer } from "../security/real-server.ts";

/** Runs `run` with nodes a and b (each started with `env` beside the cluster's settings), then stops them; skips loudly without nats-server. */
export async function withTwoNodes(
  purpose: string,
  env: Record<string, string>,
  run: (a: RealServer, b: RealServer) => Promise<void>,
): Promise<void> {
  if (!haveProgram("nats-server", purpose)) return;
  const nats = await startNatsCluster({ size: 1 });
  const dirs = [tempDir(), tempDir()];
  const nodes: RealServer[] = [];
  try {
    for (const [i, dir] of dirs.entries()) {
      nodes.push(
        await startServer({
          dataDir: dir.path,
          env: { ...env, NATS_URL: nats.urls.join(","), NODE_ID: `node-${i}`, CLUSTER_PARTITIONS: "4", CLUSTER_REPLICAS: "1" },
        }),
      );
    }
    await run(nodes[0], nodes[1]);
  } finally {
    for (const node of nodes) assert.is(await stopServer(node), 0, node.output());
    await nats.close();
    for (const dir of dirs) dir.remove();
  }
}
