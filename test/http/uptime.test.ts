// A check's 90-day uptime from its flips (http/status/uptime.ts): the watched time only (not new, not
// paused), a down period that began before the 90 days counted from their start, one bar per UTC day,
// and incidents (an ongoing one without an end). Expected figures are worked out by hand below.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { DAY, HOUR } from "../../engine/model.ts";
import { uptimeOf } from "../../http/status/uptime.ts";
import { flip } from "../helpers.ts";

const NOW = Date.UTC(2026, 2, 10, 12); // noon: today's bar holds 12 hours
const TODAY = Date.UTC(2026, 2, 10);
const FIRST_DAY = TODAY - 89 * DAY;

test("paused time is not watched; a day's bar is its own share; an incident that ended has both ends", () => {
  const created = TODAY - DAY; // yesterday at 00:00
  const flips = [
    flip({ n: 1, at: created, from: "new", to: "up" }),
    flip({ n: 2, at: created + 6 * HOUR, from: "up", to: "down" }),
    flip({ n: 3, at: created + 12 * HOUR, from: "down", to: "up" }),
    flip({ n: 4, at: TODAY, from: "up", to: "paused" }),
    flip({ n: 5, at: TODAY + 6 * HOUR, from: "paused", to: "up" }),
  ];
  const uptime = uptimeOf({ flips, status: "up", createdAt: created, now: NOW });
  // watched: yesterday's 24 h and today's 6 h after the pause; down 6 h of them
  assert.is(uptime.percent, Math.round((24 / 30) * 10_000) / 100);
  assert.is(uptime.days.length, 90);
  assert.equal(uptime.days.slice(0, 88), Array(88).fill(null), "before its creation: no data");
  assert.equal(uptime.days.slice(88), [75, 100]);
  assert.equal(uptime.incidents, [{ startedAt: created + 6 * HOUR, endedAt: created + 12 * HOUR }]);
});

test("unknown time (hcd not watching) is neither up nor down: left out of the shares, counted apart, per day too", () => {
  const created = TODAY - DAY;
  const flips = [
    flip({ n: 1, at: created, from: "new", to: "up" }),
    flip({ n: 2, at: created + 6 * HOUR, from: "up", to: "down" }),
    flip({ n: 3, at: created + 12 * HOUR, from: "down", to: "up" }),
  ];
  // hcd was away from 10:00 to 14:00 yesterday (2 h of the down period, 2 h up) and 02:00-04:00 today
  const unknown = [
    { fromAt: created + 10 * HOUR, toAt: created + 14 * HOUR },
    { fromAt: TODAY + 2 * HOUR, toAt: TODAY + 4 * HOUR },
  ];
  const uptime = uptimeOf({ flips, status: "up", createdAt: created, now: NOW, unknown });
  // known: yesterday 20 h (down 4 h), today 10 h; 30 h known, 4 h down
  assert.is(uptime.percent, Math.round((26 / 30) * 10_000) / 100);
  assert.equal(uptime.days.slice(88), [80, 100]);
  assert.equal(uptime.unknownDays.slice(88), [4 * HOUR, 2 * HOUR]);
  assert.is(uptime.unknownMs, 6 * HOUR);
  assert.equal(
    uptime.incidents,
    [{ startedAt: created + 6 * HOUR, endedAt: created + 12 * HOUR }],
    "incidents follow the flips, as they were",
  );
  const before = uptimeOf({
    flips,
    status: "up",
    createdAt: created,
    now: NOW,
    unknown: [{ fromAt: created - 5 * HOUR, toAt: created + HOUR }],
  });
  assert.is(before.unknownMs, HOUR, "only from the check's creation on");
  const paused = uptimeOf({
    flips: [flip({ n: 1, at: created, from: "new", to: "paused" })],
    status: "paused",
    createdAt: created,
    now: NOW,
    unknown,
  });
  assert.equal([paused.unknownMs, paused.days.slice(88)], [0, [null, null]], "a paused check was not watched anyway");
});

test("down since before the 90 days: counted from their start, and the incident has not ended", () => {
  const created = FIRST_DAY - 30 * DAY;
  const wentDown = FIRST_DAY - 10 * DAY;
  const flips = [flip({ n: 7, at: wentDown, from: "up", to: "down" })];
  // only flips from the window's start are read: none, so the status now tells the whole window
  const uptime = uptimeOf({ flips: [], status: "down", createdAt: created, now: NOW });
  assert.is(uptime.percent, 0);
  assert.equal(uptime.incidents, [{ startedAt: FIRST_DAY, endedAt: null }]);
  assert.equal(uptime.days, Array(90).fill(0));
  const withOld = uptimeOf({ flips, status: "down", createdAt: created, now: NOW });
  assert.equal(withOld.incidents, [{ startedAt: FIRST_DAY, endedAt: null }], "an older flip starts nothing inside the window");
  // back up 45 days into the window: down before it, as the flip's "from" says
  const back = uptimeOf({
    flips: [flip({ n: 8, at: FIRST_DAY + 45 * DAY, from: "down", to: "up" })],
    status: "up",
    createdAt: created,
    now: NOW,
  });
  assert.is(back.percent, Math.round((44.5 / 89.5) * 10_000) / 100);
  assert.equal(back.incidents, [{ startedAt: FIRST_DAY, endedAt: FIRST_DAY + 45 * DAY }]);
  assert.equal([back.days[44], back.days[45]], [0, 100]);
});

test("a check that comes back and goes down again: two incidents, the last ongoing", () => {
  const created = TODAY;
  const flips = [
    flip({ n: 1, at: created, from: "new", to: "up" }),
    flip({ n: 2, at: created + HOUR, from: "up", to: "down" }),
    flip({ n: 3, at: created + 2 * HOUR, from: "down", to: "up" }),
    flip({ n: 4, at: created + 10 * HOUR, from: "up", to: "down" }),
  ];
  const uptime = uptimeOf({ flips, status: "down", createdAt: created, now: NOW });
  assert.is(uptime.percent, Math.round((9 / 12) * 10_000) / 100);
  assert.equal(uptime.incidents, [
    { startedAt: created + HOUR, endedAt: created + 2 * HOUR },
    { startedAt: created + 10 * HOUR, endedAt: null },
  ]);
  assert.is(uptimeOf({ flips: [], status: "new", createdAt: created, now: NOW }).percent, 100, "never watched: nothing was down");
  const upNow = uptimeOf({
    flips: [...flips, flip({ n: 5, at: NOW, from: "down", to: "up" })],
    status: "up",
    createdAt: created,
    now: NOW,
  });
  assert.equal(upNow.incidents.at(-1), { startedAt: created + 10 * HOUR, endedAt: NOW }, "back up at this very instant: ended");
});

test.run();
