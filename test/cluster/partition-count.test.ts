// The partition count on a real nats-server: the first node's count is kept and every later node takes
// it; a node configured with another count is refused, also when two start at once; a cluster from before
// the count was kept keeps the count its leases were made for.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { clusterPartitionCount, PartitionCountError } from "../../cluster/partition-count.ts";
import { openBucket } from "../../cluster/jetstream-setup.ts";
import { tempDir } from "../helpers.ts";
import { haveProgram } from "../ops/extras.ts";
import { startServer, stopServer } from "../security/real-server.ts";
import { withNatsServer } from "./held-appends.ts";
import { runNodeUntilExit, startConfiguredNats } from "./nats-trust-setup.ts";

async function refusal(counting: Promise<number>): Promise<string> {
  try {
    return `counted ${await counting}`;
  } catch (error) {
    assert.instance(error, PartitionCountError);
    return (error as Error).message;
  }
}

test("the first node's count is kept: unset takes it, the same is accepted, another is refused naming both", async () => {
  await withNatsServer("the partition count", async (connect) => {
    const [a, b] = await Promise.all([connect(), connect()]);
    assert.is(await clusterPartitionCount(a, 1, null), 16, "a new cluster, nothing configured: the default");
    assert.is(await clusterPartitionCount(b, 1, null), 16);
    assert.is(await clusterPartitionCount(b, 1, 16), 16);
    assert.is(
      await refusal(clusterPartitionCount(b, 1, 64)),
      "CLUSTER_PARTITIONS=64, but this cluster has 16 partitions, fixed when it first started: set CLUSTER_PARTITIONS=16 or leave it unset",
    );
  });
});

test("two nodes starting at once with different counts: one count is kept, the other node is refused", async () => {
  await withNatsServer("the partition count", async (connect) => {
    const [a, b] = await Promise.all([connect(), connect()]);
    const [fromA, fromB] = await Promise.all([refusal(clusterPartitionCount(a, 1, 8)), refusal(clusterPartitionCount(b, 1, 32))]);
    const outcomes = [fromA, fromB].sort();
    assert.ok(
      (fromA === "counted 8" && /^CLUSTER_PARTITIONS=32, but this cluster has 8 partitions/.test(fromB)) ||
        (fromB === "counted 32" && /^CLUSTER_PARTITIONS=8, but this cluster has 32 partitions/.test(fromA)),
      `one wins, the other is refused: ${JSON.stringify(outcomes)}`,
    );
    const kept = fromA === "counted 8" ? 8 : 32;
    assert.is(await clusterPartitionCount(a, 1, null), kept);
  });
});

test("a cluster from before the count was kept takes the count its partition leases were made for", async () => {
  await withNatsServer("the partition count", async (connect) => {
    const nc = await connect();
    // leases of a cluster started with 24 partitions; an unrelated bucket whose name merely starts alike
    for (let p = 0; p < 24; p++) await openBucket(nc, `hcd-owner-${p}`, { replicas: 1, history: 1 });
    await openBucket(nc, "hcd-owner-nodes", { replicas: 1, history: 1 });
    assert.is(await clusterPartitionCount(nc, 1, null), 24, "not the default");
    assert.match(await refusal(clusterPartitionCount(nc, 1, 16)), /^CLUSTER_PARTITIONS=16, but this cluster has 24 partitions/);
  });
});

test("an hcd node configured with another count than its cluster's exits 1 naming both; unset, it starts with the cluster's", async () => {
  if (!haveProgram("nats-server", "hcd nodes agreeing on the partition count")) return;
  const dir = tempDir("hcd-partition-count-");
  const nats = await startConfiguredNats({ dir: dir.path, config: "" });
  const env = (node: string, partitions?: string) => ({
    DATA_DIR: `${dir.path}/${node}`,
    NATS_URL: `nats://${nats.address}`,
    NODE_ID: node,
    ADMIN_TOKEN: "partition-count-admin-token-0123",
    CLUSTER_REPLICAS: "1",
    LOG_FORMAT: "text",
    ...(partitions === undefined ? {} : { CLUSTER_PARTITIONS: partitions }),
  });
  try {
    const first = await startServer({ dataDir: "", env: env("a", "6") });
    try {
      const refused = await runNodeUntilExit(env("b", "16"));
      assert.is(refused.code, 1, refused.output);
      assert.match(refused.output, /cannot join the cluster at NATS_URL: CLUSTER_PARTITIONS=16, but this cluster has 6 partitions/);
      const second = await startServer({ dataDir: "", env: env("c") });
      try {
        assert.match(second.output(), /cluster node c, 6 partitions/);
      } finally {
        assert.is(await stopServer(second), 0);
      }
    } finally {
      assert.is(await stopServer(first), 0);
    }
  } finally {
    await nats.stop();
    dir.remove();
  }
});

test.run();
