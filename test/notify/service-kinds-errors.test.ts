// How the kinds of notify/kinds/ handle their providers' answers, through a real Deliverer, store and
// loopback receiver: a 429 waits for its Retry-After, a 5xx is retried, a permanent 4xx is given up with
// the provider's error stored, secrets never reach the stored error, and the private-address rule
// applies to users' URLs but not to the operator's settings.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { ServiceKind } from "../../engine/model.ts";
import { hasGivenUp } from "../../engine/changes.ts";
import { httpReceiver } from "./receivers.ts";
import type { Answer } from "./receivers.ts";
import { BOT_TOKEN, closeOutboxes, delivererOf, DOWN_AT, entryOf, serviceChannel, settingsAt } from "./service-kinds-fixture.ts";

test.after.each(closeOutboxes);

/** Each kind's value (URLs under the receiver at `base`) and the refusal its provider documents for a bad key or target. */
const KINDS: { kind: ServiceKind; value: (base: string) => unknown; refusal: Answer & { status: number }; error: string }[] = [
  {
    kind: "telegram",
    value: () => ({ chat_id: 42 }),
    refusal: { status: 400, body: '{"ok": false, "error_code": 400, "description": "Bad Request: chat not found"}' },
    error: 'Received status code 400 with a message: "Bad Request: chat not found"',
  },
  { kind: "msteamsw", value: (base) => `${base}/teams`, refusal: { status: 404 }, error: "Received status code 404" },
  {
    kind: "pd",
    value: () => ({ service_key: "k" }),
    refusal: { status: 400, body: '{"status": "invalid event", "errors": ["Service key is the wrong length"]}' },
    error: "Received status code 400",
  },
  {
    kind: "po",
    value: () => ({ user_key: "u", priority: 0 }),
    refusal: { status: 400, body: '{"user": "invalid", "errors": ["user identifier is invalid"], "status": 0}' },
    error: "Received status code 400 (invalid user)",
  },
  {
    kind: "gotify",
    value: (base) => ({ url: base, token: "t" }),
    refusal: { status: 401, body: '{"error": "Unauthorized", "errorCode": 401}' },
    error: "Received status code 401",
  },
  {
    kind: "matrix",
    value: () => ({ room_id: "!r:example.org" }),
    refusal: { status: 403, body: '{"errcode": "M_FORBIDDEN"}' },
    error: "Received status code 403",
  },
  { kind: "googlechat", value: (base) => `${base}/chat`, refusal: { status: 400, body: "{}" }, error: "Received status code 400" },
  {
    kind: "opsgenie",
    value: () => ({ key: "k" }),
    refusal: { status: 422, body: '{"message": "Key format is not valid!", "took": 0.001}' },
    error: 'Received status code 422 with a message: "Key format is not valid!"',
  },
  {
    kind: "mattermost",
    value: (base) => `${base}/mm`,
    refusal: { status: 400, body: '{"id": "web.incoming_webhook.invalid.app_error"}' },
    error: "Received status code 400",
  },
  { kind: "rocketchat", value: (base) => `${base}/rc`, refusal: { status: 404 }, error: "Received status code 404" },
  {
    kind: "zulip",
    value: (base) => ({ bot_email: "b@o.example", api_key: "k", site: base, mtype: "stream", to: "ops" }),
    refusal: { status: 401, body: '{"result": "error", "msg": "Invalid API key", "code": "INVALID_API_KEY"}' },
    error: 'Received status code 401 with a message: "Invalid API key"',
  },
  {
    kind: "pushbullet",
    value: () => "k",
    refusal: { status: 401, body: '{"error": {"code": "invalid_access_token"}}' },
    error: "Received status code 401",
  },
  { kind: "victorops", value: (base) => `${base}/vo`, refusal: { status: 404 }, error: "Received status code 404" },
  { kind: "pagertree", value: (base) => `${base}/pt`, refusal: { status: 404 }, error: "Received status code 404" },
  { kind: "spike", value: (base) => `${base}/sp`, refusal: { status: 400 }, error: "Received status code 400" },
  {
    kind: "sms",
    value: () => "+15551234567",
    refusal: { status: 400, body: '{"code": 21211, "message": "The To number is not valid", "status": 400}' },
    error: "Invalid phone number",
  },
  { kind: "whatsapp", value: () => "+15551234567", refusal: { status: 401, body: '{"code": 20003}' }, error: "Received status code 401" },
  { kind: "call", value: () => "+15551234567", refusal: { status: 400, body: '{"code": 21211}' }, error: "Invalid phone number" },
  {
    kind: "github",
    value: () => ({ repo: "a/b", token: "t" }),
    refusal: { status: 410, body: '{"message": "Issues are disabled for this repo"}' },
    error: "Received status code 410",
  },
  {
    kind: "trello",
    value: () => ({ list_id: "0123456789abcdef01234567", token: "t" }),
    refusal: { status: 401, body: "invalid token" },
    error: "Received status code 401",
  },
];

