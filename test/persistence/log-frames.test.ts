// Where a segment's records stop, and when that stop is damage: a well-formed later record after it.
// Every expected offset is counted here from the frames' own lengths, not asked of the reader.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { frame, readFrames } from "../../persistence/log-frames.ts";

const bytes = (text: string) => new TextEncoder().encode(text);
const frames = (from: number, texts: readonly string[]) => texts.map((text, i) => frame(from + i, bytes(text)));
const HEADER = 16;

test("no damage: whole frames, a torn last frame, zeros after the end, older frames after newer ones", () => {
  const whole = Buffer.concat(frames(1, ["one", "two", "three"]));
  assert.equal(readFrames(whole).damage, null);
  const torn = readFrames(whole.subarray(0, whole.length - 2));
  assert.is(torn.records.length, 2);
  assert.equal(torn.damage, null, "a crash mid-write: the torn tail is accepted");
  assert.equal(readFrames(Buffer.concat([...frames(1, ["x"]), Buffer.alloc(4096)])).damage, null);
  // a reused spare: new records, then the rest of its zeroed first page, then its old records
  const spare = Buffer.concat([...frames(7, ["new"]), Buffer.alloc(100), ...frames(1, ["old1", "old2"])]);
  assert.equal(readFrames(spare, 6).damage, null);
  assert.is(readFrames(spare, 6).records.length, 1);
});

test("no damage: a failed group's leftover bytes behind the shorter group written over them", () => {
  const failed = Buffer.concat(frames(3, ["a".repeat(200), "b".repeat(200)])); // positions 3, 4: never acknowledged
  const next = frame(5, bytes("c"));
  const file = Buffer.concat([...frames(1, ["one", "two"]), next, failed.subarray(next.length)]);
  const read = readFrames(file);
  assert.equal(
    read.records.map((r) => r.position),
    [1, 2, 5],
  );
  assert.equal(read.damage, null, "the frame of position 4 left behind does not follow 5");
});

test("no damage below the floor: a reused spare whose first write was torn, the segments before it gone", () => {
  const torn = frame(9, bytes("new")).subarray(0, 10);
  const file = Buffer.concat([torn, Buffer.alloc(4096 - torn.length), ...frames(1, ["old1", "old2", "old3"])]);
  assert.equal(readFrames(file, 0, 3).damage, null, "records 1-3 are in the tables (checkpointed up to 3)");
  assert.is(readFrames(file, 0, 2).damage?.recordsLost, 1, "above the floor, record 3 would be lost");
});

test("damage: a byte flipped in the middle of a segment, with its offset, reason and the records lost", () => {
  const parts = frames(1, ["one", "two", "three", "four", "five"]);
  const file = Buffer.concat(parts);
  const offset = parts[0].length + parts[1].length; // the third frame
  file[offset + HEADER + 1] ^= 0xff; // in its record
  const read = readFrames(file);
  assert.is(read.records.length, 2);
  assert.equal(read.damage, { offset, reason: "a checksum mismatch of the frame of position 3 (5 bytes)", recordsLost: 3 });
});

test("damage: a header overwritten in the middle; the records after it are counted", () => {
  const parts = frames(1, ["one", "two", "three", "four"]);
  const file = Buffer.concat(parts);
  const offset = parts[0].length;
  file.fill(0xee, offset, offset + HEADER); // the second frame's header
  const read = readFrames(file);
  assert.is(read.records.length, 1);
  assert.is(read.damage?.offset, offset);
  assert.is(read.damage?.recordsLost, 2, "three and four still read after it; what the header hid is unknown");
});

test.run();
