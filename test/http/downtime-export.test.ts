// A project's downtime per check and period (CONTRACT "Alerting, third part"): the periods of a day, a week
// (from Monday) and a month in UTC, each check's incidents, time down, unknown and uptime worked out by
// hand; the CSV's escaping of user text (a formula is never one); GET /api/v3/downtime.csv with both keys
// (a read-only key names checks by unique_key), its bad parameters a 400; and the dashboard's download.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import { downtimeByPeriod, downtimeCsv, periodsBetween } from "../../http/downtime-report.ts";
import { uniqueKeyOf } from "../../host/unique-key.ts";
import { flip } from "../helpers.ts";
import { withApi, withServedApi } from "./harness.ts";
import { session } from "../dashboard/form-session.ts";

const MARCH = Date.UTC(2026, 2, 1); // a Sunday

test("periods: whole UTC days, weeks from Monday and months, meeting the range", () => {
  assert.equal(
    periodsBetween("month", MARCH + 5 * DAY, Date.UTC(2026, 4, 2)).map((p) => p.label),
    ["2026-03", "2026-04", "2026-05"],
  );
  const weeks = periodsBetween("week", MARCH, MARCH + 8 * DAY);
  assert.equal(
    weeks.map((p) => [p.label, p.endAt - p.startAt]),
    [
      ["2026-02-23", 7 * DAY],
      ["2026-03-02", 7 * DAY],
    ],
    "the week holding Sunday 1 March began on Monday 23 February",
  );
  assert.equal(
    periodsBetween("day", MARCH + HOUR, MARCH + DAY + HOUR).map((p) => p.label),
    ["2026-03-01", "2026-03-02"],
  );
});

test("a check's incidents, downtime and unknown time per day, from its flips", () => {
  const periods = periodsBetween("day", MARCH, MARCH + 3 * DAY);
  const flips = [
    flip({ n: 1, at: MARCH + 6 * HOUR, from: "new", to: "up" }),
    flip({ n: 2, at: MARCH + 20 * HOUR, from: "up", to: "down" }), // down over midnight
    flip({ n: 3, at: MARCH + DAY + 2 * HOUR, from: "down", to: "up" }),
    flip({ n: 4, at: MARCH + DAY + 10 * HOUR, from: "up", to: "down" }),
    flip({ n: 5, at: MARCH + DAY + 11 * HOUR, from: "down", to: "up" }),
  ];
  const unknown = [{ fromAt: MARCH + DAY + 1 * HOUR, toAt: MARCH + DAY + 3 * HOUR }]; // hcd away 01:00-03:00 on the 2nd
  const figures = downtimeByPeriod({ flips, status: "up", createdAt: MARCH, now: MARCH + 2 * DAY + 12 * HOUR, periods, unknown });
  assert.equal(figures, [
    { incidents: 1, downMs: 4 * HOUR, unknownMs: 0, watchedMs: 18 * HOUR }, // new until 06:00
    { incidents: 1, downMs: 1 * HOUR + 1 * HOUR, unknownMs: 2 * HOUR, watchedMs: 22 * HOUR }, // down 00-01 (01-02 unknown) and 10-11
    { incidents: 0, downMs: 0, unknownMs: 0, watchedMs: 12 * HOUR }, // up to now, noon
  ]);
});

test("CSV: a header, one row per check and period, RFC 4180 quoting, and no cell read as a formula", () => {
  const row = { period: "2026-03", id: "u", incidents: 2, downMs: 90_000, unknownMs: 1_500, watchedMs: 900_000 };
  const csv = downtimeCsv(
    [
      { ...row, check: "plain" },
      { ...row, check: 'say "hi", then\nbye' },
      { ...row, check: '=HYPERLINK("x")', watchedMs: 0, downMs: 0 },
      { ...row, check: "-1+2" },
    ],
    "unique_key",
  );
  assert.is(
    csv,
    [
      "period,check,unique_key,incidents,downtime_seconds,unknown_seconds,uptime_percent",
      "2026-03,plain,u,2,90,2,90",
      '2026-03,"say ""hi"", then\nbye",u,2,90,2,90',
      `2026-03,"'=HYPERLINK(""x"")",u,2,0,2,`,
      "2026-03,'-1+2,u,2,90,2,90",
    ].join("\r\n") + "\r\n",
  );
});

test("GET /api/v3/downtime.csv: by month by default; a read-only key sees unique keys; bad parameters are a 400", () =>
  withApi(async (api) => {
    const backup = await api.create({ name: "backup", timeout: 3600, grace: 60 });
    await api.ping(String(backup.uuid));
    api.clock.advance(2 * HOUR); // down at T0 + 1 h 1 min
    await api.pool.advance(api.clock.now());
    const res = await api.call("GET", "/api/v3/downtime.csv");
    assert.is(res.status, 200, res.text);
    assert.is(res.headers.get("content-type"), "text/csv; charset=utf-8");
    const down = 2 * HOUR - HOUR - MINUTE;
    const pct = Math.round(((2 * HOUR - down) / (2 * HOUR)) * 10_000) / 100;
    assert.is(
      res.text,
      [
        "period,check,uuid,incidents,downtime_seconds,unknown_seconds,uptime_percent",
        `2025-11,backup,${String(backup.uuid)},0,0,0,`,
        `2025-12,backup,${String(backup.uuid)},0,0,0,`,
        `2026-01,backup,${backup.uuid},1,${down / 1000},0,${pct}`,
      ].join("\r\n") + "\r\n",
    );
    const ro = await api.call("GET", "/api/v3/downtime.csv?by=day&from=2026-01-15&to=2026-01-16", { key: api.project.apiKeyReadonly });
    assert.is(
      ro.text,
      `period,check,unique_key,incidents,downtime_seconds,unknown_seconds,uptime_percent\r\n2026-01-15,backup,${uniqueKeyOf(String(backup.uuid))},1,${down / 1000},0,${pct}\r\n`,
    );
    assert.is((await api.call("GET", "/api/v1/downtime.csv")).status, 200, "every version");
    for (const query of ["by=year", "from=2026-13-01", "from=yesterday", "from=2026-01-10&to=2026-01-09", "by=day&from=2020-01-01"]) {
      const bad = await api.call("GET", `/api/v3/downtime.csv?${query}`);
      assert.is(bad.status, 400, query);
      assert.type((bad.json as { error: string }).error, "string");
    }
    assert.is((await api.call("GET", "/api/v3/downtime.csv", { key: null })).status, 401);
  }));

test("the dashboard's settings page links the download, which answers the same CSV as an attachment", () =>
  withServedApi(async (api, url) => {
    await api.create({ name: "job" });
    const dashboard = await session(url, api.project.apiKey);
    const settings = await dashboard.page(`/projects/${api.project.id}/settings`);
    assert.match(settings.text, `href="/projects/${api.project.id}/downtime.csv?by=month"`);
    const cookie =
      (await fetch(`${url}/signin`, { method: "POST", body: new URLSearchParams({ key: api.project.apiKey }), redirect: "manual" })).headers
        .get("set-cookie")
        ?.split(";")[0] ?? "";
    const csv = await fetch(`${url}/projects/${api.project.id}/downtime.csv?by=week`, { headers: { cookie } });
    assert.is(csv.status, 200);
    assert.match(csv.headers.get("content-disposition") ?? "", /^attachment; filename="downtime-week-\d{4}-\d{2}-\d{2}\.csv"$/);
    const text = await csv.text();
    assert.ok(text.startsWith("period,check,uuid,"), text);
    assert.is(text.split("\r\n").length - 2, 12, "12 weeks of the one check");
  }));

test.run();
