// A store whose logs can't be read whole is refused at start with the file and offset; `hcd repair`
// moves the damage into DATA_DIR/damaged/ and reports what was lost; the next start keeps everything
// else. A torn tail (a crash mid-write) is still accepted as it is.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../../app/cli.ts";
import { createInProcessPool } from "../../app/pools.ts";
import type { PoolOptions } from "../../app/pools.ts";
import { DAY, MINUTE } from "../../engine/model.ts";
import type { PingCommand, Pool } from "../../host/pool-api.ts";
import { noChanges } from "../../engine/changes.ts";
import { frame, segmentName } from "../../persistence/file-log.ts";
import { openStore } from "../../persistence/store.ts";
import { encodeIntake, INTAKE_DIR, intakeShard, openIntakeLog } from "../../persistence/intake.ts";
import { check, tempDir } from "../helpers.ts";
import { startRefused } from "./server-process.ts";

const T0 = Date.UTC(2026, 0, 1);
const HEADER = 16;

function options(dataDir: string): PoolOptions {
  return {
    dataDir,
    shards: 1,
    durability: "flush",
    startAt: T0 + DAY,
    clock: "virtual",
    notify: { siteRoot: "http://localhost", allowPrivateIps: true, smtpUrl: null },
  };
}

/** A project with one check, stored and closed; then `count` pings of it left in an intake log as a killed front end leaves it. Returns the ids and the intake file. */
async function storeWithIntake(dataDir: string, count: number): Promise<{ projectId: string; uuid: string; rids: string[]; file: string }> {
  const pool = await createInProcessPool(options(dataDir));
  const project = await pool.createProject({ name: "p", checkLimit: 10, pingLogLimit: 100, pingBodyLimit: 100 }, T0);
  const created = await pool.createCheck(project.id, { name: "nightly" }, [], T0);
  if (!created.ok) throw new Error("no check");
  await pool.close();
  const uuid = created.value.check.uuid;
  const rids = Array.from({ length: count }, () => randomUUID());
  const writer = randomUUID();
  const log = openIntakeLog(dataDir, writer, true);
  for (const [i, rid] of rids.entries()) {
    const command: PingCommand = {
      target: { uuid },
      signal: "success",
      exitStatus: null,
      method: "POST",
      scheme: "http",
      remoteAddr: "10.0.0.1",
      ua: "test",
      rid,
      body: new TextEncoder().encode(`run ${i}`),
      at: T0 + (i + 1) * MINUTE,
    };
    await log.append([encodeIntake({ shard: intakeShard(0, 1), projectId: project.id, command })]);
  }
  await log.close(0); // every file kept, as a kill leaves them
  // named as a process of another boot wrote it: a gone process, whose log any start replays
  const file = join(dataDir, INTAKE_DIR, segmentName("1-1-0", writer, 1));
  for (const name of readdirSync(join(dataDir, INTAKE_DIR))) renameSync(join(dataDir, INTAKE_DIR, name), file);
  return { projectId: project.id, uuid, rids, file };
}

/** Returns the byte offset of frame `index` (0-based) of a segment file, from the frames' length fields. */
function frameOffset(file: string, index: number): number {
  const bytes = readFileSync(file);
  let offset = 0;
  for (let i = 0; i < index; i++) offset += HEADER + bytes.readUInt32LE(offset);
  return offset;
}

async function rids(pool: Pool, projectId: string, uuid: string): Promise<string[]> {
  const page = await pool.listPings(projectId, uuid);
  if (!page.ok) throw new Error("no ping log");
  return page.value.pings.map((p) => p.rid ?? "").reverse();
}

/** Runs the CLI in this process; returns its exit status and what it printed. */
async function hcdHere(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const out: string[] = [],
    errors: string[] = [];
  const [log, error] = [console.log, console.error];
  console.log = (text: string) => out.push(text);
  console.error = (text: string) => errors.push(text);
  try {
    return { status: await runCli(args, {}), stdout: out.join("\n"), stderr: errors.join("\n") };
  } finally {
    [console.log, console.error] = [log, error];
  }
}

