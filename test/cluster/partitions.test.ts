// Projects map to partitions by a stable hash: the same id gives the same partition in every process
// (fixed values below, computed once), every partition is in range, and uuid-shaped ids spread evenly.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { DEFAULT_PARTITION_COUNT, partitionOf } from "../../cluster/partitions.ts";
import { fnv1a32, shardOf } from "../../host/routing.ts";

test("FNV-1a matches the published test vectors", () => {
  assert.is(fnv1a32(""), 0x811c9dc5);
  assert.is(fnv1a32("a"), 0xe40c292c);
  assert.is(fnv1a32("foobar"), 0xbf9cf968);
});

test("the same project id always gives the same partition (fixed values, not just self-consistency)", () => {
  const table: [string, number, number][] = [
    ["00000000-0000-4000-8000-000000000001", 64, fnv1a32("00000000-0000-4000-8000-000000000001") % 64],
    ["a", 64, 0xe40c292c % 64],
    ["foobar", 16, 0xbf9cf968 % 16],
  ];
  for (const [id, count, expected] of table) assert.is(partitionOf(id, count), expected, id);
  assert.is(partitionOf("a"), 0xe40c292c % DEFAULT_PARTITION_COUNT, "the default count is used when none is given");
});

test("non-ASCII ids hash their UTF-8 bytes", () => {
  // "é" is the two bytes c3 a9 in UTF-8; hashing UTF-16 code units would give a different value
  let hash = 0x811c9dc5;
  for (const byte of [0xc3, 0xa9]) hash = Math.imul(hash ^ byte, 0x01000193);
  assert.is(fnv1a32("é"), hash >>> 0);
});

test("a single node's shards and a cluster's partitions route by one hash, ASCII and not", () => {
  for (const id of ["00000000-0000-4000-8000-000000000001", "foobar", "é", "Ünïcode ☃"]) {
    for (const count of [1, 2, 7, 64]) assert.is(shardOf(id, count), partitionOf(id, count), `${id} over ${count}`);
  }
  // "☃" is the three bytes e2 98 83 in UTF-8 (its UTF-16 code unit is 0x2603)
  let hash = 0x811c9dc5;
  for (const byte of [0xe2, 0x98, 0x83]) hash = Math.imul(hash ^ byte, 0x01000193);
  assert.is(shardOf("☃", 1000), (hash >>> 0) % 1000);
});

test("uuid-shaped ids spread evenly over 64 partitions", () => {
  const counts = new Array<number>(64).fill(0);
  const ids = 64_000;
  for (let i = 0; i < ids; i++) {
    // deterministic, uuid-shaped, varied in the high and low digits like real v4 ids
    const hex = (Math.imul(i, 2654435761) >>> 0).toString(16).padStart(8, "0");
    const id = `${hex}-${(i & 0xffff).toString(16).padStart(4, "0")}-4000-8000-${i.toString(16).padStart(12, "0")}`;
    const p = partitionOf(id, 64);
    assert.ok(p >= 0 && p < 64 && Number.isInteger(p));
    counts[p] += 1;
  }
  const mean = ids / 64;
  assert.ok(Math.min(...counts) > mean * 0.85 && Math.max(...counts) < mean * 1.15, `counts ${counts.join(",")}`);
});

test("a count that is not a positive integer is refused", () => {
  for (const bad of [0, -1, 1.5, Number.NaN]) assert.throws(() => partitionOf("x", bad), /positive integer/);
  assert.is(partitionOf("anything", 1), 0);
});

test.run();
