// Recurring maintenance windows through the admin API and across a restart (CONTRACT "Alerting, second
// part"): POST 201 with the window, GET lists, DELETE 204; bad input a 400 that adds nothing; a window
// stored before a restart mutes after it, and a check still down at its end is notified once.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createInProcessPool } from "../../app/pools.ts";
import { DAY, HOUR } from "../../engine/model.ts";
import { pingOf } from "../../bench/scenarios.ts";
import { httpReceiver } from "../notify/receivers.ts";
import { pingThrough, tempDir } from "../helpers.ts";
import { withApi } from "./harness.ts";
import { projectWithWebhook, untilCount, virtualPoolOptions } from "./restart-harness.ts";

type Json = Record<string, unknown>;

test("maintenance: POST 201 with the window, GET lists them, DELETE 204, then 404; admin only", () =>
  withApi(async (api) => {
    const path = `/admin/v1/projects/${api.project.id}/maintenance`;
    const made = await api.admin("POST", path, { name: "nightly", schedule: "0 2 * * *", tz: "Europe/Riga", duration: 7200 });
    assert.is(made.status, 201, made.text);
    const window = made.json as Json;
    assert.match(String(window.id), /^[0-9a-f-]{36}$/);
    assert.equal({ ...window, id: 0 }, { id: 0, name: "nightly", schedule: "0 2 * * *", tz: "Europe/Riga", duration: 7200 });
    const calendar = await api.admin("POST", path, { name: "sundays", schedule: "Sun *-*-* 03:00:00", tz: "UTC", duration: 604_800 });
    assert.is(calendar.status, 201, calendar.text);
    const listed = await api.admin("GET", path);
    assert.equal(
      (listed.json as { maintenance: Json[] }).maintenance.map((w) => [w.name, w.duration]),
      [
        ["nightly", 7200],
        ["sundays", 604_800],
      ],
    );
    assert.is((await api.call("POST", path, { body: { schedule: "0 2 * * *", duration: 60 } })).status, 401, "an API key is not the admin");
    const removed = await api.admin("DELETE", `${path}/${window.id}`);
    assert.equal([removed.status, removed.text], [204, ""]);
    assert.is((await api.admin("DELETE", `${path}/${window.id}`)).status, 404);
    assert.equal(
      ((await api.admin("GET", path)).json as { maintenance: Json[] }).maintenance.map((w) => w.name),
      ["sundays"],
    );
    assert.is((await api.admin("GET", "/admin/v1/projects/00000000-0000-4000-8000-000000000000/maintenance")).status, 404);
  }));

test("maintenance: each bad body is a 400 with an error, and adds nothing", () =>
  withApi(async (api) => {
    const path = `/admin/v1/projects/${api.project.id}/maintenance`;
    const good = { name: "n", schedule: "0 2 * * *", tz: "UTC", duration: 3600 };
    const bad: Json[] = [
      { ...good, schedule: "not a schedule" },
      { ...good, schedule: "" },
      { ...good, schedule: 5 },
      { name: "n", tz: "UTC", duration: 3600 },
      { ...good, tz: "Mars/Base" },
      { ...good, tz: 1 },
      { ...good, duration: 59 },
      { ...good, duration: 604_801 },
      { ...good, duration: "3600" },
      { ...good, duration: 60.5 },
      { name: "n", schedule: "0 2 * * *" },
      { ...good, name: 7 },
      { ...good, name: "x".repeat(101) },
    ];
    for (const body of bad) {
      const answer = await api.admin("POST", path, body);
      assert.is(answer.status, 400, `${JSON.stringify(body)}: ${answer.text}`);
      assert.type((answer.json as Json).error, "string");
    }
    assert.equal(((await api.admin("GET", path)).json as { maintenance: Json[] }).maintenance, []);
    assert.is((await api.admin("POST", path, { ...good, duration: 60 })).status, 201, "the smallest duration is fine");
  }));

test("restart: a window stored before it mutes after it; the check still down at its end is notified once", async () => {
  const receiver = await httpReceiver();
  const dir = tempDir();
  const T0 = Date.UTC(2026, 5, 1);
  let pool = await createInProcessPool(virtualPoolOptions(dir.path, T0));
  try {
    const { project } = await projectWithWebhook(pool, T0, { down: `${receiver.url}/down?now=$NOW`, up: `${receiver.url}/up?now=$NOW` });
    const window = await pool.addMaintenance(project.id, { name: "nightly", schedule: "0 2 * * *", tz: "UTC", durationMs: 2 * HOUR }, T0);
    assert.ok(window.ok);
    const made = await pool.createCheck(project.id, { name: "db", timeoutMs: DAY, graceMs: HOUR, channels: { all: true } }, [], T0);
    if (!made.ok) throw new Error("create failed");
    const uuid = made.value.check.uuid;
    await pingThrough(pool, pingOf({ uuid }, T0 + HOUR));
    await pool.close();

    pool = await createInProcessPool(virtualPoolOptions(dir.path, T0 + 90 * 60_000));
    await pool.advance(T0 + 2 * HOUR + 30 * 60_000);
    await pingThrough(pool, pingOf({ uuid }, T0 + 2 * HOUR + 30 * 60_000, { signal: "fail" })); // inside the window: silent
    await pool.advance(T0 + 5 * HOUR);
    await pingThrough(pool, pingOf({ uuid }, T0 + 5 * HOUR + 60_000)); // the marker: its up comes after any repeat
    await untilCount(receiver.requests, 2);
    assert.equal(
      receiver.requests.map((r) => r.path),
      ["/down?now=2026-06-01T04%3A00%3A00%2B00%3A00", "/up?now=2026-06-01T05%3A01%3A00%2B00%3A00"],
    );
  } finally {
    await pool.close();
    await receiver.close();
    dir.remove();
  }
});

test.run();
