// The directory replicated through a KV bucket on a real three-server JetStream cluster (Debian's
// nats-server). The reference is a single-node pool (in-process shards, LMDB in a temporary directory):
// every project and check is made through it, the records it returns are what a partition's owner
// publishes, and two watchers on connections to the other servers must answer every lookup (API keys,
// ping keys, project and check badge keys, check uuids, the project list, and keys that name nothing)
// exactly as the pool does, after creations, a mute, deletions and a reconcile. A watcher started after
// 10,000 checks were written catches up (its time is printed, not judged); a watcher cut off with its
// server catches up when the server comes back; with the bucket's leader stopped the directory still
// takes writes and a new watcher still reads it (R3); after the whole of NATS was down and back, and after
// every watch's consumer was deleted behind its back, every watcher follows again.
import { randomUUID } from "node:crypto";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { connect } from "@nats-io/transport-node";
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { createInProcessPool } from "../../app/pools.ts";
import { managerOf } from "../../cluster/jetstream-setup.ts";
import { consumerNotFound } from "../../cluster/nats-errors.ts";
import { checkKey } from "../../cluster/directory-keys.ts";
import type { DirectoryChanges } from "../../cluster/directory-replica.ts";
import { DirectoryReplica } from "../../cluster/directory-replica.ts";
import { partitionOf } from "../../cluster/partitions.ts";
import type { Check, Project } from "../../engine/model.ts";
import type { Pool, PingTarget } from "../../host/pool-api.ts";
import { haveProgram } from "../ops/extras.ts";
import { tempDir } from "../helpers.ts";
import type { NatsCluster } from "./nats-cluster.ts";
import { startNatsCluster } from "./nats-cluster.ts";

const HAVE_NATS = haveProgram("nats-server", "the replicated directory on a JetStream cluster");
const T0 = Date.UTC(2026, 0, 1);
const PARTITIONS = 8;
const MANY = 10_000;

type Connect = (first: number, options?: { only?: boolean }) => Promise<NatsConnection>;
type Lookups = Pick<
  Pool,
  "authenticate" | "projectByPingKey" | "projectOfCheck" | "projectByBadgeKey" | "checkByBadgeKey" | "listProjects"
>;

let cluster: NatsCluster;
const connections: NatsConnection[] = [];
const connection: Connect = async (first, options = {}) => {
  // each node talks to its own server first, as nodes on different machines would (only to it: cut off with it)
  const servers = options.only ? [cluster.urls[first]] : [...cluster.urls.slice(first), ...cluster.urls.slice(0, first)];
  const nc = await connect({
    servers,
    noRandomize: true,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    pingInterval: 2_000,
    ignoreClusterUpdates: options.only === true,
  });
  connections.push(nc);
  return nc;
};

test.before(async () => {
  if (HAVE_NATS) cluster = await startNatsCluster({ size: 3 });
});

test.after(async () => {
  await Promise.all(connections.map((nc) => nc.close().catch(() => {})));
  await cluster?.close();
});

/** Opens the directory of `bucket` (R3, the test's partitions) on a connection. */
// A write waits for a new stream leader after the old one's loss for up to 90 s here, not the 30 s default: on a busy
// machine nats-server's election after a SIGKILL once took longer than 30 s (11.6 s on the same machine idle). What
// this file claims is that writes go through and every watcher reads them, not how soon.
function replicaOn(nc: NatsConnection, bucket: string): Promise<DirectoryReplica> {
  return DirectoryReplica.open({ connection: nc, replicas: 3, bucket, partitionCount: PARTITIONS, retryForMs: 90_000 });
}

/** The single-node pool every answer is compared with. */
async function referencePool(dir: string): Promise<Pool> {
  return createInProcessPool({
    dataDir: dir,
    shards: 2,
    durability: "commit",
    startAt: T0,
    clock: "virtual",
    notify: { siteRoot: "http://localhost", allowPrivateIps: true, smtpUrl: null },
  });
}

/** Everything a lookup may be asked: every key and uuid ever made (deleted ones too), and strings that name nothing. */
class Probes {
  readonly apiKeys: string[] = ["", "not-a-key"];
  readonly pingKeys: string[] = ["", "not-a-key"];
  readonly badgeKeys: string[] = ["", randomUUID()];
  readonly uuids: string[] = ["", randomUUID(), "not-a-uuid"];

  project(project: Project): void {
    this.apiKeys.push(project.apiKey, project.apiKeyReadonly, project.apiKey.slice(1), project.pingKey);
    this.pingKeys.push(project.pingKey, project.apiKey);
    this.badgeKeys.push(project.badgeKey);
    this.uuids.push(project.id);
  }

