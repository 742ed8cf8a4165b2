// ping_email in the check representation: only while the inbound SMTP listener is on, only for read-write keys.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Api } from "./harness.ts";
import { withApi } from "./harness.ts";

type Json = Record<string, unknown>;
const SMTP_ON = { env: { SMTP_PORT: "2525", EMAIL_DOMAIN: "hc.example.org" } };

/** Returns every read-write representation of one check the API gives: create, get, list, update, pause, resume, delete. */
async function readWriteShapes(api: Api): Promise<[string, Json][]> {
  const created = await api.create({ name: "nightly", slug: "nightly" });
  const uuid = created.uuid as string;
  const path = `/api/v3/checks/${uuid}`;
  const shapes: [string, Json][] = [["create", created]];
  shapes.push(["get", (await api.call("GET", path)).json as Json]);
  shapes.push(["list", ((await api.call("GET", "/api/v3/checks/")).json as { checks: Json[] }).checks[0]]);
  shapes.push(["update", (await api.call("POST", path, { body: { desc: "d" } })).json as Json]);
  shapes.push(["pause", (await api.call("POST", `${path}/pause`)).json as Json]);
  shapes.push(["resume", (await api.call("POST", `${path}/resume`)).json as Json]);
  shapes.push(["delete", (await api.call("DELETE", path)).json as Json]);
  return shapes;
}

test("with SMTP on, every read-write representation carries ping_email <uuid>@EMAIL_DOMAIN", () =>
  withApi(async (api) => {
    const shapes = await readWriteShapes(api);
    for (const [name, check] of shapes) {
      assert.type(check.uuid, "string", name);
      assert.is(check.ping_email, `${check.uuid as string}@hc.example.org`, name);
    }
  }, SMTP_ON));

test("with SMTP on, read-only keys never see ping_email (it reveals the uuid)", () =>
  withApi(async (api) => {
    const created = await api.create({ name: "nightly" });
    const key = api.project.apiKeyReadonly;
    const listed = ((await api.call("GET", "/api/v3/checks/", { key })).json as { checks: Json[] }).checks[0];
    const uniqueKey = listed.unique_key as string;
    const one = (await api.call("GET", `/api/v3/checks/${uniqueKey}`, { key })).json as Json;
    for (const check of [listed, one]) {
      assert.is(check.ping_email, undefined);
      assert.is(check.uuid, undefined);
      assert.not.ok(JSON.stringify(check).includes(created.uuid as string), "the uuid appears nowhere");
    }
  }, SMTP_ON));

test("with SMTP off (the default), no representation has ping_email: the reference's shape", () =>
  withApi(async (api) => {
    for (const [name, check] of await readWriteShapes(api)) assert.not.ok("ping_email" in check, name);
  }));

test("EMAIL_DOMAIN alone does not add ping_email: the listener must be on", () =>
  withApi(
    async (api) => {
      const created = await api.create({});
      assert.not.ok("ping_email" in created);
    },
    { env: { EMAIL_DOMAIN: "hc.example.org" } },
  ));

test.run();
