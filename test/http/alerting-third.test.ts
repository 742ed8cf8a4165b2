// The third part's check fields through the API (CONTRACT "Alerting, third part"): min_duration,
// alert_on_overlap, max_runs_per_period and escalation accepted by create and update under every version,
// shown to read-write and read-only keys (a read-only key sees no integrations), each bad value a 400 that
// changes nothing, taken by simulate, and restored after a restart; the project's policy through the admin API.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createInProcessPool } from "../../app/pools.ts";
import type { PoolOptions } from "../../app/pools.ts";
import type { Millis, PingSignal } from "../../engine/model.ts";
import { DAY, HOUR, MINUTE, SECOND } from "../../engine/model.ts";
import { pingOf } from "../../bench/scenarios.ts";
import { pingThrough, tempDir } from "../helpers.ts";
import type { Api } from "./harness.ts";
import { T0, testEachVersion, withApi } from "./harness.ts";

type Json = Record<string, unknown>;
const iso = (at: Millis) => new Date(at).toISOString().slice(0, 19) + "+00:00";

async function channel(api: Api, name: string): Promise<string> {
  const res = await api.admin("POST", `/admin/v1/projects/${api.project.id}/channels`, {
    kind: "email",
    name,
    value: `${name}@example.com`,
  });
  assert.is(res.status, 201, res.text);
  return (res.json as Json).id as string;
}

testEachVersion(test, "create and update take the run rules and an escalation policy; both keys see them", async (api) => {
  const second = await channel(api, "second"),
    third = await channel(api, "third");
  const created = await api.create({
    name: "job",
    min_duration: 60,
    alert_on_overlap: true,
    max_runs_per_period: 2,
    escalation: [
      { after: 900, channels: "second" },
      { after: 3600, channels: `${third},second` },
    ],
  });
  assert.equal([created.min_duration, created.alert_on_overlap, created.max_runs_per_period, created.escalated], [60, true, 2, 0]);
  assert.equal(
    created.escalation,
    [
      { after: 900, channels: second },
      { after: 3600, channels: [second, third].sort().join(",") },
    ],
    "names resolved to ids, each step's ids sorted",
  );
  const updated = await api.call("POST", `${api.root}/checks/${created.uuid}`, {
    body: { min_duration: 0, alert_on_overlap: false, max_runs_per_period: 0, escalation: [] },
  });
  assert.is(updated.status, 200, updated.text);
  assert.equal(
    [
      (updated.json as Json).min_duration,
      (updated.json as Json).alert_on_overlap,
      (updated.json as Json).max_runs_per_period,
      (updated.json as Json).escalation,
    ],
    [0, false, 0, []],
  );
  const back = await api.call("POST", `${api.root}/checks/${created.uuid}`, { body: { escalation: [{ after: 60, channels: "*" }] } });
  assert.equal((back.json as Json).escalation, [{ after: 60, channels: [second, third].sort().join(",") }], "* = every integration");
  const readOnly = await api.call("GET", `${api.root}/checks/`, { key: api.project.apiKeyReadonly });
  const shown = (readOnly.json as { checks: Json[] }).checks[0];
  assert.equal(
    [shown.min_duration, shown.alert_on_overlap, shown.max_runs_per_period, shown.escalation, shown.escalated],
    [0, false, 0, [{ after: 60 }], 0],
  );
  const defaults = await api.create({ name: "plain" });
  assert.equal([defaults.min_duration, defaults.alert_on_overlap, defaults.max_runs_per_period, defaults.escalation], [0, false, 0, null]);
  const toProject = await api.call("POST", `${api.root}/checks/${created.uuid}`, { body: { escalation: null } });
  assert.is((toProject.json as Json).escalation, null, "null: the project's policy again");
});

