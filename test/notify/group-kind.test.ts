// The group kind in the deliverer: a group's entry goes to each member as to that channel, a nested group
// is never followed (no loops), a member that got it is not sent it again on the group's retry, and a
// member's permanent refusal ends the group's entry with that member's error.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Channel } from "../../engine/model.ts";
import { project as projectOf } from "../helpers.ts";
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
  return { outer, channels, lookup: async (projectId: string) => projectId === "p" ? channels : [] };
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
  const rx = await httpReceiver((request): Answer => request.path.startsWith("/gotify") && gotifyCalls++ === 0 ? { status: 503 } : { status: 200 });
  try {
    const { outer, lookup } = project(rx.url);
    const entry = entryOf(outer, "down");
    const { outbox, deliverer } = await delivererOf([entry], rx.url, { channels: lookup, baseBackoffMs: 1_000 });
    await deliverer.deliverDue(DOWN_AT);
    assert.equal([outbox.get(entry.id)?.lastError, outbox.get(entry.id)?.nextAttemptAt], ["phone: Received status code 503", DOWN_AT + 1_000]);
    await deliverer.deliverDue(DOWN_AT + 1_000);
    assert.equal(rx.requests.map((r) => r.path.split("/")[1]).sort(), ["gotify", "gotify", "tg"]);
    assert.equal(outbox.all(), []);
  } finally {
    await rx.close();
  }
});

test("a member's permanent refusal gives the group's entry up with that member's error; without a lookup it is given up", async () => {
  const rx = await httpReceiver((request): Answer => request.path.startsWith("/gotify") ? { status: 401 } : { status: 200 });
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
  const rx = await httpReceiver((request): Answer => request.path.startsWith("/gotify") ? { status: 500 } : { status: 200 });
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

test.run();
