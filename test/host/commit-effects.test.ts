import "../write-faults-on.ts"; // first: arms persistence/write-faults.ts before the store's modules load
// What a shard host's commit does besides writing (host/shard-host.ts #commitAfter): it wakes the
// deliverer only when it queued notifications, counts its flips and its duration for /metrics, logs a
// slow one, writes nothing for no change, counts the changes refused while commits fail; and the
// rebuild after a failed commit loads this shard's projects only. Real stores (LMDB and the log in a
// temp dir), two shard hosts on one DATA_DIR; a stalling disk is the store's own commit after a wait.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { ShardHost } from "../../host/shard-host.ts";
import { shardOf } from "../../host/routing.ts";
import { HOUR, MINUTE } from "../../engine/model.ts";
import { LOG_DIR } from "../../persistence/open.ts";
import { setWriteFault } from "../../persistence/write-faults.ts";
import { pingOf, scenarioProject } from "../../bench/scenarios.ts";
import { tempDir } from "../helpers.ts";

const T0 = Date.UTC(2026, 0, 1);

/** Two shard hosts on one DATA_DIR, each with a project (routed to it) holding one check that notifies an email channel. */
async function setUp() {
  const dir = tempDir();
  const hosts: ShardHost[] = [];
  for (const index of [0, 1]) {
    hosts.push(
      await ShardHost.open({
        dataDir: dir.path,
        durability: "flush",
        index,
        count: 2,
        startAt: T0,
        newId: randomUUID,
        applyMissedDeadlines: true,
      }),
    );
  }
  const owned: { projectId: string; uuid: string }[] = [];
  for (let n = 0; owned[0] === undefined || owned[1] === undefined; n++) {
    if (n > 100) throw new Error("no project for each shard");
    const projectId = `p${n}`,
      index = shardOf(projectId, 2);
    if (owned[index] !== undefined) continue;
    const host = hosts[index];
    await host.apply({ kind: "createProject", project: scenarioProject(projectId), at: T0 });
    await host.apply({
      kind: "addChannel",
      channel: { id: `ch-${projectId}`, projectId, name: "", kind: "email", value: { kind: "email", address: "a@b.c" }, createdAt: T0 },
      at: T0,
    });
    const made = await host.apply({
      kind: "createCheck",
      projectId,
      spec: { name: "c", timeoutMs: HOUR, graceMs: MINUTE, channels: { all: true } },
      unique: [],
      at: T0,
    });
    if (!made.ok) throw new Error("no check");
    owned[index] = { projectId, uuid: made.value.check.uuid };
  }
  const end = async () => {
    setWriteFault(join(dir.path, LOG_DIR), null);
    for (const host of hosts) await host.close();
    dir.remove();
  };
  return { dir: dir.path, hosts, owned, end };
}

test("a commit wakes the deliverer only when it queued notifications, and counts its flips", async () => {
  const {
    hosts: [host, other],
    owned,
    end,
  } = await setUp();
  const mine = owned[0];
  try {
    const woken: number[] = [];
    host.onOutbox = (at) => {
      woken.push(at);
    };
    const renamed = await host.apply({
      kind: "updateCheck",
      projectId: mine.projectId,
      uuid: mine.uuid,
      spec: { name: "renamed" },
      at: T0 + MINUTE,
    });
    assert.ok(renamed.ok);
    assert.equal(woken, [], "nothing to deliver: not woken");
    assert.equal(host.counters.flips, {});
    const [failed] = await host.apply({ kind: "pingBatch", pings: [pingOf({ uuid: mine.uuid }, T0 + 2 * MINUTE, { signal: "fail" })] });
    assert.ok(failed.ok);
    assert.equal(woken, [T0 + 2 * MINUTE], "the down notification is waiting: woken once, at the commit's instant");
    assert.equal(host.counters.flips, { down: 1 });
    // a host with no deliverer to wake (onOutbox unset) commits its notifications all the same
    const [theirs] = await other.apply({
      kind: "pingBatch",
      pings: [pingOf({ uuid: owned[1].uuid }, T0 + 2 * MINUTE, { signal: "fail" })],
    });
    assert.ok(theirs.ok);
  } finally {
    await end();
  }
});

