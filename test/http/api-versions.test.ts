// What differs between /api/v1, /api/v2 and /api/v3 (CONTRACT "API versions"): the version in the URLs of
// an answer, v1's "started" status of a running check, and v1 and v2's slug set from the name. What every
// version answers alike: checks.test.ts and check-endpoints.test.ts, run under each.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { SECOND } from "../../engine/model.ts";
import type { Api } from "./harness.ts";
import { SITE, withApi } from "./harness.ts";

type Json = Record<string, unknown>;
const get = async (api: Api, path: string): Promise<Json> => {
  const res = await api.call("GET", path);
  assert.is(res.status, 200, `${path}: ${res.text}`);
  return res.json as Json;
};
const listed = async (api: Api, root: string): Promise<Json[]> => (await get(api, `${root}/checks/`)).checks as Json[];
const urlsOf = (check: Json) => [check.update_url, check.pause_url, check.resume_url];

test("the URLs of an answer carry the version it was asked in, for the same check, listed one version after another", () =>
  withApi(async (api) => {
    const check = await api.create({ name: "urls" });
    const uuid = check.uuid as string;
    const expected = (v: number) => [
      `${SITE}/api/v${v}/checks/${uuid}`,
      `${SITE}/api/v${v}/checks/${uuid}/pause`,
      `${SITE}/api/v${v}/checks/${uuid}/resume`,
    ];
    for (const v of [1, 2, 3, 1]) {
      assert.equal(urlsOf(await get(api, `/api/v${v}/checks/${uuid}`)), expected(v), `get v${v}`);
      assert.equal(urlsOf((await listed(api, `/api/v${v}`))[0]), expected(v), `list v${v}`);
    }
    const paused = await api.call("POST", `/api/v2/checks/${uuid}/pause`);
    assert.equal(urlsOf(paused.json as Json), expected(2));
    const resumed = await api.call("POST", `/api/v1/checks/${uuid}/resume`);
    assert.equal(urlsOf(resumed.json as Json), expected(1));
    await api.ping(uuid, { method: "POST", body: new TextEncoder().encode("output") });
    for (const v of [1, 2, 3]) {
      const { pings } = (await get(api, `/api/v${v}/checks/${uuid}/pings/`)) as { pings: Json[] };
      assert.is(pings[0].body_url, `${SITE}/api/v${v}/checks/${uuid}/pings/1/body`);
      assert.is((await api.call("GET", `/api/v${v}/checks/${uuid}/pings/1/body`)).text, "output");
    }
    const deleted = await api.call("DELETE", `/api/v1/checks/${uuid}`);
    assert.equal(urlsOf(deleted.json as Json), expected(1));
    assert.is(check.ping_url, `${SITE}/ping/${uuid}`, "the ping URL has no version");
  }));

test('a running check: v1 says status "started", v2 and v3 keep its status with started true; all say down once its grace is over', () =>
  withApi(async (api) => {
    const check = await api.create({ timeout: 3600, grace: 120 });
    const uuid = check.uuid as string;
    await api.ping(uuid, { signal: "start" });
    const shown = async () => {
      const rows: [string, unknown, unknown][] = [];
      for (const v of [1, 2, 3]) {
        const one = await get(api, `/api/v${v}/checks/${uuid}`);
        const [inList] = await listed(api, `/api/v${v}`);
        assert.is(inList.status, one.status, `v${v}: the list shows what get shows`);
        rows.push([`v${v}`, one.status, one.started]);
      }
      return rows;
    };
    assert.equal(await shown(), [
      ["v1", "started", true],
      ["v2", "new", true],
      ["v3", "new", true],
    ]);
    api.clock.advance(120 * SECOND);
    assert.equal(await shown(), [
      ["v1", "down", true],
      ["v2", "down", true],
      ["v3", "down", true],
    ]);
    await api.ping(uuid);
    assert.equal(await shown(), [
      ["v1", "up", false],
      ["v2", "up", false],
      ["v3", "up", false],
    ]);
  }));

test('v1 shows a run started on a down check as "started" until its grace is over, in lists too', () =>
  withApi(async (api) => {
    const check = await api.create({ timeout: 3600, grace: 120 });
    const uuid = check.uuid as string;
    await api.ping(uuid, { signal: "fail" });
    await api.ping(uuid, { signal: "start" });
    const statuses = async () => [
      (await listed(api, "/api/v3"))[0].status,
      (await get(api, `/api/v1/checks/${uuid}`)).status,
      (await listed(api, "/api/v1"))[0].status,
    ];
    assert.equal(await statuses(), ["down", "started", "started"]);
    api.clock.advance(120 * SECOND);
    // the v1 list first: the list it repeats was v1's, shown while the stored status was as down as now
    assert.is((await listed(api, "/api/v1"))[0].status, "down");
    assert.equal(await statuses(), ["down", "down", "down"]);
  }));

