// max_duration through the API and across a restart (CONTRACT "Alerting, second part"): accepted by create
// and update, shown to both keys, each bad value a 400 that changes nothing, taken by simulate; a run
// started before a restart on the same store goes down at its start plus max_duration after it.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createInProcessPool } from "../../app/pools.ts";
import type { PoolOptions } from "../../app/pools.ts";
import type { Millis, PingSignal } from "../../engine/model.ts";
import { DAY, HOUR, MINUTE, SECOND } from "../../engine/model.ts";
import { pingOf } from "../../bench/scenarios.ts";
import { pingThrough, tempDir } from "../helpers.ts";
import { T0, withApi } from "./harness.ts";

type Json = Record<string, unknown>;
const iso = (at: Millis) => new Date(at).toISOString().slice(0, 19) + "+00:00";

test("create and update take max_duration; read-write and read-only representations show it; 0 by default", () =>
  withApi(async (api) => {
    const created = await api.create({ name: "a", max_duration: 7200 });
    assert.is(created.max_duration, 7200);
    const updated = await api.call("POST", `/api/v3/checks/${created.uuid}`, { body: { max_duration: 60 } });
    assert.equal([updated.status, (updated.json as Json).max_duration], [200, 60]);
    const readOnly = await api.call("GET", "/api/v3/checks/", { key: api.project.apiKeyReadonly });
    assert.is((readOnly.json as { checks: Json[] }).checks[0].max_duration, 60);
    assert.is((await api.create({ name: "b" })).max_duration, 0);
    const off = await api.call("POST", `/api/v3/checks/${created.uuid}`, { body: { max_duration: 0 } });
    assert.is((off.json as Json).max_duration, 0);
    const top = await api.call("POST", `/api/v3/checks/${created.uuid}`, { body: { max_duration: 604_800 } });
    assert.is((top.json as Json).max_duration, 604_800);
  }));

test("each bad max_duration is a 400 naming the field, on create and update, and changes nothing", () =>
  withApi(async (api) => {
    const kept = await api.create({ name: "kept", max_duration: 600 });
    for (const value of [1, 59, -1, 604_801, 1.5, "60", null, true, [], {}]) {
      const made = await api.call("POST", "/api/v3/checks/", { body: { name: "new", max_duration: value } });
      assert.is(made.status, 400, `create ${JSON.stringify(value)}: ${made.text}`);
      assert.match(String((made.json as Json).error), "max_duration");
      const changed = await api.call("POST", `/api/v3/checks/${kept.uuid}`, { body: { name: "changed", max_duration: value } });
      assert.is(changed.status, 400, `update ${JSON.stringify(value)}`);
    }
    const list = await api.call("GET", "/api/v3/checks/");
    assert.equal(
      (list.json as { checks: Json[] }).checks.map((c) => [c.name, c.max_duration]),
      [["kept", 600]],
    );
  }));

test("simulate takes max_duration: a 4-hour run is down after the grace without it, after 3 hours with it", () =>
  withApi(async (api) => {
    const uuid = (await api.create({ name: "nightly", timeout: 86_400, grace: 3600 })).uuid as string;
    const pingAt = async (offsetS: number, signal: PingSignal) => {
      api.clock.advance(T0 + offsetS * SECOND - api.clock.now());
      await api.ping(uuid, { signal });
    };
    await pingAt(0, "success");
    await pingAt(600, "start");
    await pingAt(600 + 4 * 3600, "success");
    const simulate = async (body: Json) => {
      const res = await api.call("POST", `/api/v3/checks/${uuid}/simulate`, { body });
      assert.is(res.status, 200, res.text);
      return (res.json as { flips: { timestamp: string; up: number }[] }).flips;
    };
    const upAgain = { timestamp: iso(T0 + (600 + 4 * 3600) * SECOND), up: 1 };
    assert.equal(await simulate({}), [{ timestamp: iso(T0), up: 1 }, { timestamp: iso(T0 + (600 + 3600) * SECOND), up: 0 }, upAgain]);
    assert.equal(await simulate({ max_duration: 3 * 3600 }), [
      { timestamp: iso(T0), up: 1 },
      { timestamp: iso(T0 + (600 + 3 * 3600) * SECOND), up: 0 },
      upAgain,
    ]);
    const bad = await api.call("POST", `/api/v3/checks/${uuid}/simulate`, { body: { max_duration: 30 } });
    assert.is(bad.status, 400);
    assert.match(String((bad.json as Json).error), "max_duration");
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

test("restart: max_duration and the open run survive; the run goes down at its start plus max_duration, with its reason", async () => {
  const dir = tempDir();
  let pool = await createInProcessPool(options(dir.path, T0));
  try {
    const project = await pool.createProject({ name: "p", checkLimit: 20, pingLogLimit: 100, pingBodyLimit: 10_000 }, T0);
    const made = await pool.createCheck(project.id, { name: "nightly", timeoutMs: DAY, graceMs: HOUR }, [], T0);
    if (!made.ok) throw new Error("create failed");
    const uuid = made.value.check.uuid;
    assert.ok((await pool.updateCheck(project.id, uuid, { maxDurationMs: 3 * HOUR }, T0)).ok); // an update's record, not the create's
    await pingThrough(pool, pingOf({ uuid }, T0 + MINUTE));
    await pingThrough(pool, pingOf({ uuid }, T0 + 10 * MINUTE, { signal: "start" }));
    await pool.close();

    pool = await createInProcessPool(options(dir.path, T0 + 20 * MINUTE));
    const loaded = await pool.getCheck(project.id, { uuid });
    assert.ok(loaded.ok);
    if (loaded.ok) assert.equal([loaded.value.maxDurationMs, loaded.value.lastStartAt], [3 * HOUR, T0 + 10 * MINUTE]);
    await pool.advance(T0 + 190 * MINUTE - 1);
    const before = await pool.listFlips(project.id, { uuid }, {});
    assert.ok(before.ok);
    if (before.ok)
      assert.equal(
        before.value.map((f) => f.to),
        ["up"],
        "not before start + max_duration (the grace has long passed)",
      );
    await pool.advance(T0 + 190 * MINUTE);
    const after = await pool.listFlips(project.id, { uuid }, {});
    assert.ok(after.ok);
    if (after.ok)
      assert.equal(
        after.value.map((f) => [f.to, f.at, f.reason]),
        [
          ["down", T0 + 190 * MINUTE, "duration"],
          ["up", T0 + MINUTE, ""],
        ],
      );
  } finally {
    await pool.close();
    dir.remove();
  }
});

test.run();
