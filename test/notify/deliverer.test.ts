import { test } from "uvu";
import * as assert from "uvu/assert";
import type { OutboxEntry } from "../../engine/changes.ts";
import type { Channel, WebhookSpec } from "../../engine/model.ts";
import type { DelivererOptions } from "../../notify/deliverer.ts";
import { Deliverer } from "../../notify/deliverer.ts";
import { GAVE_UP_AT, hasGivenUp } from "../../engine/changes.ts";
import { channel, check, uuid } from "../helpers.ts";
import { shardOf } from "../../host/routing.ts";
import { outboxEntry } from "./memory-outbox.ts";
import { StoreOutbox } from "./store-outbox.ts";
import { httpReceiver, smtpReceiver } from "./receivers.ts";

const PRIVATE = "Connections to private IP addresses are not allowed";

// every test's outbox is a real store in a temp dir, closed and removed after the test
const opened: StoreOutbox[] = [];
async function storeOutbox(entries: readonly OutboxEntry[] = [], shard?: { index: number; count: number }): Promise<StoreOutbox> {
  const outbox = await StoreOutbox.open(entries, shard);
  opened.push(outbox);
  return outbox;
}
test.after.each(async () => {
  for (const outbox of opened.splice(0)) await outbox.close();
});

function deliverer(outbox: StoreOutbox, options: Partial<DelivererOptions> = {}): Deliverer {
  return new Deliverer({
    outbox,
    siteRoot: "http://hcd.test",
    allowPrivateIps: true,
    fromAddress: "hcd@hcd.test",
    timeoutMs: 2_000,
    ...options,
  });
}

function webhook(urlDown: string, urlUp = urlDown): Channel {
  const spec: WebhookSpec = {
    method_down: "POST",
    url_down: urlDown,
    body_down: "$STATUS $NAME_JSON",
    headers_down: {},
    method_up: "POST",
    url_up: urlUp,
    body_up: "$STATUS $NAME_JSON",
    headers_up: {},
  };
  return channel({ kind: "webhook", value: { kind: "webhook", spec, json: false } });
}

function one(outbox: StoreOutbox, entry: OutboxEntry): OutboxEntry {
  const stored = outbox.get(entry.id);
  if (stored === null) throw new Error(`entry ${entry.id} is gone`);
  return stored;
}

test("webhook, slack, discord and ntfy entries reach a real receiver rendered, then leave the outbox", async () => {
  const rx = await httpReceiver();
  try {
    const c = check({ name: "Nightly ü", status: "down" });
    const channels = [
      webhook(`${rx.url}/hook/$STATUS?name=$NAME`),
      channel({ kind: "slack", value: { kind: "slack", url: `${rx.url}/slack-hook` } }),
      channel({ kind: "discord", value: { kind: "discord", url: `${rx.url}/discord-hook` } }),
      channel({ kind: "ntfy", value: { kind: "ntfy", spec: { url: `${rx.url}/`, topic: "ops", priority_down: 4, priority_up: 3 } } }),
    ];
    const outbox = await storeOutbox(channels.map((ch) => outboxEntry({ check: c, channel: ch })));
    await deliverer(outbox).deliverDue(0);
    assert.is(outbox.all().length, 0);
    const byPath = new Map(rx.requests.map((r) => [r.path.split("?")[0], r]));
    assert.equal([...byPath.keys()].sort(), ["/", "/discord-hook/slack", "/hook/down", "/slack-hook"]);
    const hook = byPath.get("/hook/down");
    assert.equal([hook?.path, hook?.body], ["/hook/down?name=Nightly%20%C3%BC", 'down "Nightly \\u00fc"']);
    for (const path of ["/slack-hook", "/discord-hook/slack"]) {
      const payload = JSON.parse(byPath.get(path)?.body ?? "");
      assert.equal(
        [payload.username, payload.attachments[0].title, payload.attachments[0].color],
        ["hcd", "\u201cNightly \u00fc\u201d is DOWN.", "danger"],
      );
    }
    const ntfy = JSON.parse(byPath.get("/")?.body ?? "");
    assert.equal([ntfy.topic, ntfy.priority, ntfy.title, ntfy.tags], ["ops", 4, "Nightly \u00fc is DOWN", ["red_circle"]]);
    assert.is(byPath.get("/")?.headers["content-type"], "application/json");
  } finally {
    await rx.close();
  }
});

