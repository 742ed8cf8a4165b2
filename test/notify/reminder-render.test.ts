// What each integration kind sends for a reminder ("still down since ..., N reminders so far") and
// for a status change, side by side; webhooks get $STATUS = down and $REMINDER = 1 for a reminder.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Channel } from "../../engine/model.ts";
import { HOUR } from "../../engine/model.ts";
import type { Delivery } from "../../notify/delivery.ts";
import { render } from "../../notify/render.ts";
import { channel, check } from "../helpers.ts";
import { outboxEntry } from "./memory-outbox.ts";

const SITE = { siteRoot: "https://hc.example.com", siteName: "hcd" };
const DOWN_AT = Date.UTC(2020, 0, 1, 1, 0, 0);
const REMINDER_AT = DOWN_AT + 2 * HOUR;
const LINE = "Still down since 2020-01-01T01:00:00+00:00 (2 hours, 0 minutes), 2 reminders so far.";

function reminderOf(ch: Channel, n = 2): Delivery | null {
  const entry = outboxEntry({
    check: check({ name: "Backup", status: "down" }),
    channel: ch,
    flip: { at: REMINDER_AT, from: "down", to: "down", reason: "" },
    extras: { downSinceAt: DOWN_AT },
  });
  return render({ ...entry, reminder: n }, SITE);
}

function downOf(ch: Channel): Delivery | null {
  return render(outboxEntry({ check: check({ name: "Backup", status: "down" }), channel: ch, flip: { at: DOWN_AT } }), SITE);
}

const hook = channel({
  kind: "webhook",
  value: {
    kind: "webhook",
    json: false,
    spec: {
      method_down: "POST",
      url_down: "http://h.example/$STATUS/$REMINDER",
      body_down: "$STATUS $REMINDER $NOW",
      headers_down: {},
      method_up: "GET",
      url_up: "http://h.example/up/$REMINDER",
      body_up: "",
      headers_up: {},
    },
  },
});

test("webhook: a reminder is $STATUS=down with $REMINDER=1; a status change has $REMINDER=0", () => {
  const reminder = reminderOf(hook),
    down = downOf(hook);
  assert.ok(reminder?.kind === "http" && down?.kind === "http");
  assert.equal([reminder.url, reminder.body], ["http://h.example/down/1", "down 1 2020-01-01T03:00:00+00:00"]);
  assert.equal([down.url, down.body], ["http://h.example/down/0", "down 0 2020-01-01T01:00:00+00:00"]);
});

test("slack and discord: the title says still DOWN and the text the outage's start and count", () => {
  for (const kind of ["slack", "discord"] as const) {
    const sent = reminderOf(channel({ kind, value: { kind, url: "https://chat.example/hook" } }));
    assert.ok(sent?.kind === "http");
    const attachment = (JSON.parse(sent.body ?? "") as { attachments: { title: string; text: string }[] }).attachments[0];
    assert.equal([attachment.title, attachment.text], ["\u201cBackup\u201d is still DOWN.", LINE], kind);
  }
});

test("ntfy: the title says still DOWN and the message starts with the reminder line", () => {
  const sent = reminderOf(
    channel({ kind: "ntfy", value: { kind: "ntfy", spec: { url: "https://ntfy.example", topic: "t", priority_down: 5, priority_up: 3 } } }),
  );
  assert.ok(sent?.kind === "http");
  const payload = JSON.parse(sent.body ?? "") as { title: string; message: string };
  assert.is(payload.title, "Backup is still DOWN");
  assert.ok(payload.message.startsWith(`${LINE}\n`), payload.message);
});

test("email: a Reminder subject, and the text and HTML say still down since when and how many so far", () => {
  const sent = reminderOf(channel(), 1);
  assert.ok(sent?.kind === "email");
  assert.is(sent.subject, "Reminder: DOWN | Backup");
  const line = "Still down since 2020-01-01T01:00:00+00:00 (2 hours, 0 minutes), 1 reminder so far.";
  assert.ok(sent.text.startsWith(`The check "Backup" is still down.\n${line}\n`), sent.text);
  assert.ok(sent.html.includes(`<p>"Backup" is still DOWN. ${line} <a href=`), sent.html);
  const down = downOf(channel());
  assert.ok(down?.kind === "email");
  assert.is(down.subject, "DOWN | Backup");
});

test("a reminder whose outage start is unknown says so without a date", () => {
  const entry = outboxEntry({ channel: hook, flip: { at: REMINDER_AT, from: "down", to: "down", reason: "" } });
  const sent = render({ ...entry, reminder: 3 }, SITE);
  const slack = render(
    {
      ...outboxEntry({
        channel: channel({ kind: "slack", value: { kind: "slack", url: "https://chat.example/h" } }),
        flip: { at: REMINDER_AT, from: "down", to: "down", reason: "" },
      }),
      reminder: 3,
    },
    SITE,
  );
  assert.ok(sent?.kind === "http" && slack?.kind === "http");
  assert.is(sent.url, "http://h.example/down/1");
  assert.is((JSON.parse(slack.body ?? "") as { attachments: { text: string }[] }).attachments[0].text, "Still down, 3 reminders so far.");
});

test("the JSON webhook's check representation carries the alerting fields", () => {
  const c = check({ name: "Backup", status: "down", failureThreshold: 3, reminderIntervalMs: 2 * HOUR, mutedUntilAt: DOWN_AT });
  const ch = channel({
    kind: "webhook",
    value: {
      kind: "webhook",
      json: true,
      spec: {
        method_down: "POST",
        url_down: "http://h.example/j",
        body_down: "",
        headers_down: {},
        method_up: "POST",
        url_up: "",
        body_up: "",
        headers_up: {},
      },
    },
  });
  const sent = render({ ...outboxEntry({ check: c, channel: ch, flip: { at: REMINDER_AT } }), reminder: 1 }, SITE);
  assert.ok(sent?.kind === "http");
  const json = JSON.parse(sent.body ?? "") as Record<string, unknown>;
  assert.equal([json.failure_threshold, json.reminder_interval, json.muted_until], [3, 7200, "2020-01-01T01:00:00+00:00"]);
});

test.run();
