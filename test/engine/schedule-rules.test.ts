// What validateSchedule says of a bad schedule, in the reference's words; multi-line OnCalendar
// expressions with their own zones; the instants nextAfter refuses; and, in a repeated hour, never an
// instant before the one asked after.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { nextAfter, validateSchedule } from "../../engine/schedule.ts";

const failureOf = (expr: string) => {
  const outcome = validateSchedule(expr, "UTC");
  return outcome.ok ? null : outcome.failure;
};

test("the reasons: empty (blank too), too long (over 100 characters), not a valid expression", () => {
  assert.equal(failureOf(""), { code: "invalid", field: "schedule", reason: "is empty" });
  assert.equal(failureOf(" \n\t "), { code: "invalid", field: "schedule", reason: "is empty" });
  assert.equal(failureOf(`${"0".repeat(93)} * * * *`), { code: "invalid", field: "schedule", reason: "is too long" });
  assert.equal(validateSchedule(`${"0".repeat(92)} * * * *`, "UTC"), { ok: true, value: "cron" }, "100 characters");
  assert.equal(failureOf("0 0 31 2 *"), { code: "invalid", field: "schedule", reason: "is not a valid cron or OnCalendar expression" });
  assert.equal(failureOf("nope"), { code: "invalid", field: "schedule", reason: "is not a valid cron or OnCalendar expression" });
});

test("an OnCalendar expression of several lines: the earliest of its lines, each in its own zone or the check's", () => {
  const from = Date.parse("2024-01-01T00:00Z");
  // 09:00 in Riga (07:00Z in winter) comes before 08:00 in the check's zone, UTC
  assert.is(nextAfter("08:00\n09:00 Europe/Riga", "UTC", from), Date.parse("2024-01-01T07:00Z"));
  assert.is(
    nextAfter("08:00\n09:00 Europe/Riga", "Asia/Tokyo", from),
    Date.parse("2024-01-01T07:00Z"),
    "08:00 Tokyo was 23:00Z the day before",
  );
  assert.is(nextAfter("08:00\n", "UTC", from), Date.parse("2024-01-01T08:00Z"), "a line break at the end");
  assert.is(nextAfter("\n08:00", "UTC", from), Date.parse("2024-01-01T08:00Z"), "a line break at the start");
});

test("nextAfter: none from the year 3000 on, none for an instant that is not a number", () => {
  assert.is(nextAfter("* * * * *", "UTC", Date.UTC(3000, 0, 1)), null);
  assert.is(nextAfter("* * * * *", "UTC", Date.UTC(3000, 0, 1) - 60_001), Date.UTC(2999, 11, 31, 23, 59));
  assert.is(nextAfter("* * * * *", "UTC", Number.NaN), null);
});

test("from inside a repeated hour, the next run is never before the instant asked after", () => {
  // Riga, 27 October 2024: local 03:00-04:00 runs twice (00:00-01:00Z in summer time, 01:00-02:00Z in winter time)
  const from = Date.parse("2024-10-27T01:30Z"); // 03:30 the second time
  for (const expr of ["45 3 * * *", "03:45", "*-*-* 03:45:00"]) {
    const next = nextAfter(expr, "Europe/Riga", from);
    assert.ok(next !== null && next > from, `${expr}: ${next === null ? null : new Date(next).toISOString()}`);
  }
});

test.run();