  check(check: Check): void {
    this.uuids.push(check.uuid, check.uuid.toUpperCase());
    this.badgeKeys.push(check.badgeKey);
  }
}

function lookups(dir: Lookups, probes: Probes, sample = 1) {
  const pick = <T>(list: T[]) => (sample === 1 ? list : list.filter((_, i) => i % sample === 0));
  return {
    authenticate: probes.apiKeys.map((key) => dir.authenticate(key)),
    projectByPingKey: probes.pingKeys.map((key) => dir.projectByPingKey(key)),
    projectByBadgeKey: probes.badgeKeys.map((key) => dir.projectByBadgeKey(key)),
    checkByBadgeKey: pick(probes.badgeKeys).map((key) => dir.checkByBadgeKey(key)),
    projectOfCheck: pick(probes.uuids).map((uuid) => dir.projectOfCheck(uuid)),
    listProjects: dir.listProjects(),
  };
}

/** Asserts that each watcher answers every probe as the pool does, and that the pool's answers are not all empty. */
function assertSameAnswers(pool: Pool, watchers: readonly DirectoryReplica[], probes: Probes, what: string, sample = 1): void {
  const expected = lookups(pool, probes, sample);
  const found = (list: unknown[]) => list.filter((answer) => answer !== null).length;
  assert.ok(
    found(expected.authenticate) > 0 && found(expected.projectOfCheck) > 0 && found(expected.checkByBadgeKey) > 0,
    `${what}: the reference knows something`,
  );
  for (const [i, watcher] of watchers.entries()) assert.equal(lookups(watcher, probes, sample), expected, `${what}: watcher ${i + 1}`);
}

const changes = (part: Partial<DirectoryChanges>): DirectoryChanges => ({ projects: [], checks: [], deletedChecks: [], ...part });

/** Pings that create checks by slug (batched by the pool, so thousands are quick); returns the created checks. */
async function createBySlug(pool: Pool, project: Project, slugs: string[], at: number): Promise<Check[]> {
  const results = await Promise.all(
    slugs.map((slug) => {
      const target: PingTarget = { pingKey: project.pingKey, slug, create: true };
      return pool.ping(project.id, {
        target,
        signal: "success",
        exitStatus: null,
        method: "GET",
        scheme: "http",
        remoteAddr: "127.0.0.1",
        ua: "test",
        rid: null,
        body: null,
        at,
      });
    }),
  );
  const created = new Set(results.map((r) => (r.ok && r.value.created ? r.value.checkUuid : null)));
  assert.is(created.size - (created.has(null) ? 1 : 0), slugs.length, "every slug ping created its check");
  return (await pool.listChecks(project.id, { tags: [] })).filter((check) => created.has(check.uuid));
}

