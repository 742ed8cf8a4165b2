// The reference's Prometheus endpoint: the exact bytes of its exposition, and its 400/401/403/404 answers.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createHash } from "node:crypto";
import { T0, withApi } from "./harness.ts";

// the reference's Check.unique_key, written out here independently of hcd's code
const uniqueKey = (uuid: string) => createHash("sha1").update(uuid.replace(/-/g, "").slice(0, 16)).digest("hex");

test("the exposition is the reference's, byte for byte: statuses, label escaping, tags, totals", () =>
  withApi(async (api) => {
    const at = (s: number) => api.clock.advance(s * 1000);
    const odd = await api.create({ name: 'back\\up "db"\nnightly', tags: "prod db", timeout: 3600, grace: 600 });
    at(1);
    const late = await api.create({ name: "web", tags: "prod", timeout: 60, grace: 600 });
    at(1);
    const paused = await api.create({ name: "paused", tags: "" });
    at(1);
    const failed = await api.create({ name: "failed", tags: "db zeta" });
    at(1);
    const started = await api.create({ name: "started" });
    const uuid = (c: Record<string, unknown>) => c.uuid as string;
    await api.ping(uuid(odd));
    await api.ping(uuid(late));
    assert.is((await api.call("POST", `/api/v3/checks/${uuid(paused)}/pause`)).status, 200);
    await api.ping(uuid(failed), { signal: "fail" });
    await api.ping(uuid(started), { signal: "start" });
    at(120); // web is past its 60 s timeout: in its grace time

    at(3); // the started check's run ends: it has a duration
    await api.ping(uuid(started));
    const res = await api.call("GET", `/projects/${api.project.id}/metrics/${api.project.apiKeyReadonly}`, { key: null });
    assert.is(res.status, 200);
    assert.is(res.headers.get("content-type"), "text/plain");
    const labels = (c: Record<string, unknown>, name: string, tags: string) =>
      `{name="${name}", tags="${tags}", unique_key="${uniqueKey(uuid(c))}"}`;
    const rows = [
      [labels(odd, 'back\\\\up \\"db\\"\\nnightly', "prod db"), 1, 0, 0, 0],
      [labels(late, "web", "prod"), 1, 0, 1, 0],
      [labels(paused, "paused", ""), 1, 0, 0, 1],
      [labels(failed, "failed", "db zeta"), 0, 0, 0, 0],
      [labels(started, "started", ""), 1, 0, 0, 0],
    ] as const;
    const expected =
      "# HELP hc_check_up Whether the check is currently up (1 for yes, 0 for no).\n# TYPE hc_check_up gauge\n" +
      rows.map((r) => `hc_check_up${r[0]} ${r[1]}\n`).join("") +
      "\n" +
      "# HELP hc_check_started Whether the check is currently started (1 for yes, 0 for no).\n# TYPE hc_check_started gauge\n" +
      rows.map((r) => `hc_check_started${r[0]} ${r[2]}\n`).join("") +
      "\n" +
      "# HELP hc_check_grace Whether the check is currently in the grace period (1 for yes, 0 for no).\n# TYPE hc_check_grace gauge\n" +
      rows.map((r) => `hc_check_grace${r[0]} ${r[3]}\n`).join("") +
      "\n" +
      "# HELP hc_check_paused Whether the check is currently paused (1 for yes, 0 for no).\n# TYPE hc_check_paused gauge\n" +
      rows.map((r) => `hc_check_paused${r[0]} ${r[4]}\n`).join("") +
      "\n" +
      "# HELP hc_tag_up Whether all checks with this tag are up (1 for yes, 0 for no).\n# TYPE hc_tag_up gauge\n" +
      'hc_tag_up{tag="db"} 0\nhc_tag_up{tag="prod"} 1\nhc_tag_up{tag="zeta"} 0\n\n' +
      "# HELP hc_checks_total The total number of checks.\n# TYPE hc_checks_total gauge\nhc_checks_total 5\n\n" +
      "# HELP hc_checks_down_total The number of checks currently down.\n# TYPE hc_checks_down_total gauge\nhc_checks_down_total 1\n";
    // hcd's own families follow the reference's text, which is left as it was
    const pingedAt = (offsetS: number) => String((T0 + offsetS * 1000) / 1000);
    const own =
      "\n# HELP hcd_check_last_ping_timestamp_seconds When the check's last success or failure signal arrived, in seconds since the Unix epoch.\n" +
      "# TYPE hcd_check_last_ping_timestamp_seconds gauge\n" +
      `hcd_check_last_ping_timestamp_seconds${rows[0][0]} ${pingedAt(4)}\nhcd_check_last_ping_timestamp_seconds${rows[1][0]} ${pingedAt(4)}\n` +
      `hcd_check_last_ping_timestamp_seconds${rows[3][0]} ${pingedAt(4)}\nhcd_check_last_ping_timestamp_seconds${rows[4][0]} ${pingedAt(127)}\n\n` +
      "# HELP hcd_check_last_duration_seconds How long the check's last run took, from its start signal to its success or failure signal.\n" +
      "# TYPE hcd_check_last_duration_seconds gauge\n" +
      `hcd_check_last_duration_seconds${rows[4][0]} 123\n`;
    assert.ok(res.text.startsWith(expected), "the reference's families, byte for byte, come first");
    assert.fixture(res.text, expected + own);

    // the Bearer form and the legacy alias answer the same bytes
    const bearer = await api.call("GET", `/projects/${api.project.id}/metrics/`, {
      key: null,
      headers: { authorization: `Bearer ${api.project.apiKeyReadonly}` },
    });
    assert.is(bearer.status, 200);
    assert.fixture(bearer.text, expected + own);
    const legacy = await api.call("GET", `/projects/${api.project.id}/checks/metrics/${api.project.apiKeyReadonly}`, { key: null });
    assert.fixture(legacy.text, expected + own);
  }));

