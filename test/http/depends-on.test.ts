// depends_on and held_by through the API and across a restart (CONTRACT "Alerting, second part"): accepted
// by create and update, shown to both keys (a read-only key sees unique keys, never uuids), each bad value
// a 400 that changes nothing; a check held before a restart is released by its dependency after it, once.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createInProcessPool } from "../../app/pools.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import { uniqueKeyOf } from "../../host/unique-key.ts";
import { pingOf } from "../../bench/scenarios.ts";
import { httpReceiver } from "../notify/receivers.ts";
import { pingThrough, tempDir } from "../helpers.ts";
import { withApi } from "./harness.ts";
import { projectWithWebhook, untilCount, virtualPoolOptions } from "./restart-harness.ts";

type Json = Record<string, unknown>;

test("depends_on on create and update; held_by while the dependency is down; a read-only key sees unique keys", () =>
  withApi(async (api) => {
    const db = (await api.create({ name: "db" })).uuid as string;
    const web = await api.create({ name: "web", depends_on: ` ${db} ,` });
    assert.equal([web.depends_on, web.held_by], [db, null]);
    const uuid = web.uuid as string;
    await api.ping(db, { signal: "fail" });
    await api.ping(uuid, { signal: "fail" });
    const shown = (await api.call("GET", `/api/v3/checks/${uuid}`)).json as Json;
    assert.equal([shown.status, shown.held_by], ["down", db]);
    const readOnly = await api.call("GET", "/api/v3/checks/", { key: api.project.apiKeyReadonly });
    const seen = (readOnly.json as { checks: Json[] }).checks.find((c) => c.name === "web");
    assert.equal([seen?.depends_on, seen?.held_by], [uniqueKeyOf(db), uniqueKeyOf(db)]);
    assert.not.match(readOnly.text, db, "no uuid reaches a read-only key");
    await api.ping(db, { signal: "success" });
    assert.is(((await api.call("GET", `/api/v3/checks/${uuid}`)).json as Json).held_by, null);
    const cleared = await api.call("POST", `/api/v3/checks/${uuid}`, { body: { depends_on: "" } });
    assert.equal([cleared.status, (cleared.json as Json).depends_on], [200, ""]);
  }));

test("bad depends_on: a 400 naming the field, on create and update, and nothing changes", () =>
  withApi(async (api) => {
    const db = (await api.create({ name: "db" })).uuid as string;
    const web = (await api.create({ name: "web", depends_on: db })).uuid as string;
    const other = await api.newProject({ name: "other" });
    const foreign = await api.call("POST", "/api/v3/checks/", { key: other.apiKey, body: { name: "x" } });
    const foreignUuid = (foreign.json as Json).uuid as string;
    const bad: [string, unknown][] = [
      ["not a string", 5],
      ["null", null],
      ["not uuids", "db"],
      ["upper case", db.toUpperCase()],
      ["a list", [db]],
      ["another project's check", foreignUuid],
      ["an unknown check", "00000000-0000-4000-8000-00000000abcd"],
    ];
    for (const [what, value] of bad) {
      const made = await api.call("POST", "/api/v3/checks/", { body: { name: "new", depends_on: value } });
      assert.is(made.status, 400, `create, ${what}: ${made.text}`);
      assert.match(String((made.json as Json).error), "depends_on");
      const changed = await api.call("POST", `/api/v3/checks/${web}`, { body: { name: "changed", depends_on: value } });
      assert.is(changed.status, 400, `update, ${what}`);
    }
    for (const [check, value] of [
      [db, web],
      [web, web],
    ] as const) {
      const cycle = await api.call("POST", `/api/v3/checks/${check}`, { body: { name: "changed", depends_on: value } });
      assert.is(cycle.status, 400, `cycle ${check} → ${value}: ${cycle.text}`);
      assert.match(String((cycle.json as Json).error), "depends_on");
    }
    const list = await api.call("GET", "/api/v3/checks/");
    assert.equal((list.json as { checks: Json[] }).checks.map((c) => [c.name, c.depends_on]).sort(), [
      ["db", ""],
      ["web", db],
    ]);
  }));

test("restart: a check held by its dependency stays held, and the dependency's recovery after the restart sends its down once", async () => {
  const receiver = await httpReceiver();
  const dir = tempDir();
  const T0 = Date.UTC(2026, 5, 1);
  let pool = await createInProcessPool(virtualPoolOptions(dir.path, T0));
  try {
    const { project } = await projectWithWebhook(pool, T0, { down: `${receiver.url}/down/$NAME`, up: `${receiver.url}/up/$NAME` });
    const create = async (name: string, dependsOn: string[]) => {
      const made = await pool.createCheck(
        project.id,
        { name, timeoutMs: DAY, graceMs: HOUR, reminderIntervalMs: HOUR, dependsOn, channels: { all: true } },
        [],
        T0,
      );
      if (!made.ok) throw new Error("create failed");
      return made.value.check.uuid;
    };
    const db = await create("db", []);
    const web = await create("web", [db]);
    await pingThrough(pool, pingOf({ uuid: db }, T0 + MINUTE, { signal: "fail" }));
    await pingThrough(pool, pingOf({ uuid: web }, T0 + 2 * MINUTE, { signal: "fail" }));
    await untilCount(receiver.requests, 1);
    await pool.close();

    pool = await createInProcessPool(virtualPoolOptions(dir.path, T0 + 10 * MINUTE));
    const loaded = await pool.getCheck(project.id, { uuid: web });
    assert.ok(loaded.ok && loaded.value.alert?.heldBy === db, "held after the restart");
    await pingThrough(pool, pingOf({ uuid: db }, T0 + 20 * MINUTE)); // db up: web's down notification, once
    await untilCount(receiver.requests, 3);
    await pingThrough(pool, pingOf({ uuid: web }, T0 + 30 * MINUTE)); // the marker: web's up comes after any repeat
    await untilCount(receiver.requests, 4);
    // the two notifications of db's recovery are delivered side by side: their order is not fixed
    const paths = receiver.requests.map((r) => r.path);
    assert.equal([paths[0], [...paths.slice(1, 3)].sort(), paths[3]], ["/down/db", ["/down/web", "/up/db"], "/up/web"]);
  } finally {
    await pool.close();
    await receiver.close();
    dir.remove();
  }
});

test.run();
