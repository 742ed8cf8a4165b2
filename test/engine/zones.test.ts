// Zone names of every area and the UTC year of an instant at each year's edges (offsets, gaps and
// overlaps are in schedule.test.ts, through the schedules that use them).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { canonicalZone, utcYear } from "../../engine/zones.ts";

test("a zone of every area is known by its own name", () => {
  for (const zone of [
    "Africa/Abidjan",
    "Africa/Windhoek",
    "America/Yakutat",
    "Antarctica/Casey",
    "Arctic/Longyearbyen",
    "Asia/Yerevan",
    "Atlantic/Azores",
    "Australia/Perth",
    "Etc/GMT-14",
    "Europe/Zurich",
    "GMT",
    "Indian/Maldives",
    "Pacific/Auckland",
    "Pacific/Wallis",
  ]) {
    assert.is(canonicalZone(zone), zone);
  }
});

test("the UTC year of an instant: the first and the last millisecond of every year from 1970 to 2400", () => {
  for (let year = 1970; year <= 2400; year++) {
    const first = Date.UTC(year, 0, 1);
    assert.is(utcYear(first), year, `1 January ${year}`);
    assert.is(utcYear(first - 1), year - 1, `the millisecond before 1 January ${year}`);
    assert.is(utcYear(Date.UTC(year, 6, 1)), year, `1 July ${year}`);
  }
});

test.run();
