// The replay of intake logs a crash left (host/shard-host.ts #replayIntake): a shard host applies the pings
// of its own projects only, and only those its commits do not hold yet, under the shard the record names or
// under its own (SHARDS may have changed between the write and the replay). Real stores in temp dirs; the
// intake log is written as a front end writes it.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { randomUUID } from "node:crypto";
import { HOUR, MINUTE } from "../../engine/model.ts";
import type { PingCommand } from "../../engine/commands.ts";
import { shardOf } from "../../host/routing.ts";
import { ShardHost } from "../../host/shard-host.ts";
import { encodeIntake, intakeShard, openIntakeLog } from "../../persistence/intake.ts";
import { pingOf, scenarioProject } from "../../bench/scenarios.ts";
import { tempDir } from "../helpers.ts";

const T0 = Date.UTC(2026, 0, 1);
const WRITER = "front-1";

const openHost = (dataDir: string, index: number, count: number, intakeLeft: readonly string[] = []) =>
  ShardHost.open({ dataDir, durability: "flush", index, count, startAt: T0, newId: randomUUID, applyMissedDeadlines: false, intakeLeft });

/** The first project id routed to shard `index` of `count`. */
function projectOf(index: number, count: number): string {
  for (let n = 0; n < 100; n++) if (shardOf(`p${n}`, count) === index) return `p${n}`;
  throw new Error("no project for the shard");
}

async function withCheck(host: ShardHost, projectId: string): Promise<string> {
  await host.apply({ kind: "createProject", project: scenarioProject(projectId), at: T0 });
  const made = await host.apply({
    kind: "createCheck",
    projectId,
    spec: { name: "c", timeoutMs: HOUR, graceMs: MINUTE },
    unique: [],
    at: T0,
  });
  if (!made.ok) throw new Error("no check");
  return made.value.check.uuid;
}

/** Writes intake records (the shard each names, its project, its ping) to log WRITER; returns their positions. */
async function writeIntake(dataDir: string, records: readonly (readonly [string, string, PingCommand])[]): Promise<number[]> {
  const log = openIntakeLog(dataDir, WRITER, true);
  const positions = await log.append(records.map(([shard, projectId, command]) => encodeIntake({ shard, projectId, command })));
  await log.close(0); // keeps every segment
  return positions;
}

async function nPings(host: ShardHost, projectId: string, uuid: string): Promise<number> {
  const check = await host.apply({ kind: "getCheck", projectId, ref: { uuid } });
  if (!check.ok) throw new Error("check gone");
  return check.value.nPings;
}

test("a replay applies this shard's pings only, and a second replay none of those the first committed", async () => {
  const dir = tempDir();
  try {
    const mine = projectOf(0, 2),
      theirs = projectOf(1, 2);
    let host = await openHost(dir.path, 0, 2);
    const uuid = await withCheck(host, mine);
    await host.close();
    const positions = await writeIntake(dir.path, [
      [intakeShard(0, 2), mine, pingOf({ uuid }, T0 + MINUTE)],
      [intakeShard(1, 2), theirs, pingOf({ uuid: randomUUID() }, T0 + 2 * MINUTE)],
    ]);

    host = await openHost(dir.path, 0, 2, [WRITER]);
    assert.is(await nPings(host, mine, uuid), 1);
    await host.checkpoint();
    assert.is(
      host.store().intakeMark(WRITER, intakeShard(0, 2)),
      positions[0],
      "the mark reaches this shard's ping, not the other shard's after it",
    );
    await host.close();

    host = await openHost(dir.path, 0, 2, [WRITER]);
    assert.is(await nPings(host, mine, uuid), 1, "the ping the first replay committed is not applied again");
    await host.close();
  } finally {
    dir.remove();
  }
});

test("a ping at exactly the mark this shard committed under its own name is not applied again (written when SHARDS differed)", async () => {
  const dir = tempDir();
  try {
    const projectId = projectOf(1, 2); // shard 1 of 2 when written; shard 0 of 1 now
    let host = await openHost(dir.path, 0, 1);
    const uuid = await withCheck(host, projectId);
    await host.close();
    await writeIntake(dir.path, [
      [intakeShard(1, 2), projectId, pingOf({ uuid }, T0 + MINUTE)],
      [intakeShard(1, 2), projectId, pingOf({ uuid }, T0 + 2 * MINUTE)],
    ]);

    host = await openHost(dir.path, 0, 1, [WRITER]);
    assert.is(await nPings(host, projectId, uuid), 2, "both pings replayed");
    await host.close();
    host = await openHost(dir.path, 0, 1, [WRITER]);
    assert.is(await nPings(host, projectId, uuid), 2, "neither replayed again: the last is at the mark of shard 0/1");
    await host.close();
  } finally {
    dir.remove();
  }
});

test.run();
