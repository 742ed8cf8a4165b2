// What an owner holds of its pings until a snapshot stores them: taken once (two stores never carry the
// same ping), still listed while on their way, let go only up to what was stored, at most the newest the
// API lists per check, and nothing of a deleted check.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { PingTail } from "../../cluster/ping-tail.ts";
import { pingWrite } from "../helpers.ts";

const PROJECT = "00000000-0000-4000-8000-0000000000aa";
const A = "00000000-0000-4000-8000-00000000000a";
const B = "00000000-0000-4000-8000-00000000000b";
const write = (check: string, n: number, body: Uint8Array | null = null) => pingWrite(PROJECT, check, n, 0, body);
const numbers = (pings: readonly { record: { n: number } }[]) => pings.map((p) => p.record.n);

test("taken pings stay listed until released; a later take carries only newer ones; release lets go up to what was stored", () => {
  const tail = new PingTail();
  tail.apply([write(A, 1), write(A, 2), write(B, 1)], []);
  const first = tail.take();
  assert.equal(numbers(first.get(A)!), [1, 2]);
  assert.equal(numbers(first.get(B)!), [1]);
  tail.apply([write(A, 3)], []);
  assert.equal(numbers(tail.newest(A, 10)), [3, 2, 1], "taken ones still listed, newest first");
  const second = tail.take();
  assert.equal(numbers(second.get(A)!), [3], "only what the first take left");
  assert.is(second.has(B), false);
  tail.release(first);
  assert.equal(numbers(tail.newest(A, 10)), [3]);
  assert.equal(numbers(tail.newest(B, 10)), []);
  assert.is(tail.find(A, 2), undefined);
  assert.is(tail.find(A, 3)?.record.n, 3);
  tail.release(second);
  assert.is(tail.bytes, 0);
  assert.equal(tail.take().size, 0);
});

test("at most the newest 1,000 of a check are held; a deleted check's are dropped; bytes count bodies", () => {
  const tail = new PingTail();
  tail.apply(
    Array.from({ length: 1_005 }, (_, i) => write(A, i + 1)),
    [],
  );
  assert.equal(numbers(tail.newest(A, 2_000)).length, 1_000);
  assert.is(tail.newest(A, 2_000).at(-1)?.record.n, 6);
  const before = tail.bytes;
  tail.apply([write(B, 1, new Uint8Array(5_000))], []);
  assert.ok(tail.bytes >= before + 5_000, "a body counts its bytes");
  tail.apply([], [{ uuid: A }]);
  assert.equal(numbers(tail.newest(A, 10)), []);
  assert.equal([...tail.take().keys()], [B]);
});

test.run();
