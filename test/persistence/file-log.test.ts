// The command log on plain files: framing, the reader's stop at a torn or corrupt tail, grouped appends,
// segments that go once checkpointed, and which process's files an open may remove.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, readdirSync, readFileSync, renameSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileLog, frame, readSegments, segmentFiles, spareFiles, unframe } from "../../persistence/file-log.ts";
import { isRunning, ownIdentity } from "../../persistence/process-identity.ts";
import { openStore } from "../../persistence/store.ts";
import { noChanges } from "../../engine/changes.ts";
import { check, ping, project, tempDir } from "../helpers.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const texts = (records: { bytes: Uint8Array }[]) => records.map((r) => new TextDecoder().decode(r.bytes));

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

test("appends resolve with growing positions and read back in order, from any position", async () => {
  const dir = tempDir();
  try {
    const log = new FileLog(dir.path, "w1", { sync: true });
    const first = log.append([bytes("a"), bytes("b")]);
    const second = log.append([bytes("c")]); // same turn: the same group
    assert.equal(await first, [1, 2]);
    assert.equal(await second, [3]);
    assert.equal(await log.append([bytes("d")]), [4]);
    assert.equal(texts(await collect(log.readFrom(1))), ["a", "b", "c", "d"]);
    assert.equal(
      (await collect(log.readFrom(3))).map((r) => r.position),
      [3, 4],
    );
    assert.is(segmentFiles(dir.path).length, 1);
    assert.ok(await log.close(5), "all below 5: removed");
    assert.equal(readdirSync(dir.path), []);
  } finally {
    dir.remove();
  }
});

test("the reader stops at a torn tail, a corrupt frame, or a frame whose position does not grow", () => {
  const whole = Buffer.concat([frame(1, bytes("one")), frame(2, bytes("two")), frame(3, bytes("three"))]);
  assert.equal(texts(unframe(whole)), ["one", "two", "three"]);
  assert.equal(texts(unframe(whole.subarray(0, whole.length - 2))), ["one", "two"], "torn in the last frame");
  const corrupt = Buffer.from(whole);
  corrupt[frame(1, bytes("one")).length + 17] ^= 0xff; // a byte of the second record
  assert.equal(texts(unframe(corrupt)), ["one"]);
  assert.equal(
    texts(unframe(Buffer.concat([frame(5, bytes("new")), frame(3, bytes("stale"))]))),
    ["new"],
    "an older frame after a newer one",
  );
  assert.equal(texts(unframe(Buffer.concat([frame(1, bytes("x")), Buffer.alloc(40)]))), ["x"], "zeros after the end");
});

test("a new segment starts after roll(); truncateBelow removes the older ones the tables hold, never the current", async () => {
  const dir = tempDir();
  try {
    const log = new FileLog(dir.path, "w2", { sync: false });
    await log.append([bytes("1"), bytes("2")]);
    log.roll();
    await log.append([bytes("3")]);
    log.roll();
    await log.append([bytes("4")]);
    assert.is(segmentFiles(dir.path).length, 3);
    await log.truncateBelow(3); // the first segment (1, 2) only
    assert.equal(
      segmentFiles(dir.path).map((s) => s.segment),
      [2, 3],
    );
    assert.equal(texts(await collect(log.readFrom(0))), ["3", "4"]);
    await log.truncateBelow(100); // the current segment stays
    assert.equal(
      segmentFiles(dir.path).map((s) => s.segment),
      [3],
    );
    assert.is(await log.close(4), false, "4 is not below 4: kept");
    assert.equal(texts(readSegments(dir.path, segmentFiles(dir.path))), ["4"]);
  } finally {
    dir.remove();
  }
});

