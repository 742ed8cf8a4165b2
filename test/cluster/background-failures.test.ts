// Background work of a cluster node that no request reports: episodes are logged once each and counted in
// /metrics. A failure streak of one partition logs one line, then one more when it ends; and on a real
// node (one nats-server) whose snapshot stream is gone, every failed snapshot is counted and shown in
// /metrics while the first alone is logged.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createClusterPool } from "../../cluster/cluster-pool.ts";
import { PartitionHistory } from "../../cluster/partition-history.ts";
import { PartitionNode } from "../../cluster/partition-node.ts";
import { managerOf } from "../../cluster/jetstream-setup.ts";
import { systemClock } from "../../host/clock.ts";
import { FailureEpisodes } from "../../host/failure-episodes.ts";
import { createMetrics } from "../../http/metrics.ts";
import { NotificationQueue } from "../../notify/cluster-queue.ts";
import { withNatsServer } from "./held-appends.ts";
import { sample, until } from "../helpers.ts";

type Line = { level: string; fields: Record<string, unknown>; message: string };

test("an episode logs its first failure and its end; the failures between are only counted", () => {
  const lines: Line[] = [];
  const episodes = new FailureEpisodes((level, fields, message) => lines.push({ level, fields, message }));
  for (let i = 0; i < 3; i++) episodes.failed("snapshot", "partition 4", new Error("no stream"));
  episodes.failed("advance", "partition 1", new Error("timeout"));
  assert.equal(
    lines.map((l) => [l.level, l.fields.work, l.fields.subject]),
    [
      ["warn", "snapshot", "partition 4"],
      ["warn", "advance", "partition 1"],
    ],
  );
  assert.equal(episodes.counts(), {
    takeover: { failures: 0, failing: 0, streak: 0 },
    snapshot: { failures: 3, failing: 1, streak: 3 },
    advance: { failures: 1, failing: 1, streak: 1 },
    ownership_round: { failures: 0, failing: 0, streak: 0 },
  });
  episodes.succeeded("snapshot", "partition 4");
  episodes.succeeded("snapshot", "partition 4"); // no episode: nothing to say
  assert.equal(
    lines.slice(2).map((l) => [l.level, l.fields.work, l.fields.failures]),
    [["info", "snapshot", 3]],
  );
  assert.equal(episodes.counts().snapshot, { failures: 3, failing: 0, streak: 0 });
  // a new episode is logged again
  episodes.failed("snapshot", "partition 4", new Error("no stream"));
  assert.is(lines.length, 4);
  // a partition gone to another node: its episodes end without a line, the others stay
  episodes.forget("partition 4");
  assert.equal([episodes.counts().snapshot.failing, episodes.counts().advance.failing], [0, 1]);
  assert.is(lines.length, 4);
});

test("a partition whose takeover keeps failing is counted as failing, logged once, and served once a takeover succeeds", async () => {
  await withNatsServer("takeover failures counted", async (connect) => {
    const nc = await connect();
    const lines: Line[] = [];
    const failures = new FailureEpisodes((level, fields, message) => lines.push({ level, fields, message }));
    let failing = true;
    const node = await PartitionNode.open({
      connection: nc,
      node: "a",
      partitionCount: 1,
      replicas: 1,
      failures,
      catchUp: async (_partition, _replica, now) => {
        if (failing) throw new Error("the intake stream did not answer");
        return now;
      },
    });
    node.start();
    try {
      await until("three failed takeovers", () => failures.counts().takeover.failures >= 3, 30_000);
      assert.is(node.replica(0), null, "not served while its takeover fails");
      assert.equal(failures.counts().takeover.failing, 1);
      assert.equal(
        lines.map((l) => [l.level, l.fields.work, l.fields.subject]),
        [["warn", "takeover", "partition 0"]],
        "logged once",
      );
      failing = false;
      await until("the partition served", () => node.replica(0) !== null, 30_000);
      assert.equal(failures.counts().takeover.failing, 0);
      assert.equal(
        lines.slice(1).map((l) => [l.level, l.fields.work]),
        [["info", "takeover"]],
        "its end logged",
      );
    } finally {
      await node.stop();
    }
  });
});

test("a node whose snapshots fail logs the first and counts every one in /metrics", async () => {
  await withNatsServer("snapshot failures counted in /metrics", async (connect) => {
    const nc = await connect();
    const lines: Line[] = [];
    const failures = new FailureEpisodes((level, fields, message) => lines.push({ level, fields, message }));
    const notifications = await NotificationQueue.open({ connection: nc, replicas: 1 });
    const node = await createClusterPool({
      connection: nc,
      node: "a",
      replicas: 1,
      partitionCount: 1,
      notifications,
      failures,
      snapshotEvery: 1,
      openHistory: (partition) => PartitionHistory.open({ connection: nc, partition, replicas: 1 }),
    });
    try {
      await until("the partition served", () => node.served().length > 0, 30_000);
      await (await managerOf(nc)).streams.delete("HCD_SNAP_0"); // every snapshot from now on fails
      const ATTEMPTS = 3;
      for (let i = 0; i < ATTEMPTS && failures.counts().snapshot.failures < ATTEMPTS; i++) {
        await node.pool.createProject({ name: `p${i}`, checkLimit: 20, pingLogLimit: 100, pingBodyLimit: 10_000 }, Date.now()); // a record: a snapshot is due after each (snapshotEvery 1)
        await until(`snapshot failure ${i + 1} counted`, () => failures.counts().snapshot.failures > i, 30_000);
      }
      const counts = failures.counts().snapshot;
      assert.ok(counts.failures >= ATTEMPTS, `${counts.failures} failures counted`);
      assert.is(counts.failing, 1);
      assert.equal(
        lines.filter((l) => l.fields.work === "snapshot").map((l) => l.level),
        ["warn"],
        "logged once",
      );

      const { body } = await createMetrics(node.pool, systemClock, failures).exposition();
      assert.is(sample(body, 'hcd_cluster_background_failures_total{work="snapshot"}'), counts.failures);
      assert.is(sample(body, 'hcd_cluster_background_failing{work="snapshot"}'), 1);
      assert.is(sample(body, 'hcd_cluster_background_failure_streak{work="snapshot"}'), counts.streak);
      assert.is(sample(body, 'hcd_cluster_background_failures_total{work="advance"}'), 0);
    } finally {
      await node.close();
      await notifications.close();
    }
  });
});

test.run();
