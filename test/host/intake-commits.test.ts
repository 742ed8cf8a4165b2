import "../write-faults-on.ts"; // first: arms persistence/write-faults.ts before the store's modules load
// When a shard host commits the pings its intake hands it (host/shard-host.ts #intakePings .. #commitIntake):
// a batch that queued a notification at once, others within the intake delay (or with the next commit),
// a read of the ping log first, unless commits are failing (then neither a read nor a backup is a change
// refused); each applied ping moves the host's clock and the check's version. Real shard hosts on real
// stores in temp dirs; intake batches are built from records as the intake log writes them.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { HOUR, MINUTE } from "../../engine/model.ts";
import type { PingCommand } from "../../engine/commands.ts";
import { isStoreUnavailable } from "../../host/write-failures.ts";
import { ShardHost, type ShardHostOptions } from "../../host/shard-host.ts";
import type { IntakeBatch } from "../../host/shard-requests.ts";
import { encodeIntake, intakeShard } from "../../persistence/intake.ts";
import { LOG_DIR } from "../../persistence/open.ts";
import { setWriteFault } from "../../persistence/write-faults.ts";
import { pingOf, scenarioProject } from "../../bench/scenarios.ts";
import { tempDir, until } from "../helpers.ts";

const T0 = Date.UTC(2026, 0, 1);
const WRITER = "front-1";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An intake batch of `pings` (project, command) at positions from `first` on, for shard `index` of `count`. */
function batchOf(first: number, pings: readonly (readonly [string, PingCommand])[], index = 0, count = 1): IntakeBatch {
  const records = pings.map(([projectId, command]) => encodeIntake({ shard: intakeShard(index, count), projectId, command }));
  const bytes = new Uint8Array(records.reduce((n, r) => n + r.length, 0));
  const ends: number[] = [];
  let end = 0;
  for (const record of records) {
    bytes.set(record, end);
    end += record.length;
    ends.push(end);
  }
  return { positions: pings.map((_, i) => first + i), ends, bytes };
}

/** A project with a check notifying an email channel, made on `host`. */
async function projectWithCheck(host: ShardHost, projectId: string): Promise<string> {
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
  return made.value.check.uuid;
}

async function setUp(extra: Partial<ShardHostOptions> = {}) {
  const dir = tempDir();
  const options = {
    dataDir: dir.path,
    durability: "flush",
    index: 0,
    count: 1,
    startAt: T0,
    newId: randomUUID,
    applyMissedDeadlines: false,
    ...extra,
  } as const;
  const host = await ShardHost.open(options);
  const projectId = "p0";
  const uuid = await projectWithCheck(host, projectId);
  const commits = () => host.counters.commitSeconds.count;
  const base = commits();
  const woken: number[] = [];
  host.onOutbox = (at) => {
    woken.push(at);
  };
  /** Resolves once `n` commits were made since the set-up (fails after a long wait). */
  const commitsReach = (n: number) => until(`${n} commits`, () => commits() - base >= n);
  const nPings = async () => {
    const check = await host.apply({ kind: "getCheck", projectId, ref: { uuid } });
    if (!check.ok) throw new Error("check gone");
    return check.value.nPings;
  };
  const end = async () => {
    await host.close();
    dir.remove();
  };
  return { dir: dir.path, options, host, projectId, uuid, commits: () => commits() - base, commitsReach, woken, nPings, end };
}

test("pings that queue no notification are committed within the intake delay, with no other request", async () => {
  const { host, projectId, uuid, commits, commitsReach, end } = await setUp({ intakeCommitMs: 20 });
  try {
    await host.apply({
      kind: "intakePings",
      writer: WRITER,
      batch: batchOf(1, [
        [projectId, pingOf({ uuid }, T0 + MINUTE)],
        [projectId, pingOf({ uuid }, T0 + 2 * MINUTE)],
      ]),
    });
    await commitsReach(1);
    const page = await host.apply({ kind: "listPings", projectId, uuid, pingLogLimit: 100 });
    assert.ok(page.ok);
    assert.is(page.value.pings.length, 2, "both pings of the batch, in the one commit");
    assert.is(commits(), 1, "the read found nothing left to commit");
    assert.is(await host.apply({ kind: "commitIntake", writer: WRITER }), null, "every ping handed over is in the shard's log");
  } finally {
    await end();
  }
});

test("a batch that queues a notification is committed at once, even after a batch waiting for the intake delay", async () => {
  const { host, projectId, uuid, commitsReach, woken, end } = await setUp({ intakeCommitMs: HOUR });
  try {
    await host.apply({ kind: "intakePings", writer: WRITER, batch: batchOf(1, [[projectId, pingOf({ uuid }, T0 + MINUTE)]]) });
    await host.apply({
      kind: "intakePings",
      writer: WRITER,
      batch: batchOf(2, [[projectId, pingOf({ uuid }, T0 + 2 * MINUTE, { signal: "fail" })]]),
    });
    await commitsReach(1);
    assert.equal(woken, [T0 + 2 * MINUTE], "the deliverer is woken at the failing ping's time");
    // a notifying batch, then at once one that notifies nothing: the commit set to come at once stays so
    await host.apply({ kind: "intakePings", writer: WRITER, batch: batchOf(3, [[projectId, pingOf({ uuid }, T0 + 3 * MINUTE)]]) });
    await host.apply({ kind: "intakePings", writer: WRITER, batch: batchOf(4, [[projectId, pingOf({ uuid }, T0 + 4 * MINUTE)]]) });
    await commitsReach(2);
    assert.equal(woken, [T0 + 2 * MINUTE, T0 + 4 * MINUTE]);
  } finally {
    await end();
  }
});

