// A partition's takeover on a real three-server JetStream cluster: replica A owns partition 5, creates a
// project and checks and takes pings (concurrent, so appends go in batches), stores snapshots (every 100
// records, and one asked for) and goes on after the last one, then is abandoned without releasing
// anything, as a killed node. Replica B, on its own connection, takes over: it loads the newest snapshot,
// fences the log and replays the records after it; its state is A's (every acknowledged ping counted in
// n_pings), A's next append is refused on the fence, and a check whose deadline passed while nobody owned
// the partition flips down at its due time, not at the takeover's; the server leading the partition's
// log is killed with A, so B reads and fences through the two left. A's older snapshot can't replace B's
// newer one, and a strict read below the snapshot is refused as truncated.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { NatsConnection } from "@nats-io/nats-core";
import type { PingCommand, ShardCommand } from "../../engine/commands.ts";
import type { Check } from "../../engine/model.ts";
import { managerOf } from "../../cluster/jetstream-setup.ts";
import { FencedError, JetStreamLog, TruncatedError } from "../../cluster/jetstream-log.ts";
import { snapshotOf } from "../../cluster/partition-codec.ts";
import { PartitionReplica } from "../../cluster/partition-replica.ts";
import type { PartitionReplicaOptions } from "../../cluster/partition-replica.ts";
import { SnapshotStore } from "../../cluster/snapshot-store.ts";
import { haveProgram } from "../ops/extras.ts";
import { check, project } from "../helpers.ts";
import { withNatsCluster } from "./nats-cluster.ts";

const HAVE_NATS = haveProgram("nats-server", "cluster partition takeover on a JetStream cluster");
const PARTITION = 5;
const T0 = 1_800_000_000_000;
const SECOND = 1_000;
const WAVES = 12,
  PER_WAVE = 25; // pings before A stops, in concurrent waves

/**
 * Retries `attempt` until it resolves (a positive marker: the cluster answers again), for at most
 * `timeoutMs`; an attempt left unanswered for `unansweredMs` counts as failed (a request lost in a leader
 * change). A takeover is never given up on that way: it must not run twice at once.
 */
async function eventually<T>(attempt: () => Promise<T>, options: { timeoutMs?: number; unansweredMs?: number } = {}): Promise<T> {
  const until = Date.now() + (options.timeoutMs ?? 120_000);
  const unansweredMs = options.unansweredMs ?? 30_000;
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    try {
      const unanswered = new Promise<never>((_, reject) => {
        if (Number.isFinite(unansweredMs)) timer = setTimeout(() => reject(new Error(`unanswered for ${unansweredMs} ms`)), unansweredMs);
      });
      return await Promise.race([attempt(), unanswered]);
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250));
    } finally {
      clearTimeout(timer);
    }
  }
}

const ONE_AT_A_TIME = { unansweredMs: Infinity };
const pingCommand = (uuid: string, at: number): PingCommand => ({
  target: { uuid },
  signal: "success",
  exitStatus: null,
  method: "GET",
  scheme: "http",
  remoteAddr: "127.0.0.1",
  ua: "stress",
  rid: null,
  body: null,
  at,
});
const pingOf = (uuid: string, at: number): ShardCommand => ({ kind: "ping", ping: pingCommand(uuid, at) });