test("an email entry arrives over real SMTP with subject, text and HTML parts", async () => {
  const smtp = await smtpReceiver();
  try {
    const c = check({ name: "Daily Backup", status: "down" });
    const ch = channel({ kind: "email", value: { kind: "email", address: "ops@example.com" } });
    const outbox = await storeOutbox([outboxEntry({ check: c, channel: ch })]);
    await deliverer(outbox, { smtpUrl: smtp.url }).deliverDue(0);
    assert.is(outbox.all().length, 0);
    const mail = smtp.mails[0];
    assert.is(mail.subject, "DOWN | Daily Backup");
    assert.ok((mail.text ?? "").startsWith('The check "Daily Backup" has gone down.\nReason: success signal did not arrive on time'));
    assert.ok(typeof mail.html === "string" && mail.html.includes('"Daily Backup" is DOWN'));
    assert.is(mail.from?.text, "hcd@hcd.test");
  } finally {
    await smtp.close();
  }
});

test("without SMTP_URL an email entry stays with a clear lastError and a retry time", async () => {
  const e = outboxEntry();
  const outbox = await storeOutbox([e]);
  await deliverer(outbox).deliverDue(0);
  assert.equal(
    [one(outbox, e).attempts, one(outbox, e).lastError, one(outbox, e).nextAttemptAt],
    [1, "Email is not configured: SMTP_URL is not set", 10_000],
  );
});

test("a receiver answering 500 then 200 gets its retry at the backoff time, then the entry is gone", async () => {
  const rx = await httpReceiver((_req, i) => ({ status: i === 0 ? 500 : 200 }));
  try {
    const e = outboxEntry({ channel: webhook(`${rx.url}/x`) });
    const outbox = await storeOutbox([e]);
    const d = deliverer(outbox);
    await d.deliverDue(0);
    assert.equal(
      [one(outbox, e).attempts, one(outbox, e).nextAttemptAt, one(outbox, e).lastError],
      [1, 10_000, "Received status code 500"],
    );
    await d.deliverDue(9_999);
    assert.is(rx.requests.length, 1);
    await d.deliverDue(10_000);
    assert.is(rx.requests.length, 2);
    assert.is(outbox.get(e.id), null);
  } finally {
    await rx.close();
  }
});

test("backoff doubles per failed attempt up to the cap", async () => {
  const rx = await httpReceiver(() => ({ status: 503 }));
  try {
    const e = outboxEntry({ channel: webhook(rx.url) });
    const outbox = await storeOutbox([e]);
    const d = deliverer(outbox, { baseBackoffMs: 1_000, maxBackoffMs: 5_000, maxAttempts: 10 });
    const delays: number[] = [];
    let now = 0;
    for (let i = 0; i < 5; i++) {
      await d.deliverDue(now);
      delays.push(one(outbox, e).nextAttemptAt - now);
      now = one(outbox, e).nextAttemptAt;
    }
    assert.equal(delays, [1_000, 2_000, 4_000, 5_000, 5_000]);
  } finally {
    await rx.close();
  }
});

test("after maxAttempts the entry is kept as given up, with its last error, and never sent again", async () => {
  const rx = await httpReceiver(() => ({ status: 503 }));
  try {
    const e = outboxEntry({ channel: webhook(rx.url) });
    const outbox = await storeOutbox([e]);
    const d = deliverer(outbox, { maxAttempts: 3 });
    for (const now of [0, 10_000, 30_000]) await d.deliverDue(now);
    const last = one(outbox, e);
    assert.equal([last.attempts, last.nextAttemptAt, last.lastError, hasGivenUp(last)], [3, GAVE_UP_AT, "Received status code 503", true]);
    await d.deliverDue(GAVE_UP_AT);
    assert.is(rx.requests.length, 3);
  } finally {
    await rx.close();
  }
});

