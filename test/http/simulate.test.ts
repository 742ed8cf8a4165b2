// POST /api/v3/checks/<uuid>/simulate against hand-computed histories (CONTRACT "Simulation and replay").
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Millis } from "../../engine/model.ts";
import { SECOND } from "../../engine/model.ts";
import type { Api } from "./harness.ts";
import { T0, withApi } from "./harness.ts";

type Simulated = { flips: { timestamp: string; up: number }[]; down_count: number; downtime_seconds: number };
const iso = (at: Millis) => new Date(at).toISOString().slice(0, 19) + "+00:00";

/** Moves the virtual clock to `at` and pings there. */
async function pingAt(api: Api, uuid: string, at: Millis, overrides: Parameters<Api["ping"]>[1] = {}): Promise<void> {
  api.clock.advance(at - api.clock.now());
  await api.ping(uuid, overrides);
}

async function simulate(api: Api, uuid: string, body: unknown, key?: string): Promise<Simulated> {
  const res = await api.call("POST", `/api/v3/checks/${uuid}/simulate`, { body, ...(key === undefined ? {} : { key }) });
  assert.is(res.status, 200, res.text);
  // no maintenance window and no reminder interval here: every down change is notified at once, none held
  const { notifications, ...rest } = res.json as Simulated & { notifications: { down: number; reminders: number; held: number } };
  assert.equal(
    { down: notifications.down, reminders: notifications.reminders, held: notifications.held },
    { down: rest.down_count, reminders: 0, held: 0 },
  );
  return rest;
}

/** A check with 3,600 s period and 60 s grace, pinged at T0, T0 + 3,500 s, T0 + 7,000 s; now = T0 + 7,060 s. */
async function everyHourish(api: Api): Promise<string> {
  const uuid = (await api.create({ name: "hourly", timeout: 3600, grace: 60 })).uuid as string;
  for (const offset of [0, 3500, 7000]) await pingAt(api, uuid, T0 + offset * SECOND);
  api.clock.advance(60 * SECOND);
  return uuid;
}

test("a 3,500 s job under a 1,800 s period and 600 s grace goes down twice, 1,100 s each", () =>
  withApi(async (api) => {
    const uuid = await everyHourish(api);
    // due at ping + 1,800 s, down at ping + 2,400 s, up again at the next ping 3,500 s after the last
    assert.equal(await simulate(api, uuid, { timeout: 1800, grace: 600 }), {
      flips: [
        { timestamp: iso(T0), up: 1 },
        { timestamp: iso(T0 + 2400 * SECOND), up: 0 },
        { timestamp: iso(T0 + 3500 * SECOND), up: 1 },
        { timestamp: iso(T0 + 5900 * SECOND), up: 0 },
        { timestamp: iso(T0 + 7000 * SECOND), up: 1 },
      ],
      down_count: 2,
      downtime_seconds: 2200,
    });
  }));

test("with its own settings the same history never goes down; the read-only key may simulate", () =>
  withApi(async (api) => {
    const uuid = await everyHourish(api);
    const expected = { flips: [{ timestamp: iso(T0), up: 1 }], down_count: 0, downtime_seconds: 0 };
    assert.equal(await simulate(api, uuid, {}), expected);
    assert.equal(await simulate(api, uuid, {}, api.project.apiKeyReadonly), expected);
  }));

test("since in the middle of the log starts there, as a new check", () =>
  withApi(async (api) => {
    const uuid = await everyHourish(api);
    const since = new Date(T0 + 3000 * SECOND).toISOString();
    assert.equal(await simulate(api, uuid, { timeout: 1800, grace: 600, since }), {
      flips: [
        { timestamp: iso(T0 + 3500 * SECOND), up: 1 },
        { timestamp: iso(T0 + 5900 * SECOND), up: 0 },
        { timestamp: iso(T0 + 7000 * SECOND), up: 1 },
      ],
      down_count: 1,
      downtime_seconds: 1100,
    });
  }));