test("a replica taking over a killed owner's partition has every acknowledged command, fences the old owner out and flips missed deadlines at their due times", async () => {
  if (!HAVE_NATS) return;
  await withNatsCluster(async (cluster, connection) => {
    let ids = 0;
    const options = (nc: NatsConnection): PartitionReplicaOptions => ({
      connection: nc,
      partition: PARTITION,
      replicas: 3,
      snapshotEvery: 100,
      ackTimeoutMs: 5_000,
      newId: () => `00000000-0000-4000-8000-${(++ids).toString(16).padStart(12, "0")}`,
    });
    const a = await eventually(async () => PartitionReplica.open(options(await connection(0))));
    const first = await eventually(() => a.takeOver(T0), ONE_AT_A_TIME);
    assert.equal([first.snapshotSequence, first.replayed, first.flips], [null, 0, []]);

    // A's commands; a refused append (a slow leader election) leaves A stale: it takes over again, which
    // replays whatever of the batch was stored, and the command is not counted as acknowledged
    let refused = 0;
    const submitA = async <C extends ShardCommand>(command: C) => {
      for (;;) {
        try {
          return await a.submit(command);
        } catch (error) {
          refused += 1;
          if (a.state !== "stale") throw error;
          await eventually(() => a.takeOver(T0 + 60 * SECOND), ONE_AT_A_TIME);
        }
      }
    };
    const owner = project({ id: "00000000-0000-4000-8000-0000000000aa", createdAt: T0 });
    await submitA({ kind: "createProject", project: owner, at: T0 });
    const created = async (name: string, timeoutS: number, graceS: number): Promise<Check> => {
      const { result } = await submitA({
        kind: "createCheck",
        projectId: owner.id,
        spec: { name, timeoutMs: timeoutS * SECOND, graceMs: graceS * SECOND },
        unique: [],
        at: T0,
      });
      assert.ok(result.ok, name);
      return result.value.check;
    };
    const steady = await created("steady", 3_600, 60);
    const lapsing = await created("lapsing", 60, 30);
    // lapsing: last ping at T0+10 s, timeout 60 s, grace 30 s: down at T0+100 s
    await submitA(pingOf(lapsing.uuid, T0 + 10 * SECOND));
    // a check created by a ping to its slug: its ids travel in the record, so B's copy has the same uuid
    const auto = await submitA({
      kind: "ping",
      ping: { ...pingCommand(lapsing.uuid, T0 + 11 * SECOND), target: { pingKey: owner.pingKey, slug: "auto", create: true } },
    });
    assert.ok(auto.result.ok && auto.result.value.created);
    const autoUuid = auto.result.value.checkUuid;

    let acknowledged = 0;
    for (let wave = 0; wave < WAVES; wave++) {
      const at = T0 + 20 * SECOND + wave * 3 * SECOND;
      const answers = await Promise.allSettled(Array.from({ length: PER_WAVE }, () => a.submit(pingOf(steady.uuid, at))));
      acknowledged += answers.filter((r) => r.status === "fulfilled").length;
      if (a.state === "stale") {
        refused += 1;
        await eventually(() => a.takeOver(at), ONE_AT_A_TIME);
      }
      if (wave === 7) await eventually(() => a.snapshot()); // one asked for, besides those every 100 records
    }
    await eventually(() => a.advance(T0 + 60 * SECOND)); // A's timer: nothing due yet
    // a few more records after A's last snapshot, for B to replay
    for (let i = 0, after = 0; after < 5; i++) {
      await submitA(pingOf(autoUuid, T0 + 61 * SECOND + i));
      await a.settled();
      after = a.applied - a.snapshotSequence;
    }
    const snapshotByA = a.snapshotSequence;
    assert.ok(snapshotByA > 0, "A stored a snapshot");
    assert.ok(a.applied > snapshotByA, "A applied records after its last snapshot: B must replay them");
    const stateOfA = a.read((shard) => shard.snapshot());
    const pingsOfA = stateOfA.checks.find((c) => c.uuid === steady.uuid)?.nPings ?? -1;
    assert.ok(pingsOfA >= acknowledged, `every acknowledged ping counted (${pingsOfA} ≥ ${acknowledged})`);
    if (refused === 0) assert.is(pingsOfA, WAVES * PER_WAVE);

    // A is killed here: no release, no more rounds; and the server leading the partition's log goes with it
    // (SIGKILL). B takes over 240 s (of the commands' time) later, on the two servers left.
    const jsm = await managerOf(await connection(0));
    const leaderName = (await eventually(() => jsm.streams.info(`HCD_LOG_${PARTITION}`))).cluster?.leader;
    const leader = cluster.servers.findIndex((s) => s.name === leaderName);
    assert.ok(leader >= 0, `log leader ${leaderName}`);
    await cluster.stop(leader, "SIGKILL");
    const b = await eventually(async () => PartitionReplica.open(options(await connection((leader + 1) % 3))));
    const takeoverAt = T0 + 300 * SECOND;
    const report = await eventually(() => b.takeOver(takeoverAt), ONE_AT_A_TIME);
    assert.is(report.snapshotSequence, snapshotByA, "B loaded A's newest snapshot");
    assert.ok(report.replayed > 0, "B replayed the records after the snapshot");
    assert.ok(report.fencedAt > a.applied, "B's fence follows every record A appended");

    // the deadline that fell due while the partition had no owner (after A's last record): not judged at the
    // takeover, but once its grace (30 s) has passed since, stamped then, its notification naming the gap
    assert.equal([report.flips, report.held], [[], 1]);
    const heldAdvance = await eventually(() => b.advance(takeoverAt + 30 * SECOND - 1));
    assert.equal(heldAdvance.changes.flips, []);
    const downAdvance = await eventually(() => b.advance(takeoverAt + 30 * SECOND));
    assert.equal(downAdvance.changes.flips, [
      { checkUuid: lapsing.uuid, n: 2, at: takeoverAt + 30 * SECOND, from: "up", to: "down", reason: "timeout", notify: true },
    ]);
    const stateOfB = b.read((shard) => shard.snapshot());
    const downSince = { failures: 0, downSinceAt: takeoverAt + 30 * SECOND, dueAt: null, held: false, reminders: 0 };
    const expected = stateOfA.checks.map((c) =>
      c.uuid === lapsing.uuid ? { ...c, status: "down" as const, nFlips: c.nFlips + 1, alert: downSince } : c,
    );
    assert.equal(stateOfB.projects, stateOfA.projects);
    assert.equal(stateOfB.channels, stateOfA.channels);
    assert.equal(stateOfB.checks, expected, "B's checks are A's, the lapsed one down");
    assert.ok(
      stateOfB.checks.some((c) => c.slug === "auto" && c.uuid === autoUuid),
      "the auto-created check has the same uuid on B",
    );

    // A wakes up and appends: refused on the fence, and nothing of it reaches B
    const late = await a.submit(pingOf(steady.uuid, takeoverAt + 30 * SECOND)).then(
      () => null,
      (error: unknown) => error,
    );
    assert.instance(late, FencedError);
    assert.is(a.state, "deposed");
    const afterLate = await eventually(() => b.submit(pingOf(steady.uuid, takeoverAt + 31 * SECOND)));
    const steadyOnB = b.read((shard) => shard.getCheck(owner.id, steady.uuid));
    assert.ok(steadyOnB.ok);
    assert.is(steadyOnB.value.nPings, pingsOfA + 1, "B's own ping follows A's, A's late one is not there");

    await cluster.restart(leader);

    // B snapshots; A's older state can't replace it (a deposed owner's snapshot is skipped)
    const saved = await eventually(() => b.snapshot());
    assert.ok(saved.saved, "B's snapshot is stored");
    const store = await eventually(async () =>
      SnapshotStore.open({ connection: await connection(leader), partition: PARTITION, replicas: 3 }),
    );
    const stale = await eventually(() =>
      store.save(
        a.applied,
        snapshotOf(
          b.read((shard) => shard),
          T0,
          0,
        ),
      ),
    );
    assert.equal(stale, { saved: false, newer: afterLate.position });
    assert.is((await eventually(() => store.load()))?.logSequence, afterLate.position);

    // the log below B's snapshot is gone: a strict read from there is refused, not shortened
    const log = await eventually(async () => JetStreamLog.open({ connection: await connection(2), partition: PARTITION, replicas: 3 }));
    const read = async () => {
      for await (const record of log.readFrom(1, { strict: true })) void record;
    };
    assert.instance(
      await read().then(
        () => null,
        (error: unknown) => error,
      ),
      TruncatedError,
    );

    console.log(
      `  acknowledged pings ${acknowledged} (refused and retried ${refused}), A applied to ${a.applied}, A's snapshot at ${snapshotByA}; ` +
        `B: snapshot ${report.snapshotSequence} (${report.snapshotBytes} bytes), fence at ${report.fencedAt}, replayed ${report.replayed}, ` +
        `restarts ${report.restarts}, log leader ${leaderName} killed before it; flips at takeover ${report.flips.map((f) => `${f.from}→${f.to}@T0+${(f.at - T0) / SECOND}s`).join(", ")}; B's snapshot at ${afterLate.position}`,
    );
  });
});