test("two watchers answer every lookup as the single-node directory; creations, a mute, deletions, a reconcile, a server's loss and return", async () => {
  if (!HAVE_NATS) return;
  const dir = tempDir();
  const pool = await referencePool(dir.path);
  const probes = new Probes();
  const bucket = "dir-a";
  try {
    const writer = await replicaOn(await connection(0), bucket);
    const watchers = [await replicaOn(await connection(1), bucket), await replicaOn(await connection(2, { only: true }), bucket)];
    const caughtUp = (revision: number) => Promise.all(watchers.map((w) => w.caughtUpTo(revision)));

    // projects, checks made through the API and by slug pings, one after another as their commits would be
    const projects: Project[] = [];
    let revision = 0;
    for (let i = 0; i < 5; i++) {
      const project = await pool.createProject({ name: `project ${i}`, checkLimit: 100, pingLogLimit: 10, pingBodyLimit: 100 }, T0 + i);
      projects.push(project);
      probes.project(project);
      revision = await writer.publish(changes({ projects: [project] }));
      for (let c = 0; c < 6; c++) {
        const created = await pool.createCheck(project.id, { name: `check ${c}` }, [], T0 + 10 + c);
        assert.ok(created.ok);
        if (!created.ok) return;
        probes.check(created.value.check);
        revision = await writer.publish(changes({ checks: [created.value.check] }));
      }
      const bySlug = await createBySlug(pool, project, ["backup", "nightly-db"], T0 + 100);
      for (const check of bySlug) probes.check(check);
      revision = await writer.publish(changes({ checks: bySlug }));
    }
    const muted = await pool.muteProject(projects[1].id, T0 + 86_400_000, T0 + 200);
    assert.ok(muted.ok);
    if (!muted.ok) return;
    revision = await writer.publish(changes({ projects: [muted.value] }));
    assert.ok(revision > 0);
    await caughtUp(revision);
    assertSameAnswers(pool, watchers, probes, "after creations and a mute");
    assert.is(watchers[0].projectById(projects[1].id)?.mutedUntilAt, T0 + 86_400_000, "the mute reached the watcher");

    // a change of state only writes nothing; publishing what the bucket holds already writes nothing either
    await writer.caughtUpTo(revision);
    const sample = (await pool.listChecks(projects[0].id, { tags: [] }))[0];
    assert.is(await writer.publish(changes({ checks: [{ ...sample, badgeKey: randomUUID() }], stateOnly: true })), 0);
    assert.is(await writer.publish(changes({ projects: [projects[0]], checks: [sample] })), 0);

    // deletions: every check of one project and two of another
    const gone: { projectId: string; uuid: string }[] = [];
    for (const [project, count] of [
      [projects[2], 8],
      [projects[3], 2],
    ] as const) {
      for (const check of (await pool.listChecks(project.id, { tags: [] })).slice(0, count)) {
        assert.ok((await pool.deleteCheck(project.id, check.uuid, T0 + 300)).ok);
        gone.push({ projectId: project.id, uuid: check.uuid });
      }
    }
    revision = await writer.publish(changes({ deletedChecks: gone }));
    // a check made and deleted by commands whose changes were merged into one (both lists hold it): deleted, as the store applies them
    const brief = await pool.createCheck(projects[3].id, { name: "brief" }, [], T0 + 310);
    assert.ok(brief.ok);
    if (!brief.ok) return;
    probes.check(brief.value.check);
    assert.ok((await pool.deleteCheck(projects[3].id, brief.value.check.uuid, T0 + 311)).ok);
    revision = await writer.publish(
      changes({ checks: [brief.value.check], deletedChecks: [{ projectId: projects[3].id, uuid: brief.value.check.uuid }] }),
    );
    await caughtUp(revision);
    assertSameAnswers(pool, watchers, probes, "after deletions");
    assert.ok(
      gone.every(({ uuid }) => watchers.every((w) => w.projectOfCheck(uuid) === null)),
      "deleted checks route nowhere",
    );

    // reconcile: a write lost between a commit and its publish (a key deleted behind the writer's back) and
    // a stray key (a check the partition no longer holds) are both put right from the partition's state
    const kv = await new Kvm(await connection(0)).open(bucket);
    const lostProject = projects[4];
    const partition = partitionOf(lostProject.id, PARTITIONS);
    const lost = (await pool.listChecks(lostProject.id, { tags: [] }))[0];
    await kv.delete(checkKey(partition, lostProject.id, lost.uuid));
    const stray = randomUUID();
    await kv.put(checkKey(partition, lostProject.id, stray), new TextEncoder().encode(randomUUID()));
    await caughtUp(await writer.synced());
    assert.is(watchers[0].projectOfCheck(lost.uuid), null, "the lost write is missing before the reconcile");
    assert.is(watchers[0].projectOfCheck(stray)?.id, lostProject.id, "the stray key is there before the reconcile");
    probes.uuids.push(stray);
    const ofPartition = projects
      .filter((p) => partitionOf(p.id, PARTITIONS) === partition)
      .map((p) => (p.id === muted.value.id ? muted.value : p));
    const routes: [string, string, string][] = [];
    for (const project of ofPartition)
      for (const check of await pool.listChecks(project.id, { tags: [] })) routes.push([check.uuid, project.id, check.badgeKey]);
    const reconciled = await writer.reconcile(partition, ofPartition, routes);
    assert.equal({ put: reconciled.put, deleted: reconciled.deleted }, { put: 1, deleted: 1 }, "only what differed was written");
    await caughtUp(reconciled.revision);
    assertSameAnswers(pool, watchers, probes, "after a reconcile");

    // watcher 2 talks to server 3 only: cut off while its server is down, it catches up when it comes back
    await cluster.stop(2);
    const restartsBefore = watchers[1].stats().restarts;
    const meanwhile = await createBySlug(pool, projects[0], ["while-away-1", "while-away-2", "while-away-3"], T0 + 400);
    for (const check of meanwhile) probes.check(check);
    revision = await writer.publish(changes({ checks: meanwhile }));
    const removed = meanwhile[0];
    assert.ok((await pool.deleteCheck(projects[0].id, removed.uuid, T0 + 401)).ok);
    revision = await writer.publish(changes({ deletedChecks: [{ projectId: projects[0].id, uuid: removed.uuid }] }));
    await watchers[0].caughtUpTo(revision);
    assert.is(watchers[1].projectOfCheck(meanwhile[1].uuid), null, "the cut-off watcher has not seen the new checks");
    const downAt = Date.now();
    await cluster.restart(2);
    await watchers[1].caughtUpTo(revision, 60_000);
    console.log(
      `  a watcher cut off with its server caught up ${((Date.now() - downAt) / 1000).toFixed(1)} s after the server's restart began (watch restarted ${watchers[1].stats().restarts - restartsBefore} times)`,
    );
    assertSameAnswers(pool, watchers, probes, "after a server's loss and return");

    // the bucket's leader stopped: writes still go through (R3), both watchers and a new one read them
    const info = await (await managerOf(await connection(0))).streams.info(`KV_${bucket}`);
    const leader = cluster.servers.findIndex((s) => s.name === info.cluster?.leader);
    assert.ok(leader >= 0, `leader ${info.cluster?.leader}`);
    const restartsBefore2 = watchers.map((w) => w.stats().restarts);
    await cluster.stop(leader, "SIGKILL"); // a machine's loss: no leadership handed over first
    const started = Date.now();
    const duringLoss = await createBySlug(pool, projects[3], ["leader-gone-1", "leader-gone-2"], T0 + 500);
    for (const check of duringLoss) probes.check(check);
    revision = await writer.publish(changes({ checks: duringLoss }));
    assert.ok((await pool.deleteCheck(projects[3].id, duringLoss[0].uuid, T0 + 501)).ok);
    revision = await writer.publish(changes({ deletedChecks: [{ projectId: projects[3].id, uuid: duringLoss[0].uuid }] }));
    console.log(
      `  with the bucket's leader (${cluster.servers[leader].name}) stopped, writes acknowledged ${((Date.now() - started) / 1000).toFixed(1)} s after its loss`,
    );
    const live = watchers.filter((_, i) => !(i === 1 && leader === 2)); // watcher 2 is cut off when its own server is the one stopped
    const seconds = (list: number[]) => list.map((ms) => `${(ms / 1000).toFixed(1)} s`).join(", ");
    const followedMs = await Promise.all(
      live.map(async (w) => {
        await w.caughtUpTo(revision, 60_000);
        return Date.now() - started;
      }),
    );
    const late = await replicaOn(await connection((leader + 1) % 3), bucket);
    const lateMs = Date.now() - started;
    assertSameAnswers(pool, [...live, late], probes, "with the bucket's leader stopped");
    await cluster.restart(leader);
    const restartMs = Date.now() - started;
    await Promise.all(watchers.map((w) => w.caughtUpTo(revision, 60_000)));
    console.log(
      `  ... after the loss: watchers on other servers had those writes ${seconds(followedMs)} (watch restarted ${live.map((w) => w.stats().restarts - restartsBefore2[watchers.indexOf(w)]).join(", ")} times); ` +
        `a new watcher had read the bucket ${seconds([lateMs])}; the server was back ${seconds([restartMs])}, every watcher caught up ${seconds([Date.now() - started])}`,
    );
    assertSameAnswers(pool, watchers, probes, "after the leader's return");

    // the whole of NATS down and back: every connection comes back, the watches start again, nothing is missed
    const outageAt = Date.now();
    await Promise.all([0, 1, 2].map((i) => cluster.stop(i)));
    await Promise.all([0, 1, 2].map((i) => cluster.restart(i)));
    const backMs = Date.now() - outageAt;
    const afterOutage = await createBySlug(pool, projects[4], ["after-outage"], T0 + 600);
    for (const check of afterOutage) probes.check(check);
    const outageGone = (await pool.listChecks(projects[4].id, { tags: [] }))[1];
    assert.ok((await pool.deleteCheck(projects[4].id, outageGone.uuid, T0 + 601)).ok);
    revision = await writer.publish(
      changes({ checks: afterOutage, deletedChecks: [{ projectId: projects[4].id, uuid: outageGone.uuid }] }),
    );
    await Promise.all([...watchers, late].map((w) => w.caughtUpTo(revision, 60_000)));
    console.log(
      `  the whole of NATS stopped and started again: back after ${seconds([backMs])}; written to and followed by every watcher ${seconds([Date.now() - outageAt])} after the stop`,
    );
    assertSameAnswers(pool, [...watchers, late], probes, "after NATS was down and back");

    // every watch's consumer lost while the connections stay up (as when its server dies): the stalled
    // watches start again by themselves and follow the next writes
    const jsm = await managerOf(await connection(0));
    // after NATS came back a watch may still be between consumers: wait until each of the four has one
    let consumers = await jsm.consumers.list(`KV_${bucket}`).next();
    for (
      const until = Date.now() + 30_000;
      consumers.length < 4 && Date.now() < until;
      consumers = await jsm.consumers.list(`KV_${bucket}`).next()
    ) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.ok(consumers.length >= 4, `the watches' consumers: ${consumers.length}`);
    const restartsBefore3 = [...watchers, late].map((w) => w.stats().restarts);
    for (const consumer of consumers) {
      // a watch may have replaced its consumer since the listing (after NATS came back): gone either way
      await jsm.consumers.delete(`KV_${bucket}`, consumer.name).catch((error: unknown) => {
        if (!consumerNotFound(error)) throw error;
      });
    }
    const unwatched = await createBySlug(pool, projects[4], ["consumers-gone"], T0 + 700);
    for (const check of unwatched) probes.check(check);
    revision = await writer.publish(changes({ checks: unwatched }));
    await Promise.all([...watchers, late].map((w) => w.caughtUpTo(revision, 60_000)));
    assert.ok(
      [...watchers, late].every((w, i) => w.stats().restarts > restartsBefore3[i]),
      "each watch was started again",
    );
    assertSameAnswers(pool, [...watchers, late], probes, "after the consumers were lost");

    // entries outside the layout (another program's key, a value that is not a project) are left alone
    const ignoredBefore = watchers[0].stats().ignored;
    await kv.put("elsewhere.1", new Uint8Array([1]));
    await kv.put(`p.0.${randomUUID()}`, new TextEncoder().encode("{}"));
    await watchers[0].caughtUpTo(await writer.synced());
    assert.is(watchers[0].stats().ignored, ignoredBefore + 2);
    assertSameAnswers(pool, watchers, probes, "after entries outside the layout");

    for (const replica of [writer, ...watchers, late]) await replica.close();
  } finally {
    await pool.close();
    dir.remove();
  }
});