/** Candidates for the everyHourish history (pings at 0, 3,500 and 7,000 s; now 7,060 s), worked out by hand. */
const HOURISH_TABLE: { body: Record<string, unknown>; flips: [number, 0 | 1][]; down_count: number; downtime_seconds: number }[] = [
  // own settings (3,600 s + 60 s): every gap of 3,500 s is on time
  { body: {}, flips: [[0, 1]], down_count: 0, downtime_seconds: 0 },
  // a longer grace alone changes nothing
  { body: { grace: 600 }, flips: [[0, 1]], down_count: 0, downtime_seconds: 0 },
  // 3,000 s + 60 s: down at 3,060 and 6,560 s, 440 s each
  {
    body: { timeout: 3000 },
    flips: [
      [0, 1],
      [3060, 0],
      [3500, 1],
      [6560, 0],
      [7000, 1],
    ],
    down_count: 2,
    downtime_seconds: 880,
  },
  // 1,800 s + 600 s: down at 2,400 and 5,900 s, 1,100 s each
  {
    body: { timeout: 1800, grace: 600 },
    flips: [
      [0, 1],
      [2400, 0],
      [3500, 1],
      [5900, 0],
      [7000, 1],
    ],
    down_count: 2,
    downtime_seconds: 2200,
  },
  // the same from 3,000 s: new until the ping at 3,500 s
  {
    body: { timeout: 1800, grace: 600, since: iso(T0 + 3000 * SECOND) },
    flips: [
      [3500, 1],
      [5900, 0],
      [7000, 1],
    ],
    down_count: 1,
    downtime_seconds: 1100,
  },
  // hourly at :00 (T0 is 12:00:00 UTC) + 60 s: the 12:58:20 ping is early, due 13:00, down 13:01, up at 13:56:40
  {
    body: { schedule: "0 * * * *", tz: "UTC" },
    flips: [
      [0, 1],
      [3660, 0],
      [7000, 1],
    ],
    down_count: 1,
    downtime_seconds: 3340,
  },
  // a timeout of 1 day wins back nothing: never down
  { body: { timeout: 86400, grace: 60 }, flips: [[0, 1]], down_count: 0, downtime_seconds: 0 },
];

test("a table of candidates over one history", () =>
  withApi(async (api) => {
    const uuid = await everyHourish(api);
    for (const row of HOURISH_TABLE) {
      const expected = {
        flips: row.flips.map(([offset, up]) => ({ timestamp: iso(T0 + offset * SECOND), up })),
        down_count: row.down_count,
        downtime_seconds: row.downtime_seconds,
      };
      assert.equal(await simulate(api, uuid, row.body), expected, JSON.stringify(row.body));
    }
  }));

test("logged pauses and resumes are replayed: a paused stretch is not downtime", () =>
  withApi(async (api) => {
    const uuid = (await api.create({ name: "paused", timeout: 3600, grace: 60 })).uuid as string;
    const at = (offset: number) => api.clock.advance(T0 + offset * SECOND - api.clock.now());
    await pingAt(api, uuid, T0);
    await pingAt(api, uuid, T0 + 3500 * SECOND);
    at(4000);
    assert.is((await api.call("POST", `/api/v3/checks/${uuid}/pause`)).status, 200);
    at(20_000);
    assert.is((await api.call("POST", `/api/v3/checks/${uuid}/resume`)).status, 200);
    await pingAt(api, uuid, T0 + 20_100 * SECOND);
    await pingAt(api, uuid, T0 + 23_600 * SECOND);
    at(23_660);
    const paused = [
      { timestamp: iso(T0 + 4000 * SECOND), up: 0 },
      { timestamp: iso(T0 + 20_000 * SECOND), up: 0 },
    ];
    assert.equal(await simulate(api, uuid, {}), {
      flips: [{ timestamp: iso(T0), up: 1 }, ...paused, { timestamp: iso(T0 + 20_100 * SECOND), up: 1 }],
      down_count: 0,
      downtime_seconds: 0,
    });
    // 1,800 s + 600 s: down 2,400 s after each ping that the next one comes 3,500 s after; not while paused
    assert.equal(await simulate(api, uuid, { timeout: 1800, grace: 600 }), {
      flips: [
        { timestamp: iso(T0), up: 1 },
        { timestamp: iso(T0 + 2400 * SECOND), up: 0 },
        { timestamp: iso(T0 + 3500 * SECOND), up: 1 },
        ...paused,
        { timestamp: iso(T0 + 20_100 * SECOND), up: 1 },
        { timestamp: iso(T0 + 22_500 * SECOND), up: 0 },
        { timestamp: iso(T0 + 23_600 * SECOND), up: 1 },
      ],
      down_count: 2,
      downtime_seconds: 2200,
    });
  }));

