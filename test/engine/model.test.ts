// The model's small shared rules: an outbox entry's id (sortable by flip time, one per flip, channel and
// notice), a check's tags, and the exhaustiveness guard.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { assertNever, outboxEntryId, tagsOf } from "../../engine/model.ts";

const UUID = "0a1b2c3d-0000-4000-8000-000000000001";

test("an outbox entry's id: the flip time padded to 15 digits, the check, the flip n padded to 9, the channel and the notice", () => {
  assert.is(outboxEntryId(1_780_000_000_000, UUID, 7, "ch", null), `001780000000000-${UUID}-000000007-ch`);
  assert.is(
    outboxEntryId(1_780_000_000_000, UUID, 7, "ch", 0),
    `001780000000000-${UUID}-000000007-ch-m`,
    "a mute's held down notification",
  );
  assert.is(outboxEntryId(1_780_000_000_000, UUID, 7, "ch", 3), `001780000000000-${UUID}-000000007-ch-r3`, "the third reminder");
  assert.is(outboxEntryId(5, UUID, 12, "other", null), `000000000000005-${UUID}-000000012-other`, "another instant after the first");
  assert.is(outboxEntryId(1_780_000_000_000, UUID, 8, "ch", null), `001780000000000-${UUID}-000000008-ch`, "back to the first instant");
});

test("ids sort by flip time, then check, then flip", () => {
  const ids = [
    [20, "b", 1],
    [3, "z", 9],
    [20, "a", 2],
    [100, "a", 1],
  ].map(([at, uuid, n]) => outboxEntryId(at as number, uuid as string, n as number, "ch", null));
  assert.equal([...ids].sort(), [ids[1], ids[2], ids[0], ids[3]]);
});

test("tags: split on spaces, trimmed, empties dropped", () => {
  assert.equal(tagsOf("  db  prod nightly "), ["db", "prod", "nightly"]);
  assert.equal(tagsOf(""), []);
  assert.equal(tagsOf("one"), ["one"]);
  assert.equal(tagsOf("db \t prod"), ["db", "prod"], "each piece trimmed, so a lone tab is no tag");
});

test("assertNever throws and names the value", () => {
  assert.throws(
    () => assertNever("surprise" as never),
    (error: Error) => error.message === 'unexpected value: "surprise"',
  );
});

test.run();
