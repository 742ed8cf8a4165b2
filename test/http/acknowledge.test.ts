// POST /api/v3/checks/<uuid>/acknowledge and the read-only `acknowledged` field (CONTRACT "Alerting, second
// part"): 200 with the check while it is down, 409 when not, the read-write key only; cleared by the next
// up; and an acknowledged outage sends no reminder after a restart on the same store (a real webhook).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createInProcessPool } from "../../app/pools.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import { pingOf } from "../../bench/scenarios.ts";
import { httpReceiver } from "../notify/receivers.ts";
import { pingThrough, tempDir } from "../helpers.ts";
import { withApi } from "./harness.ts";
import { projectWithWebhook, untilCount, virtualPoolOptions } from "./restart-harness.ts";

type Json = Record<string, unknown>;

test("acknowledge: 409 while not down, 200 with acknowledged true while down, shown to both keys; up clears it", () =>
  withApi(async (api) => {
    const uuid = (await api.create({ name: "db", reminder_interval: 3600 })).uuid as string;
    const path = `/api/v3/checks/${uuid}/acknowledge`;
    const fresh = await api.call("POST", path);
    assert.equal([fresh.status, (fresh.json as Json).error], [409, "check is not down"]);
    await api.ping(uuid, { signal: "success" });
    assert.is((await api.call("POST", path)).status, 409, "up");
    await api.ping(uuid, { signal: "fail" });
    const before = await api.call("GET", `/api/v3/checks/${uuid}`);
    assert.equal([(before.json as Json).status, (before.json as Json).acknowledged], ["down", false]);
    const acked = await api.call("POST", path);
    assert.is(acked.status, 200, acked.text);
    assert.equal([(acked.json as Json).status, (acked.json as Json).acknowledged, (acked.json as Json).uuid], ["down", true, uuid]);
    const again = await api.call("POST", path);
    assert.equal([again.status, (again.json as Json).acknowledged], [200, true], "acknowledging again is harmless");
    const readOnly = await api.call("GET", "/api/v3/checks/", { key: api.project.apiKeyReadonly });
    assert.is((readOnly.json as { checks: Json[] }).checks[0].acknowledged, true);
    await api.ping(uuid, { signal: "success" });
    const up = await api.call("GET", `/api/v3/checks/${uuid}`);
    assert.equal([(up.json as Json).status, (up.json as Json).acknowledged], ["up", false]);
  }));

test("acknowledge: read-only key 401, unknown check 404, another project's check 403; nothing changes", () =>
  withApi(async (api) => {
    const uuid = (await api.create({ name: "db" })).uuid as string;
    await api.ping(uuid, { signal: "fail" });
    const path = `/api/v3/checks/${uuid}/acknowledge`;
    const readOnly = await api.call("POST", path, { key: api.project.apiKeyReadonly });
    assert.is(readOnly.status, 401);
    assert.type((readOnly.json as Json).error, "string");
    assert.is((await api.call("POST", "/api/v3/checks/00000000-0000-4000-8000-00000000abcd/acknowledge")).status, 404);
    const other = await api.newProject({ name: "other" });
    const foreign = await api.call("POST", path, { key: other.apiKey });
    assert.is(foreign.status, 403);
    const shown = await api.call("GET", `/api/v3/checks/${uuid}`);
    assert.is((shown.json as Json).acknowledged, false);
  }));

test("restart: an acknowledged outage stays acknowledged and sends no reminder; the up after it is heard", async () => {
  const receiver = await httpReceiver();
  const dir = tempDir();
  const T0 = Date.UTC(2026, 5, 1);
  let pool = await createInProcessPool(virtualPoolOptions(dir.path, T0));
  try {
    const { project } = await projectWithWebhook(pool, T0, { down: `${receiver.url}/down?r=$REMINDER`, up: `${receiver.url}/up` });
    const made = await pool.createCheck(
      project.id,
      { name: "db", timeoutMs: DAY, graceMs: HOUR, reminderIntervalMs: HOUR, channels: { all: true } },
      [],
      T0,
    );
    if (!made.ok) throw new Error("create failed");
    const uuid = made.value.check.uuid;
    await pingThrough(pool, pingOf({ uuid }, T0 + MINUTE, { signal: "fail" }));
    await pool.advance(T0 + 61 * MINUTE); // the first reminder
    await untilCount(receiver.requests, 2);
    assert.ok((await pool.acknowledgeCheck(project.id, uuid, "api", T0 + 70 * MINUTE)).ok);
    await pool.close();

    pool = await createInProcessPool(virtualPoolOptions(dir.path, T0 + 80 * MINUTE));
    const loaded = await pool.getCheck(project.id, { uuid });
    assert.ok(loaded.ok && loaded.value.alert?.acknowledged?.at === T0 + 70 * MINUTE, "the acknowledgement was restored");
    await pool.advance(T0 + 10 * HOUR); // nine more intervals
    await pingThrough(pool, pingOf({ uuid }, T0 + 10 * HOUR + MINUTE)); // the marker: its up request comes after any reminder
    await untilCount(receiver.requests, 3);
    assert.equal(
      receiver.requests.map((r) => r.path),
      ["/down?r=0", "/down?r=1", "/up"],
    );
  } finally {
    await pool.close();
    await receiver.close();
    dir.remove();
  }
});

test.run();
