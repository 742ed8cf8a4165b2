// What an outbox entry carries of its check: what the notification shows (NoticeCheck), and the whole
// check only for a channel that sends the check's API JSON (a JSON webhook, or $JSON in a template);
// of its channel, all but its project and creation time (NoticeChannel).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { Shard } from "../../engine/shard.ts";
import { isWholeCheck, noticeChannelOf, noticeCheckOf } from "../../engine/changes.ts";
import type { Channel, WebhookSpec } from "../../engine/model.ts";
import { HOUR, MINUTE } from "../../engine/model.ts";
import { pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";

const T0 = Date.UTC(2026, 5, 1);
const NO_WEBHOOK: WebhookSpec = {
  method_down: "GET",
  url_down: "",
  body_down: "",
  headers_down: {},
  method_up: "GET",
  url_up: "",
  body_up: "",
  headers_up: {},
};

function webhook(id: string, spec: Partial<WebhookSpec>, json = false): Channel {
  return {
    id,
    projectId: "p",
    name: id,
    kind: "webhook",
    value: { kind: "webhook", spec: { ...NO_WEBHOOK, ...spec }, json },
    createdAt: T0,
  };
}

const CHANNELS: Channel[] = [
  { id: "email", projectId: "p", name: "email", kind: "email", value: { kind: "email", address: "a@b.c" }, createdAt: T0 },
  { id: "slack", projectId: "p", name: "slack", kind: "slack", value: { kind: "slack", url: "https://hooks.example/x" }, createdAt: T0 },
  webhook("plain", { url_down: "http://h.example/$CODE?n=$NAME_JSON", body_down: "$BODY_JSON" }),
  webhook("json", { url_down: "http://h.example/" }, true),
  webhook("json-in-header", { url_down: "http://h.example/", headers_up: { "X-Check": "$JSON" } }),
];

test("down and reminder entries: the whole check only for channels that send its JSON, else what the notification shows", () => {
  const shard = new Shard({ newId: sequentialIds(), now: T0 });
  shard.createProject(scenarioProject("p"), T0);
  for (const channel of CHANNELS) shard.addChannel(channel, T0);
  const made = shard.createCheck(
    "p",
    { name: "nightly", tags: "db prod", timeoutMs: HOUR, graceMs: MINUTE, reminderIntervalMs: HOUR, channels: { all: true } },
    [],
    T0,
  );
  if (!made.ok) throw new Error("create failed");
  const uuid = made.value.check.uuid;
  shard.takeChanges();
  assert.ok(shard.ping(pingOf({ uuid }, T0 + 1_000, { signal: "fail" })).ok);
  const down = shard.takeChanges();
  shard.advance(T0 + 1_000 + HOUR);
  const reminder = shard.takeChanges();
  for (const [what, changes, reminders] of [
    ["down", down, undefined],
    ["reminder", reminder, 1],
  ] as const) {
    const stored = changes.checks[changes.checks.length - 1];
    assert.is(stored.status, "down", what);
    assert.equal(
      changes.outbox.map((e) => e.channel.id),
      CHANNELS.map((c) => c.id),
      `${what}: one entry a channel, in the project's order`,
    );
    for (const entry of changes.outbox) {
      assert.is(entry.reminder, reminders, `${what} ${entry.channel.id}`);
      const wantWhole = entry.channel.id === "json" || entry.channel.id === "json-in-header";
      assert.is(isWholeCheck(entry.check), wantWhole, `${what} ${entry.channel.id}`);
      assert.equal(entry.check, wantWhole ? stored : noticeCheckOf(stored), `${what} ${entry.channel.id}`);
      assert.equal(
        entry.channel,
        noticeChannelOf(CHANNELS.find((c) => c.id === entry.channel.id) ?? CHANNELS[0]),
        `${what} ${entry.channel.id}`,
      );
    }
  }
});

test.run();
