import "../write-faults-on.ts"; // first: arms persistence/write-faults.ts (NODE_ENV) before the store's modules load
// The intake's own rules, on a real intake log and a real shard host in a temp DATA_DIR: the watermark
// (the earliest stamp whose write has not returned) while writes are in flight, drain(), the hand-off
// within HANDOFF_MS with no other request, and the write-failure episode (a failed write refuses the
// ping, a probe tries a real write, the episode ends on the first success, by a probe or a ping).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { inspect } from "node:util";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { createInProcessPool } from "../../app/pools.ts";
import { openShardHost } from "../../app/shard-setup.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import type { PingCommand } from "../../host/pool-api.ts";
import { PingIntake } from "../../host/ping-intake.ts";
import type { ShardHost } from "../../host/shard-host.ts";
import { isStoreUnavailable } from "../../host/write-failures.ts";
import { INTAKE_DIR } from "../../persistence/intake.ts";
import { setWriteFault } from "../../persistence/write-faults.ts";
import { tempDir } from "../helpers.ts";

const T0 = Date.UTC(2026, 0, 1);
const notify = { siteRoot: "http://localhost", allowPrivateIps: true, smtpUrl: null };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

const ping = (uuid: string, at: number): PingCommand => ({
  target: { uuid },
  signal: "success",
  exitStatus: null,
  method: "GET",
  scheme: "http",
  remoteAddr: "10.0.0.1",
  ua: "cron",
  rid: null,
  body: null,
  at,
});

type Setup = {
  dir: string;
  host: ShardHost;
  intake: PingIntake;
  projectId: string;
  uuid: string;
  nPings: () => Promise<number>;
  end: () => Promise<void>;
};

/** One shard host with a project and a check, and an intake in front of it (its trim never runs here). */
async function setUp(): Promise<Setup> {
  const dir = tempDir("hcd-ping-intake-");
  const pool = await createInProcessPool({ dataDir: dir.path, shards: 1, durability: "flush", startAt: T0, clock: "virtual", notify });
  const project = await pool.createProject({ name: "p", checkLimit: 10, pingLogLimit: 100, pingBodyLimit: 100 }, T0);
  const made = await pool.createCheck(project.id, { name: "c", timeoutMs: DAY, graceMs: HOUR }, [], T0);
  if (!made.ok) throw new Error("no check");
  await pool.close();
  const host = await openShardHost({
    dataDir: dir.path,
    durability: "flush",
    index: 0,
    count: 1,
    startAt: T0,
    clock: "virtual",
    notify,
    passive: true,
  });
  const intake = new PingIntake(dir.path, "flush", [{ apply: (request) => host.apply(request) }], { trimEveryMs: HOUR });
  const uuid = made.value.check.uuid,
    projectId = project.id;
  // read from the host itself: the intake's handles would hand it the waiting pings first
  const nPings = async () => {
    const check = await host.apply({ kind: "getCheck", projectId, ref: { uuid } });
    if (!check.ok) throw new Error("check gone");
    return check.value.nPings;
  };
  const end = async () => {
    await intake.close();
    await host.apply({ kind: "close" });
    dir.remove();
  };
  return { dir: dir.path, host, intake, projectId, uuid, nPings, end };
}

test("the watermark is the earliest stamp of the writes in flight, and is kept while another write of that stamp is", async () => {
  const { intake, projectId, uuid, end } = await setUp();
  try {
    assert.is(intake.earliestUnhandedAt(0), null, "no write in flight");
    // two writes of one stamp: the first returns while the second is still in flight (the log's first
    // group waits for its new segment file to open, and a group starts only once the one before returned)
    const first = intake.send(0, projectId, ping(uuid, T0 + 5 * MINUTE));
    await nextTurn(); // the log's group write of the first has begun: the second goes to the next group
    const second = intake.send(0, projectId, ping(uuid, T0 + 5 * MINUTE));
    await first;
    assert.is(intake.earliestUnhandedAt(0), T0 + 5 * MINUTE, "the second write of that stamp is still in flight");
    await second;
    assert.is(intake.earliestUnhandedAt(0), null, "none once their writes returned");

    const sends = [T0 + 8 * MINUTE, T0 + 6 * MINUTE, T0 + 7 * MINUTE].map((at) => intake.send(0, projectId, ping(uuid, at)));
    assert.is(intake.earliestUnhandedAt(0), T0 + 6 * MINUTE, "the earliest of three in flight, not the first or the last sent");
    await Promise.all(sends);
    assert.is(intake.earliestUnhandedAt(0), null);
  } finally {
    await end();
  }
});

