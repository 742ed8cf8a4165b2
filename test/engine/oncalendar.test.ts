// One OnCalendar line's own rules, one by one: weekday names (full and short, any case), two-digit years,
// each field's range, steps and ranges, and the shapes of a date and a time (systemd.time(7)). The broader
// rows, and the comparison with systemd-analyze, are in schedule.test.ts.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { parseOnCalendarLine } from "../../engine/oncalendar.ts";
import { series } from "./schedule-series.ts";

const nextUtc = (expr: string, from: string) => series(expr, "UTC", from, 1)[0];

test("every weekday by its full name and its first three letters, in any case", () => {
  // 1 January 2024 is a Monday
  ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"].forEach((name, i) => {
    const want = `2024-01-0${1 + i}T12:00:00Z`;
    assert.is(nextUtc(`${name} 12:00`, "2024-01-01T00:00Z"), want, name);
    assert.is(nextUtc(`${name.slice(0, 3).toLowerCase()} 12:00`, "2024-01-01T00:00Z"), want, name.slice(0, 3));
    assert.is(nextUtc(`${name.toUpperCase()} 12:00`, "2024-01-01T00:00Z"), want, name.toUpperCase());
  });
});

test("weekday ranges with - as with ..", () => {
  assert.is(nextUtc("Thu-Sat 12:00", "2024-01-01T00:00Z"), "2024-01-04T12:00:00Z");
  assert.is(nextUtc("Thu-Sat 12:00", "2024-01-06T12:00Z"), "2024-01-11T12:00:00Z");
});

test("two-digit years: below 70 in this century, from 70 in the last", () => {
  assert.is(nextUtc("69-06-01", "2024-01-01T00:00Z"), "2069-06-01T00:00:00Z");
  assert.is(nextUtc("70-06-01", "2024-01-01T00:00Z"), null, "1970: past");
  assert.is(nextUtc("2199-12-31 23:59:59", "2024-01-01T00:00Z"), "2199-12-31T23:59:59Z", "the last year there is");
});

const refused: [why: string, line: string][] = [
  ["minute 60", "12:60"],
  ["hour 24", "24:00"],
  ["second 60", "12:00:60"],
  ["month 13", "*-13-01"],
  ["month 0", "*-00-01"],
  ["day 0", "*-01-00"],
  ["day 32", "*-01-32"],
  ["year 1969", "1969-01-01"],
  ["year 2200", "2200-01-01"],
  ["a letter after digits", "12:0x"],
  ["a letter before digits", "x2:00"],
  ["a step of 0", "*:0/0"],
  ["a backwards range", "*-01-05..03"],
  ["two weekday parts", "Mon Tue 12:00"],
  ["a date of four parts", "2024-01-01-01"],
  ["a time of one part", "Mon 12"],
  ["~29", "*-02~29"],
  ["an unknown weekday", "Mo 12:00"],
  ["a weekday step", "Mon/2 12:00"],
];
for (const [why, line] of refused) test(`refused: ${why} (${line})`, () => assert.is(parseOnCalendarLine(line), null));

const accepted = ["*-02~28", "*-01-31..31", "Mon,Wed 12:00", "*:0/15", "  12:00  ", "*-*~01"];
for (const line of accepted) test(`accepted: ${JSON.stringify(line)}`, () => assert.is.not(parseOnCalendarLine(line), null));

test("~28: the 28th day counted back from a month's end", () => {
  assert.is(nextUtc("*-02~28", "2024-01-01T00:00Z"), "2024-02-02T00:00:00Z"); // 29 days in February 2024
  assert.is(nextUtc("*-02~28", "2025-01-01T00:00Z"), "2025-02-01T00:00:00Z");
});

test.run();
