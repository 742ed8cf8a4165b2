// The alerting fields through the API (CONTRACT "Alerting fields of a check"): accepted by create and
// update, shown to read-write and read-only keys, each bad value a 400 that changes nothing; the
// project mute through the admin API and the CLI's direct form.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { withApi } from "./harness.ts";

type Json = Record<string, unknown>;
const fieldsOf = (check: Json) => [check.failure_threshold, check.reminder_interval, check.muted_until];

test("create and update take the three fields; read-write and read-only representations show them", () =>
  withApi(async (api) => {
    const created = await api.create({ name: "a", failure_threshold: 3, reminder_interval: 3600, muted_until: "2026-02-01T10:00:00Z" });
    assert.equal(fieldsOf(created), [3, 3600, "2026-02-01T10:00:00+00:00"]);
    const uuid = created.uuid as string;
    const updated = await api.call("POST", `/api/v3/checks/${uuid}`, {
      body: { reminder_interval: 0, muted_until: "2026-02-01T12:30:00+02:00" },
    });
    assert.is(updated.status, 200, updated.text);
    assert.equal(fieldsOf(updated.json as Json), [3, 0, "2026-02-01T10:30:00+00:00"], "only the fields sent change; offsets are converted");
    const unmuted = await api.call("POST", `/api/v3/checks/${uuid}`, { body: { muted_until: null } });
    assert.equal(fieldsOf(unmuted.json as Json), [3, 0, null], "null clears the mute");
    await api.call("POST", `/api/v3/checks/${uuid}`, { body: { muted_until: "2026-03-01T00:00:00Z" } });
    const readOnly = await api.call("GET", "/api/v3/checks/", { key: api.project.apiKeyReadonly });
    assert.equal(fieldsOf((readOnly.json as { checks: Json[] }).checks[0]), [3, 0, "2026-03-01T00:00:00+00:00"]);
    const plain = await api.create({ name: "b" });
    assert.equal(fieldsOf(plain), [1, 0, null], "the defaults");
  }));

// [field, bad values]
const BAD: [string, unknown[]][] = [
  ["failure_threshold", [0, 101, -1, 1.5, "3", null, true, [], {}]],
  ["reminder_interval", [-1, 1, 299, 31_536_001, 1.5, "300", null, false, []]],
  [
    "muted_until",
    [
      "tomorrow",
      "",
      1767225600,
      "2026-13-01T00:00:00Z",
      "2026-02-30T10:00:00Z",
      "2026-02-01T24:00:00Z",
      "2026-02-01",
      "2026-02-01T10:00:00+25:00",
      true,
      {},
      [],
    ],
  ],
];
for (const [field, values] of BAD) {
  test(`${field}: each bad value is a 400 with an error, on create and update, and changes nothing`, () =>
    withApi(async (api) => {
      const check = await api.create({ name: "kept" });
      for (const value of values) {
        const made = await api.call("POST", "/api/v3/checks/", { body: { name: "new", [field]: value } });
        assert.is(made.status, 400, `create ${field}=${JSON.stringify(value)}: ${made.text}`);
        assert.match(String((made.json as Json).error), field);
        const changed = await api.call("POST", `/api/v3/checks/${check.uuid}`, { body: { name: "changed", [field]: value } });
        assert.is(changed.status, 400, `update ${field}=${JSON.stringify(value)}`);
      }
      const list = await api.call("GET", "/api/v3/checks/");
      assert.equal(
        (list.json as { checks: Json[] }).checks.map((c) => [c.name, ...fieldsOf(c)]),
        [["kept", 1, 0, null]],
      );
    }));
}

test("edges that are valid: thresholds 1 and 100, intervals 0, 300 and 31536000, a past mute", () =>
  withApi(async (api) => {
    for (const [field, value, shown] of [
      ["failure_threshold", 1, 1],
      ["failure_threshold", 100, 100],
      ["reminder_interval", 0, 0],
      ["reminder_interval", 300, 300],
      ["reminder_interval", 31_536_000, 31_536_000],
      ["muted_until", "2000-01-01T00:00:00.123456Z", "2000-01-01T00:00:00+00:00"],
    ] as const) {
      const made = await api.call("POST", "/api/v3/checks/", { body: { [field]: value } });
      assert.is(made.status, 201, `${field}=${value}: ${made.text}`);
      assert.is((made.json as Json)[field], shown);
    }
  }));

test("project mute: 200 with muted_until, shown in the project list; null ends it; bad input 400, unknown project 404", () =>
  withApi(async (api) => {
    const path = `/admin/v1/projects/${api.project.id}/mute`;
    const set = await api.admin("POST", path, { until: "2026-01-16T08:00:00+01:00" });
    assert.is(set.status, 200, set.text);
    assert.equal(set.json, { muted_until: "2026-01-16T07:00:00+00:00" });
    const listed = await api.admin("GET", "/admin/v1/projects");
    const mine = (listed.json as { projects: Json[] }).projects.find((p) => p.id === api.project.id);
    assert.is(mine?.muted_until, "2026-01-16T07:00:00+00:00");
    for (const body of [{}, { until: "soon" }, { until: 5 }, { until: true }, { until: "2026-01-32T00:00:00Z" }]) {
      const bad = await api.admin("POST", path, body);
      assert.is(bad.status, 400, JSON.stringify(body));
      assert.type((bad.json as Json).error, "string");
    }
    const still = await api.admin("GET", "/admin/v1/projects");
    assert.is(
      (still.json as { projects: Json[] }).projects.find((p) => p.id === api.project.id)?.muted_until,
      "2026-01-16T07:00:00+00:00",
      "bad input changed nothing",
    );
    assert.is((await api.admin("POST", "/admin/v1/projects/00000000-0000-4000-8000-000000000000/mute", { until: null })).status, 404);
    assert.is((await api.call("POST", path, { body: { until: null } })).status, 401, "admin only");
    const cleared = await api.admin("POST", path, { until: null });
    assert.equal([cleared.status, cleared.json], [200, { muted_until: null }]);
  }));

test.run();