test("each commit's duration is observed once, and is no longer than the request that made it took", async () => {
  const {
    hosts: [host],
    owned: [mine],
    end,
  } = await setUp();
  try {
    const before = host.counters.commitSeconds.count,
      sumBefore = host.counters.commitSeconds.sum;
    const startedAt = performance.now();
    await host.apply({ kind: "updateCheck", projectId: mine.projectId, uuid: mine.uuid, spec: { name: "renamed" }, at: T0 + MINUTE });
    const tookSeconds = (performance.now() - startedAt) / 1000;
    assert.is(host.counters.commitSeconds.count, before + 1);
    const observed = host.counters.commitSeconds.sum - sumBefore;
    assert.ok(observed >= 0 && observed <= tookSeconds, `observed ${observed} s, the request took ${tookSeconds} s`);
    // a command that changes nothing (the check is not down) writes no commit
    const refused = await host.apply({
      kind: "acknowledgeCheck",
      projectId: mine.projectId,
      uuid: mine.uuid,
      by: "ops",
      at: T0 + 2 * MINUTE,
    });
    assert.not.ok(refused.ok);
    assert.is(host.counters.commitSeconds.count, before + 1, "no commit for no change");
  } finally {
    await end();
  }
});

test("a commit that takes a second or more is logged as slow, with its duration and its pings", async () => {
  const {
    hosts: [host],
    owned: [mine],
    end,
  } = await setUp();
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = (chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  };
  const store = host.store() as unknown as { commit: (record: unknown) => Promise<void> };
  try {
    // the store's own commit, after a wait of 1.1 s (a disk that stalls)
    const commit = store.commit.bind(store);
    store.commit = async (record) => {
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await commit(record);
    };
    const startedAt = performance.now();
    const [answer] = await host.apply({ kind: "pingBatch", pings: [pingOf({ uuid: mine.uuid }, T0 + MINUTE)] });
    const tookSeconds = (performance.now() - startedAt) / 1000;
    assert.ok(answer.ok);
    const slow = lines.filter((l) => l.includes("slow commit"));
    assert.is(slow.length, 1, lines.join(""));
    const seconds = Number(/seconds=([0-9.]+)/.exec(slow[0])?.[1]);
    assert.ok(seconds >= 1.1 && seconds <= tookSeconds + 0.001, `logged ${seconds} s; the request took ${tookSeconds} s`);
    assert.match(slow[0], /pings=1\b/);
  } finally {
    process.stderr.write = write;
    delete (store as Partial<typeof store>).commit; // the prototype's again
    await end();
  }
});

test("the rebuild after a failed commit loads this shard's projects only, and changes refused meanwhile are counted", async () => {
  const {
    dir,
    hosts: [host, other],
    owned: [mine, theirs],
    end,
  } = await setUp();
  await other.checkpoint(); // the other shard's project is in the store's tables, where a rebuild reads
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = (chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  };
  try {
    setWriteFault(join(dir, LOG_DIR), "EIO");
    const refused = await host
      .apply({ kind: "updateCheck", projectId: mine.projectId, uuid: mine.uuid, spec: { name: "lost" }, at: T0 + MINUTE })
      .then(
        () => null,
        (error: unknown) => error,
      );
    assert.ok(refused !== null, "the failed commit is refused");
    assert.is(host.counters.commitFailures, 1);
    // rebuilt from the store once that commit returned: this shard's check as stored, the other shard's not here
    const own = await host.apply({ kind: "getCheck", projectId: mine.projectId, ref: { uuid: mine.uuid } });
    assert.ok(own.ok && own.value.name === "c", "this shard's check, as the store holds it");
    const notMine = await host.apply({ kind: "getCheck", projectId: theirs.projectId, ref: { uuid: theirs.uuid } });
    assert.not.ok(notMine.ok, "the other shard's check is not loaded here");
    // two more changes while commits fail: refused without a write, and counted
    for (const name of ["x", "y"]) {
      const again = await host
        .apply({ kind: "updateCheck", projectId: mine.projectId, uuid: mine.uuid, spec: { name }, at: T0 + 2 * MINUTE })
        .then(
          () => null,
          (error: unknown) => error,
        );
      assert.ok(again !== null, "refused while commits fail");
    }
    setWriteFault(join(dir, LOG_DIR), null);
    const giveUpAt = Date.now() + 20_000;
    while (!lines.some((l) => l.includes("the store accepts writes again"))) {
      if (Date.now() > giveUpAt) assert.unreachable(`writes never accepted again: ${lines.join("")}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.match(
      lines.find((l) => l.includes("the store accepts writes again"))!,
      /\(2 changes refused meanwhile\)/,
    );
  } finally {
    process.stderr.write = write;
    await end();
  }
});

test.run();
