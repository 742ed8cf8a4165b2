// Two real hcd cluster nodes on one real nats-server (R1, 4 partitions), for the tests of what one node
// does and the other must show, and of restarting a node while the other serves; and a wait for such a
// change with a failure deadline.
import * as assert from "uvu/assert";
import { haveProgram } from "../ops/extras.ts";
import { startNatsCluster } from "../stress/nats-cluster.ts";
import { tempDir } from "../helpers.ts";
import type { RealServer } from "../security/real-server.ts";
import { startServer, stopServer } from "../security/real-server.ts";

/** Nodes a and b (each started with `env` beside the cluster's settings): `nodes[i]` is node i as it runs now. */
export type TwoNodes = {
  readonly nodes: RealServer[];
  /**
   * Stops node `i` (it must exit 0), runs `whileDown` (the other node serving alone), and starts node `i`
   * again on its DATA_DIR with the same settings (a new port); resolves with it.
   */
  restart(i: 0 | 1, whileDown?: () => Promise<void>): Promise<RealServer>;
  /** Stops both nodes (each must exit 0) and nats-server, and removes their directories. */
  stop(): Promise<void>;
};

/** Starts nats-server and nodes a and b; null (skipped loudly) without nats-server. */
export async function startTwoNodes(purpose: string, env: Record<string, string>): Promise<TwoNodes | null> {
  if (!haveProgram("nats-server", purpose)) return null;
  const nats = await startNatsCluster({ size: 1 });
  const dirs = [tempDir(), tempDir()];
  const nodes: RealServer[] = [];
  const start = (i: number) =>
    startServer({
      dataDir: dirs[i].path,
      env: { ...env, NATS_URL: nats.urls.join(","), NODE_ID: `node-${i}`, CLUSTER_PARTITIONS: "4", CLUSTER_REPLICAS: "1" },
    });
  const stop = async () => {
    try {
      for (const node of nodes) if (node.alive()) assert.is(await stopServer(node), 0, node.output());
    } finally {
      await nats.close();
      for (const dir of dirs) dir.remove();
    }
  };
  try {
    for (const i of [0, 1]) nodes.push(await start(i));
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    nodes,
    async restart(i, whileDown) {
      assert.is(await stopServer(nodes[i]), 0, nodes[i].output());
      await whileDown?.();
      nodes[i] = await start(i);
      return nodes[i];
    },
    stop,
  };
}

/** Runs `run` with nodes a and b (each started with `env` beside the cluster's settings), then stops them; skips loudly without nats-server. */
export async function withTwoNodes(
  purpose: string,
  env: Record<string, string>,
  run: (a: RealServer, b: RealServer) => Promise<void>,
): Promise<void> {
  const two = await startTwoNodes(purpose, env);
  if (two === null) return;
  try {
    await run(two.nodes[0], two.nodes[1]);
  } finally {
    await two.stop();
  }
}
