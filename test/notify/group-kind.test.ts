// The group kind in the deliverer: a group's entry goes to each member as to that channel, a nested group
// is never followed (no loops), a member that got it is not sent it again on the group's retry, and a
// member's permanent refusal ends the group's entry with that member's error.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Channel } from "../../engine/model.ts";
import { HOUR, MINUTE } from "../../engine/model.ts";
import { Shard } from "../../engine/shard.ts";
import { pingOf, scenarioProject, sequentialIds } from "../../bench/scenarios.ts";
import { channel, project as projectOf } from "../helpers.ts";
import { sendTestNotification } from "../../notify/test-notification.ts";
import { hasGivenUp } from "../../engine/changes.ts";
import { httpReceiver } from "./receivers.ts";
import type { Answer } from "./receivers.ts";
import { BOT_TOKEN, closeOutboxes, delivererOf, DOWN_AT, entryOf, serviceChannel, settingsAt } from "./service-kinds-fixture.ts";

test.after.each(closeOutboxes);

/** A project of a telegram and a gotify channel, a group of both plus `inner` (a group of the group), and `inner`. */
function project(base: string) {
  const telegram = { ...serviceChannel("telegram", { chat_id: 1 }), name: "chat" };
  const gotify = { ...serviceChannel("gotify", { url: `${base}/gotify`, token: "t" }), name: "phone" };
  const inner = serviceChannel("group", { channels: [telegram.id] });
  const outer = serviceChannel("group", { channels: [telegram.id, gotify.id, inner.id] });
  const innerLoop: Channel = { ...inner, value: { kind: "group", fields: { channels: outer.id } } }; // as if it named the outer group
  const channels: readonly Channel[] = [telegram, gotify, outer, innerLoop];
  return { outer, channels, lookup: async (projectId: string) => (projectId === "p" ? channels : []) };
}

test("a group's entry reaches every member (a group among them is skipped: no loop), then leaves the outbox", async () => {
  const rx = await httpReceiver();
  try {
    const { outer, lookup } = project(rx.url);
    const { outbox, deliverer } = await delivererOf([entryOf(outer, "down")], rx.url, { channels: lookup });
    await deliverer.deliverDue(DOWN_AT);
    assert.equal(rx.requests.map((r) => r.path).sort(), ["/gotify/message", `/tg/bot${BOT_TOKEN}/sendMessage`]);
    assert.equal(outbox.all(), []);
  } finally {
    await rx.close();
  }
});

test("a member that fails for now is retried alone; a member that got it is not sent it again", async () => {
  let gotifyCalls = 0;
  const rx = await httpReceiver((request): Answer =>
    request.path.startsWith("/gotify") && gotifyCalls++ === 0 ? { status: 503 } : { status: 200 },
  );
  try {
    const { outer, lookup } = project(rx.url);
    const entry = entryOf(outer, "down");
    const { outbox, deliverer } = await delivererOf([entry], rx.url, { channels: lookup, baseBackoffMs: 1_000 });
    await deliverer.deliverDue(DOWN_AT);
    assert.equal(
      [outbox.get(entry.id)?.lastError, outbox.get(entry.id)?.nextAttemptAt],
      ["phone: Received status code 503", DOWN_AT + 1_000],
    );
    await deliverer.deliverDue(DOWN_AT + 1_000);
    assert.equal(rx.requests.map((r) => r.path.split("/")[1]).sort(), ["gotify", "gotify", "tg"]);
    assert.equal(outbox.all(), []);
  } finally {
    await rx.close();
  }
});

test("a member's permanent refusal gives the group's entry up with that member's error; without a lookup it is given up", async () => {
  const rx = await httpReceiver((request): Answer => (request.path.startsWith("/gotify") ? { status: 401 } : { status: 200 }));
  try {
    const { outer, lookup } = project(rx.url);
    const entry = entryOf(outer, "down");
    const { outbox, deliverer } = await delivererOf([entry], rx.url, { channels: lookup });
    await deliverer.deliverDue(DOWN_AT);
    const stored = outbox.get(entry.id);
    assert.ok(stored !== null && hasGivenUp(stored));
    assert.is(stored?.lastError, "phone: Received status code 401");

    const alone = await delivererOf([entry], rx.url);
    await alone.deliverer.deliverDue(DOWN_AT);
    assert.is(alone.outbox.get(entry.id)?.lastError, "Group notifications cannot be delivered here");
  } finally {
    await rx.close();
  }
});

