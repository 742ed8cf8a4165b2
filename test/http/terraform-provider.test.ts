// The requests the community Terraform provider for Healthchecks (kristofferahl/terraform-provider-healthchecksio
// 1.x over go-healthchecksio v2.1.0) makes, replayed over real HTTP against hcd at /api/v1, /api/v2 and
// /api/v3 as its `api_url` would point: the bodies as Go's encoding/json writes its structs (`omitempty`
// fields left out when empty, `channels` and `methods` always sent), X-Api-Key, and the answers read the
// way the client reads them (the check's id is the last part of update_url; errors are {"error"}).
// Terraform itself is not run here: this pins the HTTP exchange the provider's source shows.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { testEachVersion } from "./harness.ts";
import type { Api } from "./harness.ts";
import { served } from "./harness.ts";

/** go-healthchecksio's Healthcheck, as json.Marshal writes it (field order and omitempty as its struct tags say). */
type GoHealthcheck = {
  channels: string;
  desc?: string;
  grace?: number;
  methods: string;
  name?: string;
  slug?: string;
  schedule?: string;
  tags?: string;
  timeout?: number;
  tz?: string;
};
function goJson(h: GoHealthcheck): string {
  const out: Record<string, unknown> = { channels: h.channels };
  if (h.desc) out.desc = h.desc;
  if (h.grace) out.grace = h.grace;
  out.methods = h.methods;
  for (const field of ["name", "slug", "schedule", "tags"] as const) if (h[field]) out[field] = h[field];
  if (h.timeout) out.timeout = h.timeout;
  if (h.tz) out.tz = h.tz;
  return JSON.stringify(out);
}

/** What the provider keeps of a check after its Read (resource_check.go resourceHealthcheckRead), from an answer as HealthcheckResponse decodes it. */
function providerState(check: Record<string, unknown>): Record<string, unknown> {
  const text = (field: string) => (typeof check[field] === "string" ? check[field] : "");
  const int = (field: string) => (typeof check[field] === "number" ? check[field] : 0);
  return {
    id: text("update_url").split("/").at(-1),
    name: text("name"),
    slug: text("slug"),
    tags: text("tags") === "" ? [] : text("tags").split(" "),
    timeout: int("timeout"),
    grace: int("grace"),
    schedule: text("schedule"),
    timezone: text("tz"),
    channels: text("channels") === "" ? [] : text("channels").split(","),
    ping_url: text("ping_url"),
    pause_url: text("pause_url"),
    desc: text("desc"),
    methods: text("methods"),
  };
}

/** One request as the Go client sends it: Content-Type application/json and X-Api-Key on every request. */
async function goRequest(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: string,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(base + path, { method, headers: { "content-type": "application/json", "x-api-key": key }, body });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function channels(api: Api): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const [kind, value] of [
    ["email", "ops@example.com"],
    ["slack", "https://hooks.slack.com/services/T/B/X"],
    ["pd", { service_key: "k" }],
  ] as const) {
    ids[kind] = String(
      (
        (await api.admin("POST", `/admin/v1/projects/${api.project.id}/channels`, { kind, name: `${kind} channel`, value })).json as {
          id: string;
        }
      ).id,
    );
  }
  return ids;
}

testEachVersion(test, "the provider's create, read, update, delete and channel lookup, as it sends and reads them", (api) =>
  served(api, async (url) => {
    const base = `${url}${api.root}`; // the provider's api_url, e.g. https://hc.example.com/api/v1
    const key = api.project.apiKey;
    const ids = await channels(api);

    // data "healthchecksio_channel": GET /channels/, the first of the kind (and name, when given)
    const listed = await goRequest(base, key, "GET", "/channels/");
    assert.is(listed.status, 200);
    const found = (listed.json.channels as { id: string; kind: string; name: string }[]).find(
      (c) => c.kind === "slack" && c.name === "slack channel",
    );
    assert.is(found?.id, ids.slack);

    // resource "healthchecksio_check" "test" of the provider's examples/full/main.tf
    const config = {
      name: "test-check",
      desc: "A test check",
      slug: "the-test-check",
      tags: "go gophers unite",
      grace: 120,
      schedule: "0,30 2 * * *",
      tz: "Asia/Tokyo",
      channels: [ids.email, ids.slack, ids.pd].join(","),
      methods: "",
    };
    const created = await goRequest(base, key, "POST", "/checks/", goJson(config));
    assert.is(created.status, 201);
    const id = String(created.json.update_url).split("/").at(-1) ?? "";
    assert.is(created.json.ping_url, `http://hc.test/ping/${id}`);
    const read = async () => {
      const all = await goRequest(base, key, "GET", "/checks/");
      assert.is(all.status, 200);
      const check = (all.json.checks as Record<string, unknown>[]).find((c) => String(c.update_url).split("/").at(-1) === id);
      return check === undefined ? null : providerState(check);
    };
    assert.equal(
      await read(),
      {
        id,
        name: "test-check",
        slug: "the-test-check",
        tags: ["go", "gophers", "unite"],
        timeout: 0,
        grace: 120,
        schedule: "0,30 2 * * *",
        timezone: "Asia/Tokyo",
        channels: [ids.email, ids.slack, ids.pd].sort(),
        ping_url: `http://hc.test/ping/${id}`,
        pause_url: `http://hc.test/api/v${api.version}/checks/${id}/pause`,
        desc: "A test check",
        methods: "",
      },
      "what Terraform reads back is what it sent: no change planned after apply",
    );

    // an update: the schedule gives way to a timeout, one channel less, methods POST
    const updated = await goRequest(
      base,
      key,
      "POST",
      `/checks/${id}`,
      goJson({ ...config, schedule: "", tz: "", timeout: 3600, channels: ids.email, methods: "POST" }),
    );
    assert.is(updated.status, 200);
    const after = await read();
    assert.equal([after?.timeout, after?.schedule, after?.timezone, after?.channels, after?.methods], [3600, "", "", [ids.email], "POST"]);

    // the bare minimum of examples/self-hosted/main.tf: the provider makes the slug from the name itself
    const bare = await goRequest(
      base,
      key,
      "POST",
      "/checks/",
      goJson({ name: "test-bare-minimum-check", slug: "test-bare-minimum-check", timeout: 86_400, grace: 3600, channels: "", methods: "" }),
    );
    assert.equal([bare.status, bare.json.slug, bare.json.timeout], [201, "test-bare-minimum-check", 86_400]);

    // an error reads as the client reads it: a JSON {"error"} with a status of 300 or more
    const refused = await goRequest(base, key, "POST", "/checks/", goJson({ name: "x", timeout: 5, channels: "", methods: "" }));
    assert.is(refused.status, 400);
    assert.type(refused.json.error, "string");

    const deleted = await goRequest(base, key, "DELETE", `/checks/${id}`);
    assert.equal([deleted.status, String(deleted.json.update_url).split("/").at(-1)], [200, id]);
    assert.is(await read(), null, "gone: Terraform's next read drops it from its state");
  }),
);

test.run();