test("a snapshot larger than a chunk is stored in 256 kB chunks and reads back whole; an older one is not stored over it", async () => {
  if (!HAVE_NATS) return;
  await withNatsCluster(async (_cluster, connection) => {
    const store = await eventually(async () => SnapshotStore.open({ connection: await connection(0), partition: 2, replicas: 3 }));
    const owner = project({ id: "00000000-0000-4000-8000-0000000000cc", createdAt: T0 });
    // 700 checks with a 1,000-character description each: about 1 MB of body
    const checks = Array.from({ length: 700 }, (_, i) =>
      check({ projectId: owner.id, uuid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`, desc: "d".repeat(1_000) }),
    );
    const snapshot = { at: T0, projects: [{ project: owner, channels: [], checks }], intake: 0 };
    const saved = await eventually(() => store.save(40, snapshot));
    assert.ok(saved.saved && saved.head.chunks >= 3, `stored in ${saved.saved ? saved.head.chunks : 0} chunks`);
    assert.ok(saved.saved && saved.head.bytes > 700_000);
    const loaded = await eventually(async () =>
      (await SnapshotStore.open({ connection: await connection(1), partition: 2, replicas: 3 })).load(),
    );
    assert.is(loaded?.logSequence, 40);
    assert.equal(loaded?.snapshot, snapshot);
    assert.equal(await eventually(() => store.save(39, { at: T0, projects: [], intake: 0 })), { saved: false, newer: 40 });
    assert.is((await eventually(() => store.load()))?.snapshot.projects[0].checks.length, 700);
  });
});

test.run();