test("a batch that queues no notification is not committed at once: the next change's commit takes it along", async () => {
  const { host, projectId, uuid, commits, nPings, end } = await setUp({ intakeCommitMs: HOUR });
  try {
    await host.apply({ kind: "intakePings", writer: WRITER, batch: batchOf(1, [[projectId, pingOf({ uuid }, T0 + MINUTE)]]) });
    await sleep(1); // a timer set now fires after one the batch set to commit at once
    const renamed = await host.apply({ kind: "updateCheck", projectId, uuid, spec: { name: "renamed" }, at: T0 + 2 * MINUTE });
    assert.ok(renamed.ok);
    assert.is(commits(), 1, "one commit holds the ping and the change");
    assert.is(await host.apply({ kind: "commitIntake", writer: WRITER }), null, "the ping is in the shard's log");
    assert.is(await nPings(), 1);
  } finally {
    await end();
  }
});

test("an applied intake ping moves the check's version; a ping of a check gone changes nothing and the batch goes on", async () => {
  const { host, projectId, uuid, nPings, end } = await setUp({ intakeCommitMs: HOUR });
  try {
    const before = (await host.apply({ kind: "checksSince", projectId, since: null })).version; // from now on readers may ask what changed since
    await host.apply({
      kind: "intakePings",
      writer: WRITER,
      batch: batchOf(1, [[projectId, pingOf({ uuid: randomUUID() }, T0 + MINUTE)]]),
    });
    assert.is(await host.apply({ kind: "projectVersion", projectId }), before, "no check of the project changed");
    await host.apply({
      kind: "intakePings",
      writer: WRITER,
      batch: batchOf(2, [
        [projectId, pingOf({ uuid: randomUUID() }, T0 + MINUTE)],
        [projectId, pingOf({ uuid }, T0 + 2 * MINUTE)],
      ]),
    });
    assert.is.not(await host.apply({ kind: "projectVersion", projectId }), before, "the pinged check changed");
    const since = await host.apply({ kind: "checksSince", projectId, since: before });
    assert.is(since.whole, false);
    assert.equal(
      since.checks.map((c) => c.uuid),
      [uuid],
      "readers asking since the old version see the check",
    );
    assert.is(await nPings(), 1, "the ping after the one of a check gone was applied");
  } finally {
    await end();
  }
});

test("batches coming one after another do not put off the commit of the first past the intake delay", async () => {
  const { host, projectId, uuid, commits, end } = await setUp({ intakeCommitMs: 100 });
  try {
    // a batch every few milliseconds, until a commit holds what came so far (each one re-arming the delay never would)
    const giveUpAt = Date.now() + 10_000;
    for (let position = 1; commits() === 0; position++) {
      if (Date.now() > giveUpAt) assert.unreachable("no commit while batches kept coming");
      await host.apply({
        kind: "intakePings",
        writer: WRITER,
        batch: batchOf(position, [[projectId, pingOf({ uuid }, T0 + position * 1000)]]),
      });
      await sleep(5);
    }
  } finally {
    await end();
  }
});

test("a backup may begin while commits fail when no intake ping waits: holding checkpoints is not a change refused", async () => {
  const { dir, host, projectId, uuid, end } = await setUp({ intakeCommitMs: HOUR });
  try {
    setWriteFault(join(dir, LOG_DIR), "EIO");
    const failed = await host.apply({ kind: "updateCheck", projectId, uuid, spec: { name: "renamed" }, at: T0 + MINUTE }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(isStoreUnavailable(failed), "the commit fails: commits are failing from now on");
    await host.apply({ kind: "holdCheckpoints" });
    await host.apply({ kind: "releaseCheckpoints" });
  } finally {
    setWriteFault(join(dir, LOG_DIR), null);
    await end();
  }
});

test("while commits fail a read answers from the store and commits no intake ping: it is not counted as a change refused", async () => {
  const { dir, host, projectId, uuid, end } = await setUp({ intakeCommitMs: HOUR });
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = (chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  };
  try {
    setWriteFault(join(dir, LOG_DIR), "EIO");
    const failed = await host.apply({ kind: "updateCheck", projectId, uuid, spec: { name: "renamed" }, at: T0 + MINUTE }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(isStoreUnavailable(failed), "the commit fails: commits are failing from now on");
    await host.apply({ kind: "intakePings", writer: WRITER, batch: batchOf(1, [[projectId, pingOf({ uuid }, T0 + 2 * MINUTE)]]) });
    const page = await host.apply({ kind: "listPings", projectId, uuid, pingLogLimit: 100 });
    assert.ok(page.ok);
    assert.is(page.value.pings.length, 0, "the ping log as the store holds it");
    assert.is(await host.apply({ kind: "commitIntake", writer: WRITER }), 1, "the ping handed over is not in the shard's log yet");
    setWriteFault(join(dir, LOG_DIR), null);
    await until("writes accepted again", () => lines.some((l) => l.includes("the store accepts writes again")), 20_000);
    assert.match(
      lines.find((l) => l.includes("the store accepts writes again"))!,
      /\(0 changes refused meanwhile\)/,
    );
  } finally {
    process.stderr.write = write;
    setWriteFault(join(dir, LOG_DIR), null);
    await end();
  }
});

test.run();