test(`a watcher started after ${MANY.toLocaleString("en")} checks were written catches up`, async () => {
  if (!HAVE_NATS) return;
  await cluster.ready();
  const dir = tempDir();
  const pool = await referencePool(dir.path);
  const probes = new Probes();
  const bucket = "dir-many";
  try {
    const writer = await replicaOn(await connection(0), bucket);
    const projects: Project[] = [];
    for (let i = 0; i < 4; i++) {
      const project = await pool.createProject({ name: `big ${i}`, checkLimit: MANY, pingLogLimit: 10, pingBodyLimit: 100 }, T0 + i);
      projects.push(project);
      probes.project(project);
      await writer.publish(changes({ projects: [project] }));
    }
    let madeMs = 0,
      publishMs = 0,
      revision = 0;
    for (const [i, project] of projects.entries()) {
      const slugs = Array.from({ length: MANY / projects.length }, (_, n) => `job-${i}-${n}`);
      for (let from = 0; from < slugs.length; from += 500) {
        let started = Date.now();
        const checks = await createBySlug(pool, project, slugs.slice(from, from + 500), T0 + 1_000);
        madeMs += Date.now() - started;
        for (const check of checks) probes.check(check);
        started = Date.now();
        revision = await writer.publish(changes({ checks }));
        publishMs += Date.now() - started;
      }
    }
    const deleted = (await pool.listChecks(projects[0].id, { tags: [] })).slice(0, 100);
    for (const check of deleted) assert.ok((await pool.deleteCheck(projects[0].id, check.uuid, T0 + 2_000)).ok);
    revision = await writer.publish(changes({ deletedChecks: deleted.map((c) => ({ projectId: c.projectId, uuid: c.uuid })) }));
    await writer.caughtUpTo(revision);
    assert.is(writer.checkCount, MANY - deleted.length);

    const started = Date.now();
    const late = await replicaOn(await connection(2), bucket);
    const catchUpMs = Date.now() - started;
    assert.ok(late.stats().revision >= revision);
    assert.is(late.checkCount, MANY - deleted.length);
    console.log(
      `  ${MANY} checks (4 projects) published in ${(publishMs / 1000).toFixed(2)} s (${Math.round(MANY / (publishMs / 1000))} puts/s, pipelined); ` +
        `made by the reference pool in ${(madeMs / 1000).toFixed(2)} s; a watcher started afterwards caught up in ${catchUpMs} ms ` +
        `(${late.stats().applied} entries applied, ${deleted.length} of them deletion markers)`,
    );
    assertSameAnswers(pool, [late], probes, "the late watcher");
    for (const replica of [writer, late]) await replica.close();
  } finally {
    await pool.close();
    dir.remove();
  }
});

test.run();