test("drain() returns once every write made so far is written and handed to the shard", async () => {
  const { intake, projectId, uuid, nPings, end } = await setUp();
  try {
    const sent = [intake.send(0, projectId, ping(uuid, T0 + MINUTE)), intake.send(0, projectId, ping(uuid, T0 + 2 * MINUTE))];
    await intake.drain();
    assert.is(await nPings(), 2, "both pings applied by the shard when drain() returns");
    await Promise.all(sent);
  } finally {
    await end();
  }
});

test("an acknowledged ping reaches its shard with no other request to it (the hand-off timer)", async () => {
  const { intake, projectId, uuid, nPings, end } = await setUp();
  try {
    await intake.send(0, projectId, ping(uuid, T0 + MINUTE));
    const giveUpAt = Date.now() + 5_000;
    while ((await nPings()) !== 1) {
      if (Date.now() > giveUpAt) assert.unreachable("the ping never reached its shard");
      await sleep(10);
    }
  } finally {
    await end();
  }
});

/** The intake log's segments on disk, with their sizes and the times they were last written (changed by any write). */
const intakeFiles = (dir: string) =>
  readdirSync(join(dir, INTAKE_DIR))
    .filter((f) => f.endsWith(".log"))
    .map((f) => {
      const s = statSync(join(dir, INTAKE_DIR, f), { bigint: true });
      return `${f} ${s.size} ${s.mtimeNs}`;
    })
    .join("\n");

test("while intake writes fail a probe tries a real write and fails; once they succeed a probe ends the episode", async () => {
  const { dir, intake, projectId, uuid, end } = await setUp();
  try {
    await intake.send(0, projectId, ping(uuid, T0 + MINUTE));
    setWriteFault(join(dir, INTAKE_DIR), "EIO");
    const refused = await intake.send(0, projectId, ping(uuid, T0 + 2 * MINUTE)).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(isStoreUnavailable(refused), "the ping is refused");
    assert.ok(intake.failing);
    // probes are refused without a write until the retry delay passed; then one writes (the fault writes
    // half its bytes, so a segment is written to) and must fail
    const before = intakeFiles(dir);
    const giveUpAt = Date.now() + 10_000;
    while (intakeFiles(dir) === before) {
      if (Date.now() > giveUpAt) assert.unreachable("no probe tried a write");
      const probed = await intake.probe().then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(isStoreUnavailable(probed), `a probe fails while the log fails, not ${String(probed)}`);
      await sleep(50);
    }
    assert.ok(intake.failing, "still failing after the failed probe");

    setWriteFault(join(dir, INTAKE_DIR), null);
    let probed: unknown = "not yet";
    while (probed !== null) {
      if (Date.now() > giveUpAt + 20_000) assert.unreachable(`the probe never succeeded: ${inspect(probed)}`);
      probed = await intake.probe().then(
        () => null,
        (e: unknown) => e,
      );
      if (probed !== null) await sleep(50);
    }
    assert.not.ok(intake.failing, "a successful probe ends the episode");
  } finally {
    await end();
  }
});

test("once intake writes succeed again the first acknowledged ping ends the episode", async () => {
  const { dir, intake, projectId, uuid, end } = await setUp();
  try {
    setWriteFault(join(dir, INTAKE_DIR), "ENOSPC");
    const refused = await intake.send(0, projectId, ping(uuid, T0 + MINUTE)).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(isStoreUnavailable(refused), "the ping is refused");
    setWriteFault(join(dir, INTAKE_DIR), null);
    // pings are refused without a write until the retry delay passed
    const giveUpAt = Date.now() + 10_000;
    for (let n = 2; ; n++) {
      if (Date.now() > giveUpAt) assert.unreachable("no ping was taken again");
      const sent = await intake.send(0, projectId, ping(uuid, T0 + n * MINUTE)).then(
        () => null,
        (e: unknown) => e,
      );
      if (sent === null) break;
      assert.ok(isStoreUnavailable(sent), inspect(sent));
      await sleep(50);
    }
    assert.not.ok(intake.failing, "the acknowledged ping ended the episode");
  } finally {
    await end();
  }
});

test.run();