test("each bad value is a 400 naming its field, on create and update, and changes nothing", () =>
  withApi(async (api) => {
    await channel(api, "pager");
    const kept = await api.create({
      name: "kept",
      min_duration: 30,
      max_runs_per_period: 1,
      escalation: [{ after: 600, channels: "pager" }],
    });
    const bad: [string, unknown][] = [
      ["min_duration", -1],
      ["min_duration", 604_801],
      ["min_duration", 1.5],
      ["min_duration", "60"],
      ["min_duration", null],
      ["alert_on_overlap", 1],
      ["alert_on_overlap", "true"],
      ["alert_on_overlap", null],
      ["max_runs_per_period", -1],
      ["max_runs_per_period", 1001],
      ["max_runs_per_period", 2.5],
      ["max_runs_per_period", null],
      ["escalation", {}],
      ["escalation", "pager"],
      ["escalation", [{ after: 59, channels: "pager" }]],
      ["escalation", [{ after: 600 }]],
      ["escalation", [{ after: 600, channels: "" }]],
      ["escalation", [{ after: 600, channels: "nope" }]],
      ["escalation", [{ after: 604_801, channels: "pager" }]],
      [
        "escalation",
        [
          { after: 600, channels: "pager" },
          { after: 600, channels: "pager" },
        ],
      ],
      [
        "escalation",
        [
          { after: 60, channels: "pager" },
          { after: 120, channels: "pager" },
          { after: 180, channels: "pager" },
        ],
      ],
      ["escalation", [null]],
    ];
    for (const [field, value] of bad) {
      const made = await api.call("POST", "/api/v3/checks/", { body: { name: "new", [field]: value } });
      assert.is(made.status, 400, `create ${field}=${JSON.stringify(value)}: ${made.text}`);
      assert.match(String((made.json as Json).error), field);
      const changed = await api.call("POST", `/api/v3/checks/${kept.uuid}`, { body: { name: "changed", [field]: value } });
      assert.is(changed.status, 400, `update ${field}=${JSON.stringify(value)}`);
    }
    const list = await api.call("GET", "/api/v3/checks/");
    assert.equal((list.json as { checks: Json[] }).checks, [kept]);
  }));

test("simulate takes the run rules: a run of 3 s is a down change only with min_duration 60", () =>
  withApi(async (api) => {
    const uuid = (await api.create({ name: "backup", timeout: 86_400, grace: 3600 })).uuid as string;
    const pingAt = async (offsetS: number, signal: PingSignal) => {
      api.clock.advance(T0 + offsetS * SECOND - api.clock.now());
      await api.ping(uuid, { signal });
    };
    await pingAt(0, "start");
    await pingAt(3, "success");
    const simulate = async (body: Json) => {
      const res = await api.call("POST", `/api/v3/checks/${uuid}/simulate`, { body });
      assert.is(res.status, 200, res.text);
      return res.json as { flips: { timestamp: string; up: number }[]; notifications: Json };
    };
    assert.equal((await simulate({})).flips, [{ timestamp: iso(T0 + 3 * SECOND), up: 1 }]);
    assert.equal((await simulate({ min_duration: 60 })).flips, [{ timestamp: iso(T0 + 3 * SECOND), up: 0 }]);
    const escalated = await simulate({ min_duration: 60, escalation: [{ after: 600, channels: "*" }] });
    assert.is(escalated.notifications.escalations, 0, "the step comes 600 s after the down change, past the simulated window");
    const bad = await api.call("POST", `/api/v3/checks/${uuid}/simulate`, { body: { max_runs_per_period: -1 } });
    assert.equal([bad.status, String((bad.json as Json).error).includes("max_runs_per_period")], [400, true]);
  }));

test("simulate counts the escalation steps a policy would have reached", () =>
  withApi(async (api) => {
    await channel(api, "pager");
    const uuid = (await api.create({ name: "backup", timeout: 86_400, grace: 3600 })).uuid as string;
    await api.ping(uuid, { signal: "fail" });
    api.clock.advance(2 * HOUR);
    const res = await api.call("POST", `/api/v3/checks/${uuid}/simulate`, {
      body: {
        escalation: [
          { after: 900, channels: "pager" },
          { after: 3600, channels: "pager" },
        ],
      },
    });
    assert.is(res.status, 200, res.text);
    assert.equal((res.json as { notifications: Json }).notifications, { down: 1, up: 0, reminders: 0, held: 0, escalations: 2 });
  }));