test("a down period still open at the end counts until now", () =>
  withApi(async (api) => {
    const uuid = await everyHourish(api);
    api.clock.advance(3000 * SECOND); // now = T0 + 10,060 s; the last ping at T0 + 7,000 s is due down at T0 + 9,400 s
    const result = await simulate(api, uuid, { timeout: 1800, grace: 600 });
    assert.equal(result.flips.at(-1), { timestamp: iso(T0 + 9400 * SECOND), up: 0 });
    assert.is(result.down_count, 3);
    assert.is(result.downtime_seconds, 2200 + 660);
  }));

// Riga moves from UTC+2 to UTC+3 at 01:00 UTC on 29 March 2026. A job that runs at 10:05 UTC every day is
// five minutes after 12:00 Riga time before the change, and 65 minutes after it from then on.
const DAY_MS = 86_400 * SECOND;
const MARCH_27_1005 = Date.UTC(2026, 2, 27, 10, 5);

async function dailyAcrossDst(api: Api): Promise<string> {
  const uuid = (await api.create({ name: "daily", timeout: 86400, grace: 3600 })).uuid as string;
  for (let day = 0; day < 5; day++) await pingAt(api, uuid, MARCH_27_1005 + day * DAY_MS); // 27 to 31 March
  api.clock.advance(5 * 60 * SECOND); // now = 31 March 10:10 UTC
  return uuid;
}

const DAILY = [
  ["cron", "0 12 * * *", "0 10 * * *"],
  ["OnCalendar", "*-*-* 12:00:00", "*-*-* 10:00:00"],
] as const;
for (const [label, schedule, tenUtc] of DAILY) {
  test(`a ${label} candidate in Europe/Riga across the spring DST change`, () =>
    withApi(async (api) => {
      const uuid = await dailyAcrossDst(api);
      // 28 March: due 10:00 UTC, the 10:05 ping is inside the 30 min grace. From 29 March: due 09:00 UTC,
      // down at 09:30, up at 10:05: three times 2,100 s.
      const downAt = (day: number) => Date.UTC(2026, 2, day, 9, 30);
      const upAt = (day: number) => Date.UTC(2026, 2, day, 10, 5);
      assert.equal(await simulate(api, uuid, { schedule, tz: "Europe/Riga", grace: 1800 }), {
        flips: [
          { timestamp: iso(MARCH_27_1005), up: 1 },
          { timestamp: iso(downAt(29)), up: 0 },
          { timestamp: iso(upAt(29)), up: 1 },
          { timestamp: iso(downAt(30)), up: 0 },
          { timestamp: iso(upAt(30)), up: 1 },
          { timestamp: iso(downAt(31)), up: 0 },
          { timestamp: iso(upAt(31)), up: 1 },
        ],
        down_count: 3,
        downtime_seconds: 3 * 2100,
      });
      // 10:00 in UTC (no DST): due 10:00 UTC, every 10:05 ping is inside the grace
      const utc = await simulate(api, uuid, { schedule: tenUtc, tz: "UTC", grace: 1800 });
      assert.equal(utc, { flips: [{ timestamp: iso(MARCH_27_1005), up: 1 }], down_count: 0, downtime_seconds: 0 });
    }));
}

test("pings are classified again by the check's current keyword rules, from their stored bodies", () =>
  withApi(async (api) => {
    const uuid = (await api.create({ name: "kw", timeout: 3600, grace: 60, filter_http_body: true, success_kw: "OK", failure_kw: "FAIL" }))
      .uuid as string;
    const body = (text: string) => ({ method: "POST", body: new TextEncoder().encode(text) });
    await pingAt(api, uuid, T0, body("all OK"));
    await pingAt(api, uuid, T0 + 600 * SECOND, body("FAIL: disk full"));
    await pingAt(api, uuid, T0 + 1200 * SECOND, body("all OK"));
    const asLogged = {
      flips: [
        { timestamp: iso(T0), up: 1 },
        { timestamp: iso(T0 + 600 * SECOND), up: 0 },
        { timestamp: iso(T0 + 1200 * SECOND), up: 1 },
      ],
      down_count: 1,
      downtime_seconds: 600,
    };
    assert.equal(await simulate(api, uuid, {}), asLogged);
    // "disk full" now counts as success: the middle ping keeps the check up
    const update = await api.call("POST", `/api/v3/checks/${uuid}`, { body: { failure_kw: "", success_kw: "OK,disk full" } });
    assert.is(update.status, 200, update.text);
    assert.equal(await simulate(api, uuid, {}), { flips: [{ timestamp: iso(T0), up: 1 }], down_count: 0, downtime_seconds: 0 });
  }));

