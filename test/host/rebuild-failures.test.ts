// A shard whose commit failed is rebuilt from the store; a rebuild that fails too is retried by every
// probe. It is logged once per episode (first failure, then one line when a rebuild succeeds), and each
// failure is counted for /metrics. The store is real (LMDB and its log in a temp dir); only its commit
// and its load are made to fail, by replacing those two methods on the instance.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { randomUUID } from "node:crypto";
import { ShardHost } from "../../host/shard-host.ts";
import { scenarioProject } from "../../bench/scenarios.ts";
import { sample, tempDir, until } from "../helpers.ts";
import { createMetrics } from "../../http/metrics.ts";
import { systemClock } from "../../host/clock.ts";
import type { Pool } from "../../host/pool-api.ts";

const T0 = Date.UTC(2026, 0, 1);

test("a failing rebuild is logged once per episode and counted; a later rebuild ends the episode and writes resume", async () => {
  const dir = tempDir();
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = (chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  };
  const host = await ShardHost.open({
    dataDir: dir.path,
    durability: "flush",
    index: 0,
    count: 1,
    startAt: T0,
    newId: randomUUID,
    applyMissedDeadlines: true,
  });
  try {
    const project = await host.apply({ kind: "createProject", project: scenarioProject("p"), at: T0 });
    const store = host.store() as unknown as Record<string, unknown>;
    store.commit = () => Promise.reject(Object.assign(new Error("EIO: i/o error, write"), { code: "EIO" }));
    store.loadDurable = () => {
      throw new Error("a record the load does not understand");
    };

    const refused = await host.apply({ kind: "createCheck", projectId: project.id, spec: { name: "c" }, unique: [], at: T0 + 1 }).then(
      () => null,
      (error: unknown) => error as Error,
    );
    assert.ok(refused !== null, "the failed commit is refused");
    assert.is(host.counters.commitFailures, 1);
    await until("three failed rebuilds (the first, then the probe's retries)", () => host.counters.rebuildFailures >= 3, 20_000);
    const failedLines = lines.filter((l) => l.includes("rebuilding from the store after a failed commit failed"));
    assert.is(failedLines.length, 1, lines.join(""));
    assert.match(failedLines[0], /a record the load does not understand/);
    assert.is((await host.apply({ kind: "stats", at: T0 + 2 })).rebuildFailures, host.counters.rebuildFailures);
    // /metrics reads the shards' stats (a pool of this one host: /metrics asks a pool for nothing else)
    const pool = {
      stats: async (at: number) => ({ shards: [await host.apply({ kind: "stats", at })], queued: [0] }),
      unknownTime: async () => [],
    } as unknown as Pool;
    const { body } = await createMetrics(pool, systemClock).exposition();
    const counted = sample(body, "hcd_rebuild_failures_total") ?? 0;
    assert.ok(counted >= 3, `hcd_rebuild_failures_total ${counted}`);
    assert.is(sample(body, "hcd_commit_failures_total"), 1);

    delete store.loadDurable; // the prototype's again: the next probe rebuilds
    await until(
      "the end of the episode",
      () => lines.some((l) => l.includes("rebuilding from the store after a failed commit succeeded after")),
      20_000,
    );
    delete store.commit;
    await until("writes accepted again", () => lines.some((l) => l.includes("the store accepts writes again")), 20_000);
    const made = await host.apply({ kind: "createCheck", projectId: project.id, spec: { name: "c" }, unique: [], at: T0 + 3 });
    assert.ok(made.ok);
    assert.is(
      lines.filter((l) => l.includes("rebuilding from the store after a failed commit failed")).length,
      1,
      "still one line for the episode",
    );
  } finally {
    process.stderr.write = write;
    await host.close();
    dir.remove();
  }
});

test.run();