test("the project's escalation policy: admin PUT and GET, applied to checks without their own; bad ones are a 400", () =>
  withApi(async (api) => {
    const pager = await channel(api, "pager");
    const path = `/admin/v1/projects/${api.project.id}/escalation`;
    assert.equal((await api.admin("GET", path)).json, { escalation: [] });
    const set = await api.admin("PUT", path, { escalation: [{ after: 300, channels: "pager" }] });
    assert.equal([set.status, set.json], [200, { escalation: [{ after: 300, channels: pager }] }]);
    assert.equal((await api.admin("GET", path)).json, { escalation: [{ after: 300, channels: pager }] });
    for (const body of [{}, { escalation: [{ after: 10, channels: "pager" }] }, { escalation: [{ after: 300, channels: "nope" }] }]) {
      const refused = await api.admin("PUT", path, body);
      assert.is(refused.status, 400, JSON.stringify(body));
      assert.match(String((refused.json as Json).error), "escalation");
    }
    assert.equal(
      (await api.admin("GET", path)).json,
      { escalation: [{ after: 300, channels: pager }] },
      "a refused change changes nothing",
    );
    assert.is((await api.call("GET", path, { key: api.project.apiKey })).status, 401, "the admin token only");
    const uuid = (await api.create({ name: "follows", channels: "" })).uuid as string;
    await api.ping(uuid, { signal: "fail" });
    await api.pool.advance(api.clock.now() + 5 * MINUTE);
    const check = await api.call("GET", `/api/v3/checks/${uuid}`);
    assert.is((check.json as Json).escalated, 1, "the project's step reached the check");
    const cleared = await api.admin("PUT", path, { escalation: [] });
    assert.equal(cleared.json, { escalation: [] });
  }));

function options(dataDir: string, startAt: Millis): PoolOptions {
  return {
    dataDir,
    shards: 1,
    durability: "commit",
    startAt,
    clock: "virtual",
    notify: { siteRoot: "http://hcd.test", allowPrivateIps: true, smtpUrl: null },
  };
}

test("restart: the fields, a period's count and a planned escalation step survive; the step comes once, after the restart", async () => {
  const dir = tempDir();
  let pool = await createInProcessPool(options(dir.path, T0));
  try {
    const project = await pool.createProject({ name: "p", checkLimit: 20, pingLogLimit: 100, pingBodyLimit: 10_000 }, T0);
    const pager = await pool.addChannel(
      project.id,
      { kind: "email", name: "pager", value: { kind: "email", address: "p@example.com" } },
      T0,
    );
    if (!pager.ok) throw new Error("channel");
    const made = await pool.createCheck(
      project.id,
      {
        name: "job",
        timeoutMs: DAY,
        graceMs: HOUR,
        minDurationMs: 60 * SECOND,
        alertOnOverlap: true,
        maxRunsPerPeriod: 1,
        escalation: [{ afterMs: 15 * MINUTE, channels: { refs: ["pager"] } }],
      },
      [],
      T0,
    );
    if (!made.ok) throw new Error("create failed");
    const uuid = made.value.check.uuid;
    await pingThrough(pool, pingOf({ uuid }, T0 + MINUTE)); // the period's first run
    await pool.close();

    pool = await createInProcessPool(options(dir.path, T0 + 2 * MINUTE));
    const loaded = await pool.getCheck(project.id, { uuid });
    if (!loaded.ok) throw new Error("check gone");
    assert.equal(
      [loaded.value.minDurationMs, loaded.value.alertOnOverlap, loaded.value.maxRunsPerPeriod, loaded.value.escalation],
      [60 * SECOND, true, 1, [{ afterMs: 15 * MINUTE, channels: [pager.value.id] }]],
    );
    await pingThrough(pool, pingOf({ uuid }, T0 + 3 * MINUTE)); // the period's second: too often, down
    await pool.close();

    pool = await createInProcessPool(options(dir.path, T0 + 10 * MINUTE));
    await pool.advance(T0 + 30 * MINUTE);
    const flips = await pool.listFlips(project.id, { uuid }, {});
    assert.equal(flips.ok && flips.value.map((f) => [f.to, f.reason]), [
      ["down", "too_often"],
      ["up", ""],
    ]);
    const after = await pool.getCheck(project.id, { uuid });
    assert.is(after.ok && after.value.alert?.escalated, 1, "the step planned before the restart reached once");
  } finally {
    await pool.close();
    dir.remove();
  }
});

test.run();
