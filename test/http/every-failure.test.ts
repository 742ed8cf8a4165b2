// every_failure, an integration's option (CONTRACT "Alerting, third part"): taken by the admin API when an
// integration is added or edited (a bad value a 400 that changes nothing), listed with the integration's
// delivery state, kept by an edit that leaves it out, and read by a replay scenario's channel command, whose
// output then names each failure that found the check down.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { replayLines } from "../../app/replay-lines.ts";
import { withApi } from "./harness.ts";

type Json = Record<string, unknown>;

test("the admin API adds, lists and edits an integration's every_failure; a bad value is a 400", () =>
  withApi(async (api) => {
    const path = `/admin/v1/projects/${api.project.id}/channels`;
    const made = await api.admin("POST", path, { kind: "email", name: "ops", value: "ops@example.com", every_failure: true });
    assert.is(made.status, 201, made.text);
    assert.equal(made.json, { id: (made.json as Json).id, name: "ops", kind: "email" }, "the answer keeps its shape");
    const id = String((made.json as Json).id);
    await api.admin("POST", path, { kind: "email", name: "plain", value: "plain@example.com" });
    const listed = async () => ((await api.admin("GET", path)).json as { channels: Json[] }).channels.map((c) => [c.name, c.every_failure]);
    assert.equal(await listed(), [
      ["ops", true],
      ["plain", false],
    ]);
    const edited = await api.admin("PUT", `${path}/${id}`, { value: "ops@example.com" });
    assert.is(edited.status, 200, edited.text);
    assert.equal(
      await listed(),
      [
        ["ops", true],
        ["plain", false],
      ],
      "an edit without it keeps it",
    );
    await api.admin("PUT", `${path}/${id}`, { value: "ops@example.com", every_failure: false });
    assert.equal(await listed(), [
      ["ops", false],
      ["plain", false],
    ]);
    for (const bad of ["yes", 1, null]) {
      const refused = await api.admin("POST", path, { kind: "email", value: "x@example.com", every_failure: bad });
      assert.is(refused.status, 400, JSON.stringify(bad));
      assert.match(String((refused.json as Json).error), "every_failure");
      assert.is((await api.admin("PUT", `${path}/${id}`, { value: "ops@example.com", every_failure: bad })).status, 400);
    }
    assert.equal(
      await listed(),
      [
        ["ops", false],
        ["plain", false],
      ],
      "nothing changed",
    );
    const v3 = await api.call("GET", "/api/v3/channels/");
    assert.equal(
      Object.keys((v3.json as { channels: Json[] }).channels[0]).sort(),
      ["id", "kind", "name"],
      "the reference's list keeps its shape",
    );
  }));

test("a replay scenario's channel takes every_failure; the output names each failure that found the check down", () => {
  const lines: string[] = [];
  const done = replayLines(
    {
      start: "2026-03-01T00:00:00Z",
      commands: [
        { at: 0, do: "channel", kind: "email", name: "every", value: "every@example.com", every_failure: true },
        { at: 0, do: "channel", kind: "email", name: "changes", value: "changes@example.com" },
        { at: 0, do: "create", check: "job", fields: { timeout: 3600, channels: "*" } },
        { at: 60, do: "ping", check: "job", signal: "fail" },
        { at: 120, do: "ping", check: "job", signal: "fail" },
      ],
    },
    (line) => lines.push(line),
  );
  assert.ok(done.ok);
  const events = lines.slice(0, -1).map((line) => JSON.parse(line) as Json);
  assert.equal(
    events.filter((e) => "notification" in e).map((e) => [e.at, e.notification]),
    [
      ["2026-03-01T00:01:00.000Z", { channel: "every", kind: "email", status: "down" }],
      ["2026-03-01T00:01:00.000Z", { channel: "changes", kind: "email", status: "down" }],
      ["2026-03-01T00:02:00.000Z", { channel: "every", kind: "email", status: "down", failure: "fail" }],
    ],
  );
});

test.run();