test("every kind: a 429 is retried no sooner than its Retry-After, then delivered", async () => {
  for (const { kind, value } of KINDS) {
    const rx = await httpReceiver((_request, index) =>
      index === 0 ? { status: 429, headers: { "Retry-After": "120" } } : { status: 200 },
    );
    try {
      const entry = entryOf(serviceChannel(kind, value(rx.url)), "down");
      const { outbox, deliverer } = await delivererOf([entry], rx.url, { baseBackoffMs: 1_000 });
      await deliverer.deliverDue(DOWN_AT);
      const waiting = outbox.get(entry.id);
      assert.equal(
        [waiting?.attempts, waiting?.lastError, waiting?.nextAttemptAt],
        [1, "Received status code 429", DOWN_AT + 120_000],
        kind,
      );
      await deliverer.deliverDue(DOWN_AT + 119_999); // not due yet: this call finds nothing to send
      assert.is(rx.requests.length, 1, kind);
      await deliverer.deliverDue(DOWN_AT + 120_000);
      assert.equal([rx.requests.length, outbox.all()], [2, []], kind);
    } finally {
      await rx.close();
    }
  }
});

test("every kind: a 5xx is retried after the backoff, not given up", async () => {
  for (const { kind, value } of KINDS) {
    const rx = await httpReceiver(() => ({ status: 502 }));
    try {
      const entry = entryOf(serviceChannel(kind, value(rx.url)), "down");
      const { outbox, deliverer } = await delivererOf([entry], rx.url, { baseBackoffMs: 1_000 });
      await deliverer.deliverDue(DOWN_AT);
      const waiting = outbox.get(entry.id);
      assert.equal([waiting?.attempts, waiting?.lastError, waiting?.nextAttemptAt], [1, "Received status code 502", DOWN_AT + 1_000], kind);
      assert.not.ok(waiting !== null && hasGivenUp(waiting), kind);
    } finally {
      await rx.close();
    }
  }
});

test("every kind: a permanent 4xx is given up at once with the provider's error in the delivery state", async () => {
  for (const { kind, value, refusal, error } of KINDS) {
    const rx = await httpReceiver(() => refusal);
    try {
      const entry = entryOf(serviceChannel(kind, value(rx.url)), "down");
      const { outbox, deliverer } = await delivererOf([entry], rx.url);
      await deliverer.deliverDue(DOWN_AT);
      const stored = outbox.get(entry.id);
      assert.ok(stored !== null && hasGivenUp(stored), `${kind} given up`);
      assert.equal([stored?.attempts, stored?.lastError], [1, error], kind);
    } finally {
      await rx.close();
    }
  }
});

test("a provider's error that repeats a token is stored with the token masked", async () => {
  const rx = await httpReceiver((request) =>
    request.path.startsWith("/tg/")
      ? { status: 401, body: JSON.stringify({ description: `Unauthorized: bot${BOT_TOKEN} is unknown` }) }
      : { status: 401, body: JSON.stringify({ message: "key opsgenie-key-secret-value was revoked" }) },
  );
  try {
    const telegram = entryOf(serviceChannel("telegram", { chat_id: 1 }), "down");
    const opsgenie = entryOf(serviceChannel("opsgenie", { key: "opsgenie-key-secret-value" }), "down");
    const { outbox, deliverer } = await delivererOf([telegram, opsgenie], rx.url);
    await deliverer.deliverDue(DOWN_AT);
    assert.is(outbox.get(telegram.id)?.lastError, 'Received status code 401 with a message: "Unauthorized: bot**** is unknown"');
    assert.is(outbox.get(opsgenie.id)?.lastError, 'Received status code 401 with a message: "key **** was revoked"');
  } finally {
    await rx.close();
  }
});

test("private addresses: a user's URL is refused, the operator's endpoint setting is not", async () => {
  const rx = await httpReceiver();
  try {
    const gotify = entryOf(serviceChannel("gotify", { url: rx.url, token: "t" }), "down");
    const telegram = entryOf(serviceChannel("telegram", { chat_id: 1 }), "down");
    const { outbox, deliverer } = await delivererOf([gotify, telegram], rx.url, { allowPrivateIps: false });
    await deliverer.deliverDue(DOWN_AT);
    assert.equal(
      rx.requests.map((r) => r.path),
      [`/tg/bot${BOT_TOKEN}/sendMessage`],
    );
    assert.equal(
      outbox.all().map((e) => [e.channel.kind, e.lastError]),
      [["gotify", "Connections to private IP addresses are not allowed"]],
    );
  } finally {
    await rx.close();
  }
});

test("a kind whose server setting is missing is given up with the setting named", async () => {
  const rx = await httpReceiver();
  try {
    const entry = entryOf(serviceChannel("telegram", { chat_id: 1 }), "down");
    const { outbox, deliverer } = await delivererOf([entry], rx.url, { services: { ...settingsAt(rx.url), telegramBotToken: null } });
    await deliverer.deliverDue(DOWN_AT);
    const stored = outbox.get(entry.id);
    assert.ok(stored !== null && hasGivenUp(stored));
    assert.is(stored?.lastError, "Cannot build the message: Error: TELEGRAM_BOT_TOKEN is not set on this server");
    assert.is(rx.requests.length, 0);
  } finally {
    await rx.close();
  }
});

test.run();