test("Test through a group sends the sample to each member and names a failing one", async () => {
  const rx = await httpReceiver((request): Answer => (request.path.startsWith("/gotify") ? { status: 500 } : { status: 200 }));
  try {
    const { outer, channels, lookup } = project(rx.url);
    const proj = projectOf({ id: "p", name: "Ops" });
    const opts = { siteRoot: "http://hcd.test", allowPrivateIps: true, smtpUrl: null, services: settingsAt(rx.url), channels: lookup };
    const error = await sendTestNotification(proj, channels.find((c) => c.id === outer.id) ?? outer, DOWN_AT, opts);
    assert.is(error, "phone: Received status code 500");
    assert.equal(rx.requests.map((r) => r.path).sort(), ["/gotify/message", `/tg/bot${BOT_TOKEN}/sendMessage`]);
    assert.match(JSON.parse(rx.requests.find((r) => r.path.startsWith("/tg"))?.body ?? "{}").text, /TEST<\/a> is <b>DOWN<\/b>/);
  } finally {
    await rx.close();
  }
});

/** A shard whose check "nightly" notifies only a group of a JSON webhook (the URL form) and a $JSON webhook. */
function shardWithGroup(base: string) {
  const t0 = DOWN_AT - HOUR;
  const spec = {
    method_down: "POST",
    url_down: "",
    body_down: "",
    headers_down: {},
    method_up: "POST",
    url_up: "",
    body_up: "",
    headers_up: {},
  };
  const jsonHook = channel({
    id: "11111111-1111-4111-8111-111111111111",
    projectId: "p",
    name: "json hook",
    kind: "webhook",
    value: { kind: "webhook", spec: { ...spec, url_down: `${base}/json`, url_up: `${base}/json` }, json: true },
  });
  const templated = channel({
    id: "22222222-2222-4222-8222-222222222222",
    projectId: "p",
    name: "templated",
    kind: "webhook",
    value: { kind: "webhook", spec: { ...spec, url_down: `${base}/templated`, body_down: "$JSON" }, json: false },
  });
  const grp = channel({
    id: "33333333-3333-4333-8333-333333333333",
    projectId: "p",
    name: "everyone",
    kind: "group",
    value: { kind: "group", fields: { channels: `${jsonHook.id},${templated.id}` } },
  });
  const channels = [jsonHook, templated, grp];
  const shard = new Shard({ newId: sequentialIds(), now: t0 });
  shard.createProject(scenarioProject("p"), t0);
  for (const c of channels) shard.addChannel(c, t0);
  const made = shard.createCheck("p", { name: "nightly", timeoutMs: HOUR, graceMs: MINUTE, channels: { refs: [grp.id] } }, [], t0);
  if (!made.ok) throw new Error("create failed");
  shard.takeChanges();
  return { shard, uuid: made.value.check.uuid, grp, channels, lookup: async () => channels };
}

test("a real flip through a group reaches members that send the check's JSON (the entry carries the whole check)", async () => {
  const rx = await httpReceiver();
  try {
    const { shard, uuid, lookup } = shardWithGroup(rx.url);
    assert.ok(shard.ping(pingOf({ uuid }, DOWN_AT, { signal: "fail" })).ok);
    const entries = shard.takeChanges().outbox;
    assert.is(entries.length, 1);
    const { outbox, deliverer } = await delivererOf(entries, rx.url, { channels: lookup });
    await deliverer.deliverDue(DOWN_AT);
    assert.equal(outbox.all(), [], String(outbox.all()[0]?.lastError));
    const bodies = Object.fromEntries(rx.requests.map((r) => [r.path, JSON.parse(r.body) as { name: string; status: string }]));
    assert.equal([bodies["/json"]?.name, bodies["/json"]?.status, bodies["/templated"]?.name], ["nightly", "down", "nightly"]);
  } finally {
    await rx.close();
  }
});

test("Test through a group whose members send the check's JSON takes the real path: the JSON arrives at each", async () => {
  const rx = await httpReceiver();
  try {
    const { grp, lookup } = shardWithGroup(rx.url);
    const opts = { siteRoot: "http://hcd.test", allowPrivateIps: true, smtpUrl: null, services: settingsAt(rx.url), channels: lookup };
    assert.is(await sendTestNotification(projectOf({ id: "p", name: "Ops" }), grp, DOWN_AT, opts), null);
    assert.equal(rx.requests.map((r) => [r.path, (JSON.parse(r.body) as { name: string }).name]).sort(), [
      ["/json", "TEST"],
      ["/templated", "TEST"],
    ]);
  } finally {
    await rx.close();
  }
});

test.run();
