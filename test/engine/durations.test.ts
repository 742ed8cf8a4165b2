import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Millis, PingKind, PingRecord } from "../../engine/model.ts";
import { HOUR, LIMITS, MINUTE } from "../../engine/model.ts";
import { pingDurations } from "../../engine/durations.ts";
import { ping } from "../helpers.ts";

const A = "aaaaaaaa-0000-4000-8000-000000000001";
const B = "bbbbbbbb-0000-4000-8000-000000000002";
type Row = [kind: PingKind, at: Millis, rid?: string];

/** Runs pingDurations on pings written oldest first (easier to read) and answers oldest first. */
function durations(rowsOldestFirst: Row[]): (Millis | null)[] {
  const pings: PingRecord[] = rowsOldestFirst.map(([kind, at, rid], i) => ping({ n: i + 1, kind, at, rid: rid ?? null }));
  return pingDurations([...pings].reverse()).reverse();
}

const cases: [name: string, rows: Row[], want: (Millis | null)[]][] = [
  [
    "a success after a start, both without rid",
    [
      ["start", 0],
      ["success", MINUTE],
    ],
    [null, MINUTE],
  ],
  [
    "a fail after a start",
    [
      ["start", 0],
      ["fail", MINUTE],
    ],
    [null, MINUTE],
  ],
  [
    "the same rid pairs",
    [
      ["start", 0, A],
      ["success", MINUTE, A],
    ],
    [null, MINUTE],
  ],
  [
    "a different rid doesn't pair",
    [
      ["start", 0, A],
      ["success", MINUTE, B],
    ],
    [null, null],
  ],
  [
    "a rid doesn't pair with a rid-less start",
    [
      ["start", 0],
      ["success", MINUTE, A],
    ],
    [null, null],
  ],
  [
    "no rid doesn't pair with a start that has one",
    [
      ["start", 0, A],
      ["success", MINUTE],
    ],
    [null, null],
  ],
  [
    "interleaved runs pair by rid",
    [
      ["start", 0, A],
      ["start", 1, B],
      ["success", 5, A],
      ["fail", 7, B],
    ],
    [null, null, 5, 6],
  ],
  [
    "another rid's completion in between doesn't matter",
    [
      ["start", 0, A],
      ["success", 3],
      ["success", 5, A],
    ],
    [null, null, 5],
  ],
  [
    "the latest earlier start wins",
    [
      ["start", 0],
      ["start", 10],
      ["success", 15],
    ],
    [null, null, 5],
  ],
  [
    "each start pairs with one completion",
    [
      ["start", 0],
      ["success", 5],
      ["success", 9],
    ],
    [null, 5, null],
  ],
  [
    "log and ign are transparent",
    [
      ["start", 0],
      ["log", 1],
      ["ign", 2],
      ["success", 5],
    ],
    [null, null, null, 5],
  ],
  [
    "starts never carry a duration",
    [
      ["start", 0],
      ["start", 1],
    ],
    [null, null],
  ],
  [
    "a completion without a start in the page has none",
    [
      ["success", 5],
      ["start", 6],
    ],
    [null, null],
  ],
  [
    "a gap just under 72 h is shown",
    [
      ["start", 0],
      ["success", LIMITS.maxRunDurationMs - 1],
    ],
    [null, LIMITS.maxRunDurationMs - 1],
  ],
  [
    "a gap of 72 h is not shown",
    [
      ["start", 0],
      ["success", LIMITS.maxRunDurationMs],
    ],
    [null, null],
  ],
  [
    "a completion too late to show still uses up its start",
    [
      ["start", 0],
      ["fail", 73 * HOUR],
      ["success", 73 * HOUR + 1],
    ],
    [null, null, null],
  ],
  ["an empty page", [], []],
  [
    "instants as stored (epoch ms): the gap counts, not the instants",
    [
      ["start", Date.UTC(2026, 0, 1)],
      ["success", Date.UTC(2026, 0, 1) + MINUTE],
    ],
    [null, MINUTE],
  ],
];
for (const [name, rows, want] of cases) {
  test(name, () => assert.equal(durations(rows), want));
}

test("answers in the input's newest-first order", () => {
  const newestFirst = [ping({ kind: "success", at: 9 }), ping({ kind: "log", at: 5 }), ping({ kind: "start", at: 2 })];
  assert.equal(pingDurations(newestFirst), [7, null, null]);
});

test.run();
