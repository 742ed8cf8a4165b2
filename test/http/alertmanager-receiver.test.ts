// The Alertmanager receiver's rules through the app (CONTRACT "Alerting, third part"): the ping key in the
// path or as a bearer token, the check named by hcd_check or the alert's name, the signal by hcd_signal
// and the alert's status, ?create=1, each alert's JSON kept as its ping's body; a bad payload is a 400, an
// unknown key a 404, a payload that pings nothing a 404 that says why, and nothing is recorded then.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Api } from "./harness.ts";
import { withApi } from "./harness.ts";

type Json = Record<string, unknown>;
const payload = (alerts: unknown[]) => ({
  version: "4",
  status: "firing",
  receiver: "hcd",
  groupLabels: {},
  commonLabels: {},
  externalURL: "http://am",
  alerts,
});
const alert = (status: string, labels: Record<string, string>) => ({
  status,
  labels,
  annotations: { summary: "s" },
  startsAt: "2026-01-15T12:00:00Z",
  fingerprint: "f",
});

async function post(api: Api, path: string, body: unknown, headers: Record<string, string> = {}) {
  return api.call("POST", path, { key: null, body, headers });
}
async function checkNamed(api: Api, slug: string): Promise<Json | undefined> {
  return ((await api.call("GET", `/api/v3/checks/?slug=${slug}`)).json as { checks: Json[] }).checks[0];
}

test("alerts ping the checks their labels name, with the signal their labels and status say", () =>
  withApi(async (api) => {
    const key = api.project.pingKey;
    await api.create({ name: "Watchdog", slug: "watchdog" });
    await api.create({ name: "db", slug: "db-disk" });
    const res = await post(
      api,
      `/api/alertmanager/${key}`,
      payload([
        alert("firing", { alertname: "Watchdog" }),
        alert("firing", { alertname: "DiskFull", hcd_check: "db-disk", hcd_signal: "fail" }),
      ]),
    );
    assert.is(res.status, 200, res.text);
    assert.equal((res.json as Json).alerts, [
      { slug: "watchdog", signal: "success", result: "ok" },
      { slug: "db-disk", signal: "fail", result: "ok" },
    ]);
    assert.is((await checkNamed(api, "watchdog"))?.status, "up");
    assert.is((await checkNamed(api, "db-disk"))?.status, "down");
    const resolved = await post(
      api,
      `/api/alertmanager/${key}`,
      payload([
        alert("resolved", { alertname: "DiskFull", hcd_check: "db-disk", hcd_signal: "fail" }),
        alert("resolved", { alertname: "Watchdog" }),
      ]),
    );
    assert.equal(
      (resolved.json as Json).alerts,
      [
        { slug: "db-disk", signal: "success", result: "ok" },
        { slug: "watchdog", signal: "log", result: "ok" },
      ],
      "a resolved failure is a success; a resolved Watchdog only a log entry (it does not keep the switch up)",
    );
    assert.is((await checkNamed(api, "db-disk"))?.status, "up");
    const uuid = String((await checkNamed(api, "watchdog"))?.uuid);
    const pings = (await api.call("GET", `/api/v3/checks/${uuid}/pings/`)).json as { pings: { type: string; method: string; n: number }[] };
    assert.equal(
      pings.pings.map((p) => p.type),
      ["log", "success"],
    );
    const body = await api.call("GET", `/api/v3/checks/${uuid}/pings/${pings.pings[1].n}/body`);
    assert.equal(JSON.parse(body.text).labels, { alertname: "Watchdog" }, "the alert's JSON is the ping's body");
  }));

test("the ping key as a bearer token; ?create=1 makes the check; an unknown key is a 404 and a bad payload a 400", () =>
  withApi(async (api) => {
    const made = await post(api, "/api/alertmanager?create=1", payload([alert("firing", { alertname: "Nightly Backup" })]), {
      authorization: `Bearer ${api.project.pingKey}`,
    });
    assert.equal([made.status, (made.json as Json).alerts], [200, [{ slug: "nightly-backup", signal: "success", result: "created" }]]);
    assert.is((await checkNamed(api, "nightly-backup"))?.status, "up");
    assert.is((await post(api, "/api/alertmanager", payload([]))).status, 401, "no key at all");
    assert.is((await post(api, "/api/alertmanager/no-such-key", payload([alert("firing", { alertname: "x" })]))).status, 404);
    for (const bad of [
      {},
      { alerts: "x" },
      payload([alert("pending", { alertname: "x" })]),
      payload([{ status: "firing", labels: { a: 1 } }]),
      payload([null]),
    ]) {
      const res = await post(api, `/api/alertmanager/${api.project.pingKey}`, bad);
      assert.is(res.status, 400, JSON.stringify(bad));
      assert.type((res.json as Json).error, "string");
    }
    const raw = await api.call("POST", `/api/alertmanager/${api.project.pingKey}`, { key: null, raw: "not json" });
    assert.is(raw.status, 400);
  }));

test("a payload that pings nothing is a 404 saying why, each alert's result listed; nothing is created without ?create=1", () =>
  withApi(async (api) => {
    const res = await post(
      api,
      `/api/alertmanager/${api.project.pingKey}`,
      payload([
        alert("firing", { alertname: "Unknown" }),
        alert("firing", { alertname: "x", hcd_signal: "explode" }),
        alert("firing", { hcd_check: "Not A Slug" }),
      ]),
    );
    assert.is(res.status, 404);
    assert.match(String((res.json as Json).error), "hcd_check, or alertname");
    assert.equal(
      ((res.json as Json).alerts as Json[]).map((a) => a.result),
      ["not_found", "refused", "refused"],
    );
    assert.equal((await api.call("GET", "/api/v3/checks/")).json, { checks: [] });
  }));

test.run();
