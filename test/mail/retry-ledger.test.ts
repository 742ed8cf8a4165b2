import { test } from "uvu";
import * as assert from "uvu/assert";
import { RetryLedger } from "../../mail/retry-ledger.ts";

test("remembers which checks a message pinged until it is forgotten", () => {
  const ledger = new RetryLedger(10);
  ledger.remember("m1", ["a", "b"]);
  assert.equal(
    [ledger.pinged("m1", "a"), ledger.pinged("m1", "b"), ledger.pinged("m1", "c"), ledger.pinged("m2", "a")],
    [true, true, false, false],
  );
  ledger.remember("m1", ["b", "c"]); // a second partial try adds only what is new
  assert.equal([ledger.pinged("m1", "c"), ledger.size], [true, 3]);
  ledger.forget("m1");
  assert.equal([ledger.pinged("m1", "a"), ledger.size], [false, 0]);
});

test("past its bound the oldest messages are forgotten first", () => {
  const ledger = new RetryLedger(4);
  ledger.remember("old", ["a", "b"]);
  ledger.remember("mid", ["a"]);
  ledger.remember("new", ["a", "b"]);
  assert.equal([ledger.pinged("old", "a"), ledger.pinged("mid", "a"), ledger.pinged("new", "b"), ledger.size], [false, true, true, 3]);
});

test.run();