test("a segment the tables hold becomes the spare, the next segment is written over it, and a reader stops at its old records", async () => {
  const dir = tempDir();
  try {
    const log = new FileLog(dir.path, "w3", { sync: true });
    const long = (c: string) => bytes(c.repeat(3_000)); // three frames past the spare's zeroed first page
    await log.append([long("a"), long("b"), long("c")]);
    log.roll();
    await log.append([bytes("d")]);
    const [first] = segmentFiles(dir.path);
    const firstInode = statSync(join(dir.path, first.name)).ino,
      firstSize = statSync(join(dir.path, first.name)).size;
    await log.truncateBelow(4); // the first segment (1-3) is held by the tables
    assert.equal(
      segmentFiles(dir.path).map((s) => s.segment),
      [2],
    );
    const [spare] = spareFiles(dir.path);
    assert.ok(spare !== undefined, "the segment that went is the spare");
    assert.is(statSync(join(dir.path, spare.name)).ino, firstInode);
    // alone, with no position before it, its old records would read as records skipped: a spare is never read as a segment
    assert.equal(unframe(readFileSync(join(dir.path, spare.name))), [], "a spare reads as no record (its first page is zeroed)");
    log.roll();
    assert.equal(await log.append([bytes("e")]), [5]);
    assert.equal(spareFiles(dir.path), [], "the spare became the next segment");
    const files = segmentFiles(dir.path);
    assert.equal(
      files.map((s) => s.segment),
      [2, 3],
    );
    const third = join(dir.path, files[1].name);
    assert.is(statSync(third).ino, firstInode, "written over the spare");
    assert.is(statSync(third).size, firstSize, "in its existing size: the old records are still behind the new one");
    assert.equal(texts(readSegments(dir.path, files)), ["d", "e"], "the reader stops at the first old record");
    assert.equal(texts(await collect(log.readFrom(0))), ["d", "e"]);
    assert.ok(await log.close(6));
    assert.equal(readdirSync(dir.path), [], "closing removes the segments and any spare");
  } finally {
    dir.remove();
  }
});

test("this process is running; an identity of another boot or a gone process is not", () => {
  const own = ownIdentity();
  assert.ok(isRunning(own));
  const [pid, start, boot] = own.split("-");
  assert.is(isRunning(`${pid}-${Number(start) + 1}-${boot}`), false, "same pid, another start: a reused pid");
  assert.is(isRunning(`${pid}-${start}-0`), false, "another boot");
  assert.is(isRunning(`0-0-0`), false);
});

test("an open replays every log; it removes a crashed process's files once the tables hold them, and keeps a running writer's", async () => {
  const dir = tempDir();
  try {
    const owner = project();
    const crashedCheck = check({ projectId: owner.id, name: "crashed" }),
      liveCheck = check({ projectId: owner.id, name: "live" });
    const crashed = await openStore(dir.path, { durability: "flush" });
    await crashed.commit({
      ...noChanges(),
      projects: [owner],
      checks: [crashedCheck],
      pings: [{ projectId: owner.id, checkUuid: crashedCheck.uuid, record: ping({ n: 1 }), body: null, keep: 10 }],
    });
    // no close (a kill -9): its file is named as a process that is gone
    const logDir = join(dir.path, "log");
    const [file] = segmentFiles(logDir);
    renameSync(join(logDir, file.name), join(logDir, file.name.replace(file.identity, "0-0-0")));
    const crashedSpare = join(logDir, "0-0-0_crashed-writer_spare.log");
    writeFileSync(crashedSpare, new Uint8Array(4096)); // a crashed writer's spare
    const live = await openStore(dir.path, { durability: "flush" });
    await live.commit({ ...noChanges(), checks: [liveCheck] }); // a running writer of this process
    const reopened = await openStore(dir.path, { durability: "flush" });
    assert.equal(
      reopened
        .loadChecks(owner.id)
        .map((c) => c.name)
        .sort(),
      ["crashed", "live"],
    );
    assert.equal(
      reopened.pingPage(crashedCheck.uuid, 5).map((r) => r.n),
      [1],
    );
    await reopened.close();
    const left = segmentFiles(logDir);
    assert.equal(
      left.map((s) => s.identity),
      [ownIdentity()],
      "the crashed file went, the live writer's stayed",
    );
    assert.is(existsSync(crashedSpare), false, "the crashed writer's spare went with its log");
    assert.ok(readFileSync(join(logDir, left[0].name)).length > 0);
    await live.close();
    assert.equal(segmentFiles(logDir), [], "a writer removes its own log as it closes");
  } finally {
    dir.remove();
  }
});

test("a log file with garbage after its last whole frame (a torn write) is replayed up to it", async () => {
  const dir = tempDir();
  try {
    const owner = project();
    const a = check({ projectId: owner.id, name: "a" }),
      b = check({ projectId: owner.id, name: "b" });
    const store = await openStore(dir.path, { durability: "flush" });
    await store.commit({ ...noChanges(), projects: [owner], checks: [a] });
    await store.commit({ ...noChanges(), checks: [b] });
    const logDir = join(dir.path, "log");
    const [file] = segmentFiles(logDir);
    const path = join(logDir, file.name);
    const size = readFileSync(path).length;
    truncateSync(path, size - 3); // the second commit's frame, cut short
    writeFileSync(join(logDir, file.name.replace(file.identity, "0-0-0")), readFileSync(path));
    const reopened = await openStore(dir.path, { durability: "flush" });
    assert.equal(
      reopened.loadChecks(owner.id).map((c) => c.name),
      ["a"],
    );
    await reopened.close();
    await store.close().catch(() => {});
  } finally {
    dir.remove();
  }
});

test.run();