test("v1 and v2 set the slug from the name on create and update (accents off, other scripts dropped); v3 leaves it", () =>
  withApi(async (api) => {
    const name = "Café Ünïcode — nightly";
    const made: Json[] = [];
    for (const v of [1, 2, 3]) {
      const res = await api.call("POST", `/api/v${v}/checks/`, { body: { name } });
      assert.is(res.status, 201, res.text);
      made.push(res.json as Json);
    }
    assert.equal(
      made.map((c) => [c.name, c.slug]),
      [
        [name, "cafe-unicode-nightly"],
        [name, "cafe-unicode-nightly"],
        [name, ""],
      ],
    );
    const [first, second, third] = made;
    const renamed = async (v: number, uuid: unknown, body: Json) =>
      (await api.call("POST", `/api/v${v}/checks/${uuid}`, { body })).json as Json;
    assert.is((await renamed(2, second.uuid, { name: "Nightly Backup" })).slug, "nightly-backup");
    assert.is((await renamed(3, third.uuid, { name: "Nightly Backup" })).slug, "");
    assert.is((await renamed(1, first.uuid, { name: "日本語 — ✓" })).slug, "", "a name with nothing to keep clears the slug");
    assert.is((await renamed(1, first.uuid, { desc: "no name sent" })).slug, "", "without a name the slug stays");
    assert.is((await renamed(2, second.uuid, { tags: "t" })).slug, "nightly-backup");
    assert.is((await renamed(1, first.uuid, { name: "Renamed", slug: "my-own" })).slug, "my-own", "a slug sent with the name wins");
    assert.is((await renamed(3, first.uuid, { name: "Renamed again" })).slug, "my-own");
  }));

test("a slug made from the name under v1 is found by the slug filter and reached by a ping by slug", () =>
  withApi(async (api) => {
    const res = await api.call("POST", "/api/v1/checks/", { body: { name: "Café Ünïcode — nightly" } });
    const uuid = (res.json as Json).uuid;
    const found = (await get(api, "/api/v1/checks/?slug=cafe-unicode-nightly")).checks as Json[];
    assert.equal(
      found.map((c) => c.uuid),
      [uuid],
    );
    const ping = await api.call("GET", `/ping/${api.project.pingKey}/cafe-unicode-nightly`, { key: null });
    assert.is(ping.status, 200, ping.text);
    assert.is((await get(api, `/api/v1/checks/${uuid}`)).n_pings, 1);
  }));

test("upsert under v1: unique name matches and sets the slug; a unique slug that was not sent matches nothing", () =>
  withApi(async (api) => {
    const made = await api.call("POST", "/api/v1/checks/", { body: { name: "Job A" } });
    assert.is((made.json as Json).slug, "job-a");
    const byName = await api.call("POST", "/api/v1/checks/", { body: { name: "Job A", desc: "again", unique: ["name"] } });
    assert.equal([byName.status, (byName.json as Json).uuid, (byName.json as Json).desc], [200, (made.json as Json).uuid, "again"]);
    // the reference looks up only the fields sent: "slug" was not, so a new check is made, with the same slug
    const bySlug = await api.call("POST", "/api/v1/checks/", { body: { name: "Job A", unique: ["slug"] } });
    assert.is(bySlug.status, 201);
    assert.is((bySlug.json as Json).slug, "job-a");
    const sent = await api.call("POST", "/api/v1/checks/", { body: { name: "Job A", slug: "job-a", unique: ["slug"] } });
    assert.is(sent.status, 200, "a slug sent is looked up");
    assert.is((await listed(api, "/api/v1")).length, 2);
  }));

test("every endpoint answers under v1 and v2; other versions are 404", () =>
  withApi(async (api) => {
    const check = await api.create({ tags: "t" });
    const uuid = check.uuid as string;
    for (const v of [1, 2]) {
      for (const path of [
        "checks/",
        `checks/${uuid}`,
        `checks/${uuid}/pings/`,
        `checks/${uuid}/flips/`,
        "channels/",
        "badges/",
        "status/",
      ]) {
        assert.is((await api.call("GET", `/api/v${v}/${path}`)).status, 200, `v${v} ${path}`);
      }
      const simulated = await api.call("POST", `/api/v${v}/checks/${uuid}/simulate`, { body: { timeout: 300 } });
      assert.is(simulated.status, 200, `v${v} simulate: ${simulated.text}`);
    }
    for (const version of ["v0", "v4", "V1", "v01", "1"]) {
      for (const path of ["checks/", `checks/${uuid}`, `checks/${uuid}/pause`, "status/"]) {
        const res = await api.call("GET", `/api/${version}/${path}`);
        assert.is(res.status, 404, `${version} ${path}`);
        assert.type((res.json as Json).error, "string");
      }
    }
  }));

test.run();
