// The cron parser's own rules, one by one: what it refuses (as cronsim does), month and weekday names,
// leap years, L, LW, <dow>L and <dow>#n at the edges of a month, steps over lists, and which expressions
// keep to the wall clock across a time change. The broader rows are in schedule.test.ts.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { cronFieldProblem, daysInMonth, nextTable, parseCron, stepTerm } from "../../engine/cron.ts";
import { series } from "./schedule-series.ts";

/** The next `n` occurrences after `from` (UTC unless a zone is given), as ISO strings. */
const next = (expr: string, from: string, n: number, tz = "UTC") => series(expr, tz, from, n);

test("days in a month: leap years every 4, not every 100, again every 400", () => {
  assert.equal(
    [2023, 2024, 1900, 2000, 2100].map((y) => daysInMonth(y, 2)),
    [28, 29, 28, 29, 28],
  );
  assert.equal(
    [1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].map((m) => daysInMonth(2024, m)),
    [31, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31],
  );
});

test("a next-allowed table: values out of range are left out", () => {
  assert.equal([...nextTable([-1, 3, 1, 70], 5)], [1, 1, 3, 3, -1, -1, -1]);
});

test("a step over a list steps the sorted values; over a single value it runs on to the last", () => {
  assert.equal(
    [...stepTerm(new Set([9, 1, 5, 7]), 2, 59)].sort((a, b) => a - b),
    [1, 7],
  );
  assert.equal([...stepTerm(new Set([50]), 4, 59)], [50, 54, 58]);
});

const refused: [why: string, expr: string][] = [
  ["six fields", "0 9 * * * *"],
  ["four fields", "0 9 * *"],
  ["minute 60", "60 * * * *"],
  ["hour 24", "0 24 * * *"],
  ["day 0", "0 0 0 * *"],
  ["day 32", "0 0 32 * *"],
  ["month 0", "0 0 1 0 *"],
  ["month 13", "0 0 1 13 *"],
  ["weekday 8", "0 0 * * 8"],
  ["a letter after digits", "0 1x * * *"],
  ["a letter before digits", "0 x1 * * *"],
  ["a step of 0", "*/0 * * * *"],
  ["a range backwards", "0 0 * * 5-1"],
  ["a month name as a weekday", "0 0 * * JAN"],
  ["a weekday name as a month", "0 0 * MON *"],
  ["a name as an hour", "0 JAN * * *"],
  ["# outside the weekday field", "0 0 1#2 * *"],
  ["#0", "0 0 * * MON#0"],
  ["#6", "0 0 * * MON#6"],
  ["L as an hour", "0 L * * *"],
  ["LW as a month", "0 0 1 LW *"],
  ["L as a minute", "L * * * *"],
  ["30 February", "0 0 30 2 *"],
  ["31 in 30-day months", "0 0 31 4,6,9,11 *"],
  ["31 February and April", "0 0 31 2,4 *"],
];
for (const [why, expr] of refused) test(`refused: ${why} (${expr})`, () => assert.is(parseCron(expr), null));

const accepted = [
  "0 0 30 4 *",
  "0 0 29 2 *",
  "0 0 31 1,2 *",
  " 0 9 * * * ",
  "0  9\t* *  *",
  "0 0 * * 05L",
  "0 0 * * MON#1",
  "0 0 * * 1#5",
  "0 0 L/2 * *",
];
for (const expr of accepted) test(`accepted: ${JSON.stringify(expr)}`, () => assert.is.not(parseCron(expr), null));

test("a wrong field is named with what is wrong with it; an expression every field of which parses has none", () => {
  const cases: [string, [string, string] | null][] = [
    ["61 * * * *", ["minute", "61 is out of range 0-59"]],
    ["0 24 * * *", ["hour", "24 is out of range 0-23"]],
    ["0 3 0 * *", ["day of month", "0 is out of range 1-31"]],
    ["0 3 * 13 *", ["month", "13 is out of range 1-12"]],
    ["0 3 * * 8", ["day of week", "8 is out of range 0-7"]],
    ["*/0 * * * *", ["minute", "a step of 0"]],
    ["0 5-1 * * *", ["hour", "the range 5-1 runs backwards"]],
    ["0 3 * * MON#6", ["day of week", "#6 is out of range 1-5"]],
    ["0 3 * * *", null],
    ["0 3 31 2 *", null], // every field parses: that it never runs is the validation's to say
    ["0 3 * *", null], // not five fields: not a cron expression to name a field of
  ];
  for (const [expr, want] of cases) {
    const got = cronFieldProblem(expr);
    assert.equal(got === null ? null : [got.field, got.problem], want, expr);
    if (want !== null) assert.is(parseCron(expr), null, `${expr} is refused by the parser too`);
  }
});

test("every month name is its number, in any case", () => {
  const names = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
  names.forEach((name, i) => {
    assert.equal(next(`0 0 1 ${name.toLowerCase()} *`, "2024-01-01T12:00Z", 2), next(`0 0 1 ${i + 1} *`, "2024-01-01T12:00Z", 2), name);
    assert.is(next(`0 0 1 ${name} *`, "2023-12-31T12:00Z", 1)[0], `2024-${String(i + 1).padStart(2, "0")}-01T00:00:00Z`, name);
  });
});

test("every weekday name is its number", () => {
  // 2024-01-07 is a Sunday
  ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"].forEach((name, i) => {
    assert.is(next(`0 0 * * ${name}`, "2024-01-06T12:00Z", 1)[0], `2024-01-${String(7 + i).padStart(2, "0")}T00:00:00Z`, name);
  });
});

test("LW when the month ends on a Saturday or on a Sunday of a 28-day February (the 26th)", () => {
  assert.equal(next("0 0 LW * *", "2024-08-01T00:00Z", 1), ["2024-08-30T00:00:00Z"]); // 31 August 2024: a Saturday
  assert.equal(next("0 0 LW 2 *", "2027-01-01T00:00Z", 1), ["2027-02-26T00:00:00Z"]); // 28 February 2027: a Sunday
});

test("<dow>L is the last such weekday: not the one a week before it", () => {
  // January 2025 has Fridays on the 24th and the 31st (24 + 7 = 31 days)
  assert.equal(next("0 0 * * 5L", "2025-01-01T00:00Z", 2), ["2025-01-31T00:00:00Z", "2025-02-28T00:00:00Z"]);
  assert.equal(next("0 0 * * 05L", "2025-01-01T00:00Z", 1), ["2025-01-31T00:00:00Z"], "a leading zero");
});

test("a step after L or LW keeps the single last day", () => {
  assert.equal(next("0 0 L/2 * *", "2024-01-01T00:00Z", 2), ["2024-01-31T00:00:00Z", "2024-02-29T00:00:00Z"]);
  assert.equal(next("0 0 LW/3 * *", "2024-08-01T00:00Z", 1), ["2024-08-30T00:00:00Z"]);
});

test("an hour field starting with * follows UTC ticks in a repeated hour; a fixed one keeps the first", () => {
  // Riga, 27 October 2024: 04:00 EEST goes back to 03:00 EET (local 03:00 is 00:00Z, then again 01:00Z)
  assert.equal(next("0 */3 * * *", "2024-10-26T22:00Z", 3, "Europe/Riga"), [
    "2024-10-27T00:00:00Z",
    "2024-10-27T01:00:00Z",
    "2024-10-27T04:00:00Z",
  ]);
  assert.equal(next("0 0,3,6 * * *", "2024-10-26T22:00Z", 2, "Europe/Riga"), ["2024-10-27T00:00:00Z", "2024-10-27T04:00:00Z"]);
});

test.run();