test("failure_threshold candidates: down only at the N-th consecutive failure", () =>
  withApi(async (api) => {
    const uuid = (await api.create({ name: "flaky", timeout: 3600, grace: 60 })).uuid as string;
    await pingAt(api, uuid, T0);
    for (const offset of [600, 1200, 1800]) await pingAt(api, uuid, T0 + offset * SECOND, { signal: "fail" });
    await pingAt(api, uuid, T0 + 2400 * SECOND);
    const downUp = (downAt: number) => [
      { timestamp: iso(T0), up: 1 },
      { timestamp: iso(T0 + downAt * SECOND), up: 0 },
      { timestamp: iso(T0 + 2400 * SECOND), up: 1 },
    ];
    assert.equal(await simulate(api, uuid, {}), { flips: downUp(600), down_count: 1, downtime_seconds: 1800 });
    assert.equal(await simulate(api, uuid, { failure_threshold: 3 }), { flips: downUp(1800), down_count: 1, downtime_seconds: 600 });
    assert.equal(await simulate(api, uuid, { failure_threshold: 4 }), {
      flips: [{ timestamp: iso(T0), up: 1 }],
      down_count: 0,
      downtime_seconds: 0,
    });
  }));

test("email pings are classified again by the email keyword rules, from the stored message", () =>
  withApi(async (api) => {
    const uuid = (
      await api.create({ name: "mail", timeout: 3600, grace: 60, filter_subject: true, success_kw: "[OK]", failure_kw: "[FAILED]" })
    ).uuid as string;
    const mail = (subject: string) => {
      const raw = `From: cron@example.com\r\nTo: ${uuid}@localhost\r\nSubject: ${subject}\r\n\r\nbackup log\r\n`;
      return { scheme: "email", method: "", body: new TextEncoder().encode(raw), email: { subject, text: "backup log" } };
    };
    await pingAt(api, uuid, T0, mail("[OK] backup"));
    await pingAt(api, uuid, T0 + 600 * SECOND, mail("[FAILED] backup"));
    await pingAt(api, uuid, T0 + 1200 * SECOND, mail("[OK] backup"));
    const asLogged = [
      { timestamp: iso(T0), up: 1 },
      { timestamp: iso(T0 + 600 * SECOND), up: 0 },
      { timestamp: iso(T0 + 1200 * SECOND), up: 1 },
    ];
    assert.equal(await simulate(api, uuid, {}), { flips: asLogged, down_count: 1, downtime_seconds: 600 });
    const update = await api.call("POST", `/api/v3/checks/${uuid}`, { body: { failure_kw: "", success_kw: "backup" } });
    assert.is(update.status, 200, update.text);
    assert.equal(await simulate(api, uuid, {}), { flips: [{ timestamp: iso(T0), up: 1 }], down_count: 0, downtime_seconds: 0 });
  }));

test("a since after now simulates nothing", () =>
  withApi(async (api) => {
    const uuid = await everyHourish(api);
    assert.equal(await simulate(api, uuid, { since: "2100-01-01T00:00:00Z" }), { flips: [], down_count: 0, downtime_seconds: 0 });
  }));

test("a simulation changes nothing: check, pings, flips and outbox are identical before and after", () =>
  withApi(async (api) => {
    const channel = await api.admin("POST", `/admin/v1/projects/${api.project.id}/channels`, {
      kind: "webhook",
      name: "hook",
      value: "http://127.0.0.1:9/hook",
    });
    assert.is(channel.status, 201, channel.text);
    const uuid = await everyHourish(api);
    const assign = await api.call("POST", `/api/v3/checks/${uuid}`, { body: { channels: "*" } });
    assert.is(assign.status, 200, assign.text);
    const state = async () => ({
      check: (await api.call("GET", `/api/v3/checks/${uuid}`)).json,
      pings: (await api.call("GET", `/api/v3/checks/${uuid}/pings`)).json,
      flips: (await api.call("GET", `/api/v3/checks/${uuid}/flips`)).json,
      outbox: (await api.admin("GET", "/admin/v1/outbox")).json,
    });
    const before = await state();
    assert.is((before.flips as unknown[]).length, 1, "the live check only went up once");
    const simulated = await simulate(api, uuid, { timeout: 1800, grace: 600 });
    assert.is(simulated.down_count, 2, "the simulation itself did flip");
    assert.equal(await state(), before);
  }));