test("a permanent error (Slack 404) gives up at once", async () => {
  const rx = await httpReceiver(() => ({ status: 404 }));
  try {
    const e = outboxEntry({ channel: channel({ kind: "slack", value: { kind: "slack", url: rx.url } }) });
    const outbox = await storeOutbox([e]);
    await deliverer(outbox).deliverDue(0);
    assert.equal([one(outbox, e).attempts, hasGivenUp(one(outbox, e)), one(outbox, e).lastError], [1, true, "Received status code 404"]);
  } finally {
    await rx.close();
  }
});

test("a hanging receiver times out without delaying another channel or the next call", async () => {
  const hang = await httpReceiver(() => "hang");
  const fast = await httpReceiver();
  try {
    const c = check({ name: "c", status: "down" });
    const slow = outboxEntry({ check: c, channel: webhook(hang.url) });
    const quick = outboxEntry({ check: c, channel: webhook(fast.url) });
    const outbox = await storeOutbox([slow, quick]);
    const d = deliverer(outbox, { timeoutMs: 3_000 });
    let firstDone = false;
    const first = d.deliverDue(0).then(() => {
      firstDone = true;
    });
    await fast.nextRequest();
    // a later call while the hanging send is in flight delivers new work and skips the busy queue
    const later = outboxEntry({ check: check({ status: "down" }), channel: webhook(`${fast.url}/later`) });
    await outbox.add(later);
    await d.deliverDue(1);
    assert.equal(
      [firstDone, one(outbox, slow).attempts, outbox.get(later.id), hang.requests.length],
      [false, 0, null, 1],
      "the fast receiver or the second call waited for the hanging send",
    );
    await first;
    assert.equal([outbox.get(quick.id), one(outbox, slow).lastError, one(outbox, slow).attempts], [null, "Connection timed out", 1]);
  } finally {
    await hang.close();
    await fast.close();
  }
});

test("a private address is refused when not allowed, and the receiver hears nothing", async () => {
  const rx = await httpReceiver();
  try {
    const e = outboxEntry({ channel: webhook(rx.url) });
    const outbox = await storeOutbox([e]);
    await deliverer(outbox, { allowPrivateIps: false }).deliverDue(0);
    assert.equal([one(outbox, e).lastError, rx.requests.length], [PRIVATE, 0]);
  } finally {
    await rx.close();
  }
});

test("one check's flips reach a channel in flip order; a failing earlier flip holds back the later one", async () => {
  const rx = await httpReceiver((_req, i) => ({ status: i === 0 ? 500 : 200 }));
  try {
    const c = check({ name: "c", status: "up" });
    const ch = webhook(`${rx.url}/$STATUS`);
    const down = outboxEntry({ check: c, channel: ch, flip: { n: 1, at: 0, from: "up", to: "down" } });
    const up = outboxEntry({ check: c, channel: ch, flip: { n: 2, at: 1_000, from: "down", to: "up", reason: "" } });
    const outbox = await storeOutbox([down]);
    const d = deliverer(outbox);
    await d.deliverDue(0); // the down notification fails
    await outbox.add(up); // the up flip is committed afterwards
    await d.deliverDue(1_000);
    assert.equal([rx.requests.length, one(outbox, up).nextAttemptAt, one(outbox, up).attempts], [1, 10_000, 0]);
    await d.deliverDue(10_000);
    assert.equal(
      rx.requests.map((r) => r.path),
      ["/down", "/down", "/up"],
    );
    assert.is(outbox.all().length, 0);
  } finally {
    await rx.close();
  }
});

test("entries due together in one call are sent in flip order, one after another", async () => {
  const rx = await httpReceiver();
  try {
    const c = check({ name: "c", status: "down" });
    const ch = webhook(`${rx.url}/$STATUS`);
    const flips = [
      { n: 3, at: 2_000, from: "up" as const, to: "down" as const },
      { n: 1, at: 0, from: "up" as const, to: "down" as const },
      { n: 2, at: 1_000, from: "down" as const, to: "up" as const, reason: "" as const },
    ];
    const outbox = await storeOutbox(flips.map((f) => outboxEntry({ check: c, channel: ch, flip: f })));
    await deliverer(outbox).deliverDue(5_000);
    assert.equal(
      rx.requests.map((r) => r.path),
      ["/down", "/up", "/down"],
    );
  } finally {
    await rx.close();
  }
});