test("an empty project has the families and zero totals", () =>
  withApi(async (api) => {
    const res = await api.call("GET", `/projects/${api.project.id}/metrics/${api.project.apiKeyReadonly}`, { key: null });
    assert.is(res.status, 200);
    assert.ok(res.text.includes("# TYPE hc_tag_up gauge\n\n# HELP hc_checks_total"));
    assert.ok(
      res.text.includes(
        "hc_checks_total 0\n\n# HELP hc_checks_down_total The number of checks currently down.\n# TYPE hc_checks_down_total gauge\nhc_checks_down_total 0\n",
      ),
    );
    assert.ok(res.text.endsWith("# TYPE hcd_check_last_duration_seconds gauge\n"), "hcd's own families, with no samples");
  }));

test("the reference's refusals: 401 without Bearer, 400 for a key of the wrong length, 403 for a read-write or unknown key, 404 for a bad id", () =>
  withApi(async (api) => {
    const id = api.project.id,
      ro = api.project.apiKeyReadonly;
    const get = (path: string, headers: Record<string, string> = {}) => api.call("GET", path, { key: null, headers });
    const cases: [string, Record<string, string>, number][] = [
      [`/projects/${id}/metrics/`, {}, 401],
      [`/projects/${id}/metrics/`, { authorization: `Token ${ro}` }, 401],
      [`/projects/${id}/metrics/`, { authorization: `Bearer ${ro}x` }, 400],
      [`/projects/${id}/metrics/${ro.slice(1)}`, {}, 400],
      [`/projects/${id}/metrics/${api.project.apiKey}`, {}, 403],
      [`/projects/${id}/metrics/`, { authorization: `Bearer ${api.project.apiKey}` }, 403],
      [`/projects/${id}/metrics/${"a".repeat(32)}`, {}, 403],
      [`/projects/not-a-uuid/metrics/${ro}`, {}, 404],
    ];
    for (const [path, headers, status] of cases) {
      const res = await get(path, headers);
      assert.is(res.status, status, `${path} ${JSON.stringify(headers)}`);
      assert.is(res.text, "", "an empty body, as the reference's");
    }
    // a read-only key of another project does not open this one
    const other = await api.newProject({ name: "other" });
    assert.is((await get(`/projects/${id}/metrics/${other.apiKeyReadonly}`)).status, 403);
    assert.is((await get(`/projects/${other.id}/metrics/${other.apiKeyReadonly}`)).status, 200);
  }));

test.run();