test("a byte flipped mid-segment: the server refuses to start naming file and offset; repair moves it aside and reports; the restart keeps the rest", async () => {
  const dir = tempDir();
  try {
    const { projectId, uuid, rids: sent, file } = await storeWithIntake(dir.path, 20);
    const size = statSync(file).size;
    const offset = frameOffset(file, 9); // the tenth ping
    const bytes = readFileSync(file);
    bytes[offset + HEADER + 3] ^= 0x55;
    writeFileSync(file, bytes);

    const refused = await startRefused(dir.path);
    assert.is(refused.status, 1, refused.output);
    assert.ok(refused.output.includes(file), refused.output);
    assert.ok(refused.output.includes(`offset ${offset}`), refused.output);
    assert.match(refused.output, /hcd repair/, refused.output);

    const repair = await hcdHere(["repair", "--data-dir", dir.path]);
    assert.is(repair.status, 0, repair.stderr);
    const report = JSON.parse(repair.stdout) as {
      damaged: { file: string; offset: number; bytes: number; records_lost: number; records_kept: number; moved_to: string }[];
    };
    assert.is(report.damaged.length, 1);
    const [moved] = report.damaged;
    assert.equal([moved.file, moved.offset, moved.bytes, moved.records_lost, moved.records_kept], [file, offset, size - offset, 11, 9]);
    assert.ok(moved.moved_to.startsWith(join(dir.path, "damaged") + "/"), moved.moved_to);
    assert.equal(readFileSync(moved.moved_to), bytes, "the damaged file is kept whole, aside");

    const pool = await createInProcessPool(options(dir.path));
    try {
      assert.equal(await rids(pool, projectId, uuid), sent.slice(0, 9), "the pings before the damage are kept");
    } finally {
      await pool.close();
    }
    const again = await hcdHere(["repair", "--data-dir", dir.path]);
    assert.equal(JSON.parse(again.stdout).damaged, [], "nothing left to repair");
  } finally {
    dir.remove();
  }
});

test("a segment that does not read (a directory in its place): opening refuses it; repair moves it aside; the store opens", async () => {
  const dir = tempDir();
  try {
    const { projectId, uuid } = await storeWithIntake(dir.path, 0);
    const name = segmentName("1-1-0", randomUUID(), 1);
    const path = join(dir.path, "log", name);
    mkdirSync(path);
    const error = await createInProcessPool(options(dir.path)).then(
      () => null,
      (e: unknown) => e as Error,
    );
    assert.ok(error !== null, "opening must refuse it");
    assert.ok(error.message.includes(path) && error.message.includes("EISDIR"), error.message);

    const repair = await hcdHere(["repair", "--data-dir", dir.path]);
    assert.is(repair.status, 0, repair.stderr);
    const [moved] = (JSON.parse(repair.stdout) as { damaged: { file: string; offset: null; records_lost: null; moved_to: string }[] })
      .damaged;
    assert.equal([moved.file, moved.offset, moved.records_lost], [path, null, null]);
    assert.not.ok(existsSync(path));
    assert.ok(statSync(moved.moved_to).isDirectory());

    const pool = await createInProcessPool(options(dir.path));
    try {
      assert.equal(await rids(pool, projectId, uuid), []);
    } finally {
      await pool.close();
    }
  } finally {
    dir.remove();
  }
});

test("a command log whose records that don't read are all in the tables opens; the same bytes of a writer the tables don't hold are refused", async () => {
  const dir = tempDir();
  const crashed = await openStore(dir.path, { durability: "commit" });
  try {
    await crashed.commit({ ...noChanges(), checks: [check()] });
    await crashed.checkpoint(); // in the tables: its writer's mark is 1; no close, as after kill -9
    const [written] = readdirSync(join(dir.path, "log"));
    const writer = written.split("_")[1];
    rmSync(join(dir.path, "log", written)); // gone, as a checkpoint lets a segment the tables hold go
    // a reused spare whose first write was torn: a cut frame, the rest of its zeroed page, its old record 1
    const torn = frame(2, new TextEncoder().encode("new")).subarray(0, 10);
    const spare = Buffer.concat([torn, Buffer.alloc(4096 - torn.length), frame(1, new TextEncoder().encode("old"))]);
    writeFileSync(join(dir.path, "log", segmentName("1-1-0", writer, 9)), spare);
    await (await openStore(dir.path, { durability: "commit" })).close();

    const stranger = join(dir.path, "log", segmentName("1-1-0", randomUUID(), 1));
    writeFileSync(stranger, spare);
    const error = await openStore(dir.path, { durability: "commit" }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    assert.ok(error?.message.includes(`${stranger} is damaged at offset 0`), error?.message ?? "opened");
  } finally {
    await crashed.close();
    dir.remove();
  }
});

test("a torn tail of the newest segment is accepted as before: the pings before it are applied", async () => {
  const dir = tempDir();
  try {
    const { projectId, uuid, rids: sent, file } = await storeWithIntake(dir.path, 5);
    truncateSync(file, statSync(file).size - 3);
    const pool = await createInProcessPool(options(dir.path));
    try {
      assert.equal(await rids(pool, projectId, uuid), sent.slice(0, 4));
    } finally {
      await pool.close();
    }
  } finally {
    dir.remove();
  }
});

test.run();