test("a direction with nothing to send (empty webhook URL) removes the entry without a request", async () => {
  const rx = await httpReceiver();
  try {
    const e = outboxEntry({ channel: webhook(rx.url, ""), flip: { from: "down", to: "up", reason: "" } });
    const outbox = await storeOutbox([e]);
    await deliverer(outbox).deliverDue(0);
    assert.equal([outbox.all().length, rx.requests.length], [0, 0]);
  } finally {
    await rx.close();
  }
});

test("ntfy: the 7th message to one topic within a minute is rate limited and retried later", async () => {
  const rx = await httpReceiver();
  try {
    const ch = channel({ kind: "ntfy", value: { kind: "ntfy", spec: { url: rx.url, topic: "t", priority_down: 3, priority_up: 3 } } });
    const entries = Array.from({ length: 7 }, () => outboxEntry({ check: check({ status: "down" }), channel: ch }));
    const outbox = await storeOutbox(entries);
    const d = deliverer(outbox);
    await d.deliverDue(0);
    assert.equal([rx.requests.length, outbox.all().map((e) => e.lastError)], [6, ["Rate limit exceeded"]]);
    await d.deliverDue(60_000);
    assert.equal([rx.requests.length, outbox.all().length], [7, 0]);
  } finally {
    await rx.close();
  }
});

test("at least once: when the store cannot delete a delivered entry, the call fails and the entry is sent again", async () => {
  const rx = await httpReceiver();
  try {
    const e = outboxEntry({ channel: webhook(rx.url) });
    const outbox = await storeOutbox([e]);
    let failDelete = true;
    const flaky = {
      outboxDue: outbox.outboxDue.bind(outbox),
      outboxUpdate: outbox.outboxUpdate.bind(outbox),
      outboxDelete: async (id: string) => {
        if (failDelete) {
          failDelete = false;
          throw new Error("disk full");
        }
        await outbox.outboxDelete(id);
      },
    };
    const d = new Deliverer({ outbox: flaky, siteRoot: "http://hcd.test", allowPrivateIps: true, fromAddress: "hcd@hcd.test" });
    let thrown: unknown = null;
    await d.deliverDue(0).catch((error: unknown) => {
      thrown = error;
    });
    assert.ok(thrown instanceof AggregateError);
    await d.deliverDue(0);
    assert.equal([rx.requests.length, outbox.all().length], [2, 0]);
  } finally {
    await rx.close();
  }
});

/** Returns a check of a project that lands on shard `index` of `count`. */
function checkOnShard(index: number, count: number) {
  for (;;) {
    const c = check({ status: "down", projectId: uuid() });
    if (shardOf(c.projectId, count) === index) return c;
  }
}

test("a shard delivers only its own projects' entries, even behind a full batch of another shard's older ones", async () => {
  const rx = await httpReceiver();
  try {
    const theirs = Array.from({ length: 3 }, (_, i) =>
      outboxEntry({ check: checkOnShard(1, 2), channel: webhook(`${rx.url}/theirs`), flip: { at: i } }),
    );
    const ours = outboxEntry({ check: checkOnShard(0, 2), channel: webhook(`${rx.url}/ours`), flip: { at: 100 } });
    const outbox = await storeOutbox([...theirs, ours], { index: 0, count: 2 });
    assert.equal(
      outbox.all().map((e) => e.id),
      [...theirs, ours].map((e) => e.id),
      "the other shard's entries are older (first in key order)",
    );
    await deliverer(outbox, { batchSize: theirs.length }).deliverDue(1_000);
    assert.equal(
      rx.requests.map((r) => r.path),
      ["/ours"],
    );
    assert.equal(
      outbox.all().map((e) => [e.id, e.attempts]),
      theirs.map((e) => [e.id, 0]),
      "the other shard's entries are left to it",
    );
  } finally {
    await rx.close();
  }
});

test.run();
