// The real clock as hcd reads it: a system clock stepped back (NTP, a restart on a machine whose clock
// is behind) holds time still until it catches up, within one run and after the previous run's mark.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { monotonicClock } from "../../host/clock.ts";

/** A system clock that answers the given instants in turn. */
const wallOf = (instants: number[]) => () => {
  const at = instants.shift();
  if (at === undefined) throw new Error("asked more often than the test planned");
  return at;
};

test("a system clock stepped back within a run: the clock stands still until it catches up", () => {
  const clock = monotonicClock(null, wallOf([1_000, 5_000, 2_000, 4_999, 5_001, 3_000]));
  assert.equal(
    [1, 2, 3, 4, 5, 6].map(() => clock.now()),
    [1_000, 5_000, 5_000, 5_000, 5_001, 5_001],
  );
  assert.is(clock.kind, "real");
});

test("behind the previous run's mark: nothing before the mark, then the system clock once past it", () => {
  const clock = monotonicClock(10_000, wallOf([4_000, 9_999, 10_000, 12_000]));
  assert.equal(
    [1, 2, 3, 4].map(() => clock.now()),
    [10_000, 10_000, 10_000, 12_000],
  );
});

test("without a mark the first instant is the system clock's own", () => {
  assert.is(monotonicClock(null, wallOf([7])).now(), 7);
});

test.run();
