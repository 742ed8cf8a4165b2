// The dashboard's relative times (http/dashboard/format.ts): the largest unit that fits, counted down.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { agoText, exactText } from "../../http/dashboard/format.ts";

const AT = Date.UTC(2026, 0, 15, 12, 0, 0);
const S = 1000;

test("agoText reads the largest whole unit", () => {
  const cases: [number, string][] = [
    [0, "just now"],
    [4_999, "just now"],
    [5 * S, "5 seconds ago"],
    [59_999, "59 seconds ago"],
    [60 * S, "1 minute ago"],
    [119 * S, "1 minute ago"],
    [120 * S, "2 minutes ago"],
    [3_599 * S, "59 minutes ago"],
    [3_600 * S, "1 hour ago"],
    [7_199 * S, "1 hour ago"],
    [86_399 * S, "23 hours ago"],
    [86_400 * S, "1 day ago"],
    [(2 * 86_400 + 5 * 3_600) * S, "2 days ago"],
    [400 * 86_400 * S, "400 days ago"],
  ];
  for (const [ms, text] of cases) assert.is(agoText(AT - ms, AT), text, `${ms} ms`);
});

test("exactText reads an instant in UTC to the second", () => {
  assert.is(exactText(AT), "2026-01-15 12:00:00 UTC");
  assert.is(exactText(Date.UTC(2025, 11, 31, 23, 59, 59, 999)), "2025-12-31 23:59:59 UTC");
  assert.is(exactText(Date.UTC(2024, 1, 29, 3, 4, 5)), "2024-02-29 03:04:05 UTC");
  assert.is(exactText(0), "1970-01-01 00:00:00 UTC");
});

test.run();
