// A shard's intake ledger (host/intake-ledger.ts): the pings applied and not yet durably committed, the
// marks a commit carries (one per intake log with pings past what is durable), and what is let go once
// a commit holding those marks is durable.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { PingCommand } from "../../engine/commands.ts";
import { IntakeLedger } from "../../host/intake-ledger.ts";

const command = (at: number): PingCommand => ({
  target: { uuid: "0a3c3c55-2d2b-4c3b-9f43-1d3d4c5e6f70" },
  signal: "success",
  exitStatus: null,
  method: "POST",
  scheme: "http",
  remoteAddr: "192.0.2.1",
  ua: "curl/8.5.0",
  rid: null,
  body: null,
  at,
});

test("nothing applied: no marks, nothing pending, every position committed", () => {
  const ledger = new IntakeLedger("0/2");
  assert.is(ledger.pending, false);
  assert.equal(ledger.takeMarks(), []);
  assert.is(ledger.firstUnlogged("w1"), null);
});

test("a commit's marks reach the last position applied of each log; a durable commit lets those pings go", () => {
  const ledger = new IntakeLedger("1/2");
  ledger.applied("w1", 3, command(1_000));
  ledger.applied("w2", 7, command(2_000));
  ledger.applied("w1", 4, command(3_000));
  assert.is(ledger.pending, true);
  const marks = ledger.takeMarks();
  assert.equal(marks, [
    { writer: "w1", shard: "1/2", position: 4 },
    { writer: "w2", shard: "1/2", position: 7 },
  ]);
  assert.is(ledger.firstUnlogged("w1"), 3);
  // applied after the commit was taken: not in its marks, so still kept once it is durable
  ledger.applied("w1", 5, command(4_000));
  ledger.logged(marks);
  assert.is(ledger.pending, true);
  assert.is(ledger.firstUnlogged("w1"), 5);
  assert.is(ledger.firstUnlogged("w2"), null);
  assert.equal(
    [...ledger.commands()].map((c) => c.at),
    [4_000],
  );
  assert.equal(ledger.takeMarks(), [{ writer: "w1", shard: "1/2", position: 5 }], "w2 is durable to its last position: no mark");
  ledger.logged(ledger.takeMarks());
  assert.is(ledger.pending, false);
  assert.equal(ledger.takeMarks(), []);
});

test("a commit that failed (never logged) keeps its pings for the rebuild, in the order applied", () => {
  const ledger = new IntakeLedger("0/1");
  ledger.applied("w1", 1, command(10));
  ledger.applied("w2", 1, command(20));
  ledger.takeMarks(); // the commit that carried them failed: logged() is not called
  ledger.applied("w1", 2, command(30));
  assert.equal(
    [...ledger.commands()].map((c) => c.at),
    [10, 20, 30],
  );
  assert.equal(ledger.takeMarks(), [
    { writer: "w1", shard: "0/1", position: 2 },
    { writer: "w2", shard: "0/1", position: 1 },
  ]);
});

test("an older mark logged after a newer one does not move what is durable back", () => {
  const ledger = new IntakeLedger("0/1");
  ledger.applied("w1", 1, command(10));
  const older = ledger.takeMarks();
  ledger.applied("w1", 2, command(20));
  const newer = ledger.takeMarks();
  ledger.logged(newer);
  ledger.logged(older);
  assert.is(ledger.pending, false);
  ledger.applied("w2", 1, command(30));
  assert.equal(ledger.takeMarks(), [{ writer: "w2", shard: "0/1", position: 1 }], "w1 stays durable to position 2");
});

test.run();
