// MinuteCounts: counts per key within one clock minute; a new minute forgets every key.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { MinuteCounts } from "../../lib/minute-counts.ts";

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0); // a minute's start

test("counts each key within its clock minute; the next minute starts at zero", () => {
  const counts = new MinuteCounts();
  assert.equal([counts.add("a", T0), counts.add("a", T0 + 59_999), counts.add("b", T0 + 1)], [1, 2, 1]);
  assert.is(counts.count("a", T0 + 30_000), 2);
  assert.is(counts.windowEndsAt(), T0 + 60_000);
  assert.is(counts.count("a", T0 + 60_000), 0, "a new minute forgets");
  assert.is(counts.add("a", T0 + 60_000), 1);
  assert.is(counts.windowEndsAt(), T0 + 120_000);
});

test.run();