test("bad input answers 400 with the update's error texts and changes nothing", () =>
  withApi(async (api) => {
    const uuid = await everyHourish(api);
    const cases: [unknown, string][] = [
      [{ timeout: "x" }, "json validation error: timeout is not a number"],
      [{ timeout: 30 }, "json validation error: timeout is too small"],
      [{ grace: 31_536_001 }, "json validation error: grace is too large"],
      [{ schedule: "every day" }, "json validation error: schedule is not a valid cron or OnCalendar expression"],
      [{ tz: "Mars/Olympus" }, "json validation error: tz is not a valid timezone"],
      [{ grace: null }, "json validation error: grace is not a valid value"],
    ];
    for (const [body, error] of cases) {
      const res = await api.call("POST", `/api/v3/checks/${uuid}/simulate`, { body });
      assert.equal([res.status, res.json], [400, { error }], JSON.stringify(body));
      const update = await api.call("POST", `/api/v3/checks/${uuid}`, { body });
      assert.equal([update.status, update.json], [400, { error }], `update answers the same for ${JSON.stringify(body)}`);
    }
    const own: [unknown, string][] = [
      [{ failure_threshold: 0 }, "json validation error: failure_threshold is too small"],
      [{ failure_threshold: 101 }, "json validation error: failure_threshold is too large"],
      [{ failure_threshold: 1.5 }, "json validation error: failure_threshold is not an integer"],
      [{ failure_threshold: "3" }, "json validation error: failure_threshold is not an integer"],
      [{ since: "yesterday" }, "json validation error: since must be an ISO 8601 timestamp"],
      [{ since: 1_700_000_000 }, "json validation error: since must be an ISO 8601 timestamp"],
      [[], "json validation error: value is not an object"],
    ];
    for (const [body, error] of own) {
      const res = await api.call("POST", `/api/v3/checks/${uuid}/simulate`, { body });
      assert.equal([res.status, res.json], [400, { error }], JSON.stringify(body));
    }
    const raw = await api.call("POST", `/api/v3/checks/${uuid}/simulate`, { raw: "{not json" });
    assert.equal([raw.status, raw.json], [400, { error: "could not parse request body" }]);
    // a valid threshold is accepted
    assert.is((await simulate(api, uuid, { failure_threshold: 3 })).down_count, 0);
    const check = (await api.call("GET", `/api/v3/checks/${uuid}`)).json as Record<string, unknown>;
    assert.equal([check.timeout, check.grace, check.status], [3600, 60, "up"], "the check is as it was");
  }));

test("keys and checks: 401 without a key, 404 for an unknown check, 403 for another project's", () =>
  withApi(async (api) => {
    const uuid = await everyHourish(api);
    const none = await api.call("POST", `/api/v3/checks/${uuid}/simulate`, { key: null, body: {} });
    assert.equal([none.status, none.json], [401, { error: "missing api key" }]);
    const unknown = await api.call("POST", "/api/v3/checks/00000000-0000-4000-8000-000000000000/simulate", { body: {} });
    assert.equal([unknown.status, unknown.json], [404, { error: "check not found" }]);
    const other = await api.newProject({ name: "other" });
    const foreign = await api.call("POST", `/api/v3/checks/${uuid}/simulate`, { key: other.apiKey, body: { timeout: 30 } });
    assert.equal([foreign.status, foreign.json], [403, { error: "forbidden" }]);
    const get = await api.call("GET", `/api/v3/checks/${uuid}/simulate`);
    assert.is(get.status, 405);
  }));

test("an empty log simulates nothing", () =>
  withApi(async (api) => {
    const uuid = (await api.create({ name: "quiet" })).uuid as string;
    assert.equal(await simulate(api, uuid, { timeout: 60, grace: 60 }), { flips: [], down_count: 0, downtime_seconds: 0 });
  }));

test.run();
