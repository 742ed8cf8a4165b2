import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Channel, Flip, WebhookSpec } from "../../engine/model.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import { noticeChannelOf, noticeCheckOf } from "../../engine/changes.ts";
import { isPrivateAddress } from "../../notify/private-ip.ts";
import { pyJson } from "../../notify/py-json.ts";
import type { Delivery, HttpRequest } from "../../notify/delivery.ts";
import { cloakedUrl, isPermanentResponse, ntfyTarget, pyQuote, render, substitute } from "../../notify/render.ts";
import { formatAgo, formatDowntime, formatPeriod } from "../../notify/wording.ts";
import { isoSeconds } from "../../lib/iso-dates.ts";
import { channel, check, ping } from "../helpers.ts";
import { outboxEntry } from "./memory-outbox.ts";

const SITE = { siteRoot: "https://hc.example.com", siteName: "hcd" };
const T0 = Date.UTC(2020, 0, 1, 1, 0, 0); // 2020-01-01T01:00:00Z

function webhook(spec: Partial<WebhookSpec>): Channel {
  const full: WebhookSpec = {
    method_down: "GET",
    url_down: "",
    body_down: "",
    headers_down: {},
    method_up: "GET",
    url_up: "",
    body_up: "",
    headers_up: {},
    ...spec,
  };
  return channel({ kind: "webhook", value: { kind: "webhook", spec: full, json: false } });
}

function http(delivery: Delivery | null): HttpRequest {
  if (delivery === null || delivery.kind !== "http") throw new Error(`expected an HTTP request, got ${JSON.stringify(delivery)}`);
  return delivery;
}

// ---- placeholders --------------------------------------------------------------------------------

const values: [string, string][] = [
  ["$NAME_JSON", '"n"'],
  ["$NAME", ""],
  ["$TAGS", "a b"],
  ["$TAG1", "a"],
  ["$TAG2", "b"],
];
const rows: [name: string, template: string, want: string][] = [
  ["a placeholder followed by text keeps the text", "x$NAME_JSONfoo", 'x"n"foo'],
  ["$TAG12 is tag 1 followed by 2", "$TAG12", "a2"],
  ["$$NAME with an empty name leaves one $", "$$NAME", "$"],
  ["unknown placeholders and a lone $ stay as written", "$X $ $name", "$X $ $name"],
  ["$TAGS wins over $TAG1", "$TAGS", "a b"],
];
for (const [name, template, want] of rows) test(name, () => assert.is(substitute(template, values), want));

test("substituted text is never scanned again", () => {
  assert.is(
    substitute("$NAME-$SLUG", [
      ["$NAME", "$SLUG"],
      ["$SLUG", "s"],
    ]),
    "$SLUG-s",
  );
});

test("pyQuote encodes like Python quote(): keeps / and unreserved characters", () => {
  assert.is(pyQuote("a b/ü+$:~_.-!*'()"), "a%20b/%C3%BC%2B%24%3A~_.-%21%2A%27%28%29");
});

test("pyJson writes Python's separators and escapes non-ASCII", () => {
  assert.is(pyJson({ a: "café 😀", b: [1, null, true], c: {} }), '{"a": "caf\\u00e9 \\ud83d\\ude00", "b": [1, null, true], "c": {}}');
  assert.is(pyJson('tab\t"q"\\'), '"tab\\t\\"q\\"\\\\"');
});

test("webhook URL: placeholders rendered, free text values percent-encoded, ids as they are", () => {
  const c = check({ name: "Daily Backup/ü+$", slug: "daily-backup", tags: "prod db:1", status: "down" });
  const ch = webhook({
    url_down: "http://h.example/$CODE/$STATUS?n=$NAME&j=$NAME_JSON&t=$TAGS&t1=$TAG2&now=$NOW&s=$SLUG&e=$EXITSTATUS&b=$BODY",
  });
  const req = http(
    render(
      outboxEntry({
        check: c,
        channel: ch,
        flip: { at: T0 + 999 },
        lastPing: ping({ kind: "fail", exitStatus: 3 }),
        extras: { lastPingBody: new TextEncoder().encode("x") },
      }),
      SITE,
    ),
  );
  assert.is(req.method, "GET");
  assert.is(req.body, null);
  assert.is(
    req.url,
    `http://h.example/${c.uuid}/down?n=Daily%20Backup/%C3%BC%2B%24&j=%22Daily%20Backup/%5Cu00fc%2B%24%22` +
      `&t=prod%20db%3A1&t1=db%3A1&now=2020-01-01T01%3A00%3A00%2B00%3A00&s=daily-backup&e=3&b=$BODY`,
  );
});

test("webhook body and headers: no URL encoding, $BODY only in the body, non-latin-1 header values as references", () => {
  const c = check({ name: "Café", status: "up" });
  const ch = webhook({
    method_up: "post",
    url_up: "http://h.example/",
    body_up: "$NAME $NAME_JSON $BODY $BODY_JSON $EXITSTATUS",
    headers_up: { "X-Name": "$NAME ā", "X-Body": "$BODY" },
  });
  const req = http(
    render(
      outboxEntry({
        check: c,
        channel: ch,
        flip: { from: "down", to: "up", reason: "" },
        lastPing: ping(),
        extras: { lastPingBody: new Uint8Array([0x6f, 0x6b, 0xff]) },
      }),
      SITE,
    ),
  );
  assert.is(req.method, "POST");
  assert.is(req.body, 'Café "Caf\\u00e9" ok\ufffd "ok\\ufffd" -1');
  assert.equal(req.headers, { "X-Name": "Café &#257;", "X-Body": "$BODY" });
});

test("webhook: an empty URL makes that direction a no-op; GET never has a body", () => {
  const ch = webhook({ url_down: "http://h.example/down", body_down: "ignored" });
  assert.is(render(outboxEntry({ channel: ch, flip: { from: "down", to: "up", reason: "" } }), SITE), null);
  assert.is(http(render(outboxEntry({ channel: ch }), SITE)).body, null);
});

test('webhook: a body without a ping gives empty $BODY, "" for $BODY_JSON', () => {
  const ch = webhook({ method_down: "PUT", url_down: "http://h.example/", body_down: "[$BODY][$BODY_JSON]" });
  assert.is(http(render(outboxEntry({ channel: ch }), SITE)).body, '[][""]');
});

test("URL-form webhook POSTs the check's JSON on down and up", () => {
  const c = check({ name: "api", slug: "api", tags: "a", status: "down", nPings: 4, lastPingAt: T0 - MINUTE, channels: ["b", "a"] });
  const spec: WebhookSpec = {
    method_down: "POST",
    url_down: "http://h.example/hook",
    body_down: "$JSON",
    headers_down: {},
    method_up: "POST",
    url_up: "http://h.example/hook",
    body_up: "$JSON",
    headers_up: {},
  };
  const ch = channel({ kind: "webhook", value: { kind: "webhook", spec, json: true } });
  for (const to of ["down", "up"] as const) {
    const req = http(render(outboxEntry({ check: { ...c, status: to }, channel: ch, flip: { at: T0, to } }), SITE));
    assert.is(req.method, "POST");
    assert.is(req.url, "http://h.example/hook");
    const json = JSON.parse(req.body ?? "");
    assert.equal(Object.keys(json), [
      "name",
      "slug",
      "tags",
      "desc",
      "grace",
      "n_pings",
      "status",
      "started",
      "last_ping",
      "next_ping",
      "manual_resume",
      "methods",
      "subject",
      "subject_fail",
      "start_kw",
      "success_kw",
      "failure_kw",
      "filter_subject",
      "filter_body",
      "filter_http_body",
      "filter_default_fail",
      "badge_url",
      "failure_threshold",
      "reminder_interval",
      "muted_until",
      "max_duration",
      "acknowledged",
      "depends_on",
      "held_by",
      "min_duration",
      "alert_on_overlap",
      "max_runs_per_period",
      "escalation",
      "escalated",
      "uuid",
      "ping_url",
      "update_url",
      "pause_url",
      "resume_url",
      "channels",
      "timeout",
    ]);
    assert.equal(
      [json.name, json.status, json.n_pings, json.last_ping, json.channels, json.timeout, json.grace],
      ["api", to, 4, "2020-01-01T00:59:00+00:00", "a,b", 86400, 3600],
    );
    assert.is(json.ping_url, `https://hc.example.com/ping/${c.uuid}`);
  }
});

// ---- Slack, Discord ------------------------------------------------------------------------------

test("slack: the reference's attachment payload, cloaked link, no uuid for a named check", () => {
  const c = check({ name: "Backup", tags: "prod  db", desc: "Nightly", status: "down", nPings: 7 });
  const ch = channel({ kind: "slack", value: { kind: "slack", url: "https://hooks.slack.com/services/x" } });
  const req = http(
    render(
      outboxEntry({
        check: c,
        channel: ch,
        flip: { at: T0 },
        lastPing: ping({ n: 7, at: T0 - 10 * MINUTE, kind: "fail", exitStatus: 2 }),
        extras: { lastPingBody: new TextEncoder().encode("boom"), projectName: "Ops" },
      }),
      SITE,
    ),
  );
  assert.is(req.url, "https://hooks.slack.com/services/x");
  assert.not.ok((req.body ?? "").includes(c.uuid));
  assert.equal(JSON.parse(req.body ?? ""), {
    username: "hcd",
    icon_url: "https://hc.example.com/static/img/logo.png",
    attachments: [
      {
        color: "danger",
        fallback: 'The check "Backup" is DOWN.',
        mrkdwn_in: ["fields"],
        title: "\u201cBackup\u201d is DOWN.",
        title_link: cloakedUrl(c, SITE.siteRoot),
        text: "Reason: success signal did not arrive on time, grace time passed.",
        fields: [
          { title: "Description", value: "Nightly" },
          { title: "Project", value: "Ops", short: true },
          { title: "Tags", value: "`prod` `db`", short: true },
          { title: "Period", value: "1 day", short: true },
          { title: "Total Pings", value: "7", short: true },
          { title: "Last Ping", value: "Exit status 2, 10 minutes ago", short: true },
          { title: "Last Ping Body", value: "```\nboom\n```" },
        ],
      },
    ],
  });
});

test("slack up flip: downtime text, unnamed check falls back to the uuid, cron schedule asterisks escaped", () => {
  const c = check({ name: "", kind: "cron", schedule: "*/5 * * * *", tz: "Europe/Riga", status: "up" });
  const ch = channel({ kind: "slack", value: { kind: "slack", url: "https://hooks.slack.com/x" } });
  const req = http(
    render(
      outboxEntry({
        check: c,
        channel: ch,
        flip: { at: T0, from: "down", to: "up", reason: "" },
        extras: { downSinceAt: T0 - (26 * 60 + 1) * MINUTE },
      }),
      SITE,
    ),
  );
  const a = JSON.parse(req.body ?? "").attachments[0];
  assert.equal([a.color, a.title, a.text], ["good", `\u201c${c.uuid}\u201d is UP.`, "The downtime lasted 1 day, 2 hours."]);
  assert.equal(a.fields, [
    { title: "Schedule", value: "\u034f*/5 \u034f* \u034f* \u034f* \u034f*", short: true },
    { title: "Time Zone", value: "Europe/Riga", short: true },
    { title: "Total Pings", value: "0", short: true },
    { title: "Last Ping", value: "Never", short: true },
  ]);
});

test("discord: the Slack payload to <url>/slack, discordapp.com rewritten, asterisks backslashed", () => {
  const c = check({ name: "x", kind: "cron", schedule: "* * * * *", status: "down" });
  const ch = channel({ kind: "discord", value: { kind: "discord", url: "https://discordapp.com/api/webhooks/1/abc" } });
  const req = http(render(outboxEntry({ check: c, channel: ch }), SITE));
  assert.is(req.url, "https://discord.com/api/webhooks/1/abc/slack");
  assert.is(JSON.parse(req.body ?? "").attachments[0].fields[0].value, "\\* \\* \\* \\* \\*");
});

test("permanent answers: Slack 404 and 400 invalid_token, Discord 404; never for webhooks", () => {
  assert.equal(
    [
      isPermanentResponse("slack", 404, ""),
      isPermanentResponse("slack", 400, "invalid_token"),
      isPermanentResponse("slack", 400, "other"),
      isPermanentResponse("discord", 404, ""),
      isPermanentResponse("discord", 400, "invalid_token"),
      isPermanentResponse("webhook", 404, ""),
    ],
    [true, true, false, true, false, false],
  );
});

// ---- ntfy ----------------------------------------------------------------------------------------

test("ntfy: JSON publish to the server base with topic, priority, escaped markdown message and a view action", () => {
  const c = check({ name: "A & B", tags: "x y", status: "down", nPings: 3 });
  const ch = channel({
    kind: "ntfy",
    value: { kind: "ntfy", spec: { url: "https://ntfy.example/", topic: "alerts", priority_down: 5, priority_up: 3 } },
  });
  const req = http(
    render(
      outboxEntry({
        check: c,
        channel: ch,
        flip: { at: T0, reason: "fail" },
        lastPing: ping({ n: 3, at: T0 - 2 * 3600_000, kind: "fail" }),
        extras: { projectName: "P>1" },
      }),
      SITE,
    ),
  );
  assert.is(req.url, "https://ntfy.example");
  assert.equal(JSON.parse(req.body ?? ""), {
    topic: "alerts",
    priority: 5,
    title: "A & B is DOWN",
    message:
      "Reason: received a failure signal.\n\n**Project:** P&gt;1\n**Tags:** x, y\n**Period:** 1 day\n" +
      "**Total Pings:** 3\n**Last Ping:** Failure, 2 hours ago",
    markdown: true,
    tags: ["red_circle"],
    actions: [{ action: "view", label: "View on hcd", url: cloakedUrl(c, SITE.siteRoot) }],
  });
});

test("ntfy: priority 0 is a no-op for that direction; a topic URL is split into server and topic", () => {
  const spec = { url: "https://ntfy.example/base/alerts", topic: "", priority_down: 3, priority_up: 0 };
  const ch = channel({ kind: "ntfy", value: { kind: "ntfy", spec } });
  assert.is(render(outboxEntry({ channel: ch, flip: { from: "down", to: "up", reason: "" } }), SITE), null);
  assert.equal(ntfyTarget(spec), { server: "https://ntfy.example/base", topic: "alerts" });
  const req = http(render(outboxEntry({ channel: ch }), SITE));
  assert.equal(
    [req.url, JSON.parse(req.body ?? "").topic, JSON.parse(req.body ?? "").tags],
    ["https://ntfy.example/base", "alerts", ["red_circle"]],
  );
});

// ---- email ---------------------------------------------------------------------------------------

test("email: subject names the new status and check; text and HTML carry the facts without the uuid", () => {
  const c = check({ name: "Foo & Bar", tags: "prod", status: "down", nPings: 12, createdAt: T0 - 86_400_000 });
  const ch = channel({ kind: "email", value: { kind: "email", address: "ops@example.com" } });
  const delivery = render(
    outboxEntry({
      check: c,
      channel: ch,
      flip: { at: T0 },
      lastPing: ping({ at: T0 - 90_000, remoteAddr: "10.1.2.3", kind: "start" }),
      extras: { lastPingBody: new TextEncoder().encode("<b>log</b>") },
    }),
    SITE,
  );
  if (delivery === null || delivery.kind !== "email") throw new Error("expected an email");
  assert.is(delivery.to, "ops@example.com");
  assert.is(delivery.subject, "DOWN | Foo & Bar");
  assert.is(
    delivery.text,
    [
      'The check "Foo & Bar" has gone down.',
      "Reason: success signal did not arrive on time, grace time passed.",
      "",
      "View on hcd:",
      cloakedUrl(c, SITE.siteRoot),
      "",
      "Details:",
      "--------",
      "Tags: prod",
      "Period: 1 day",
      "Total pings: 12 (since Dec 31, 2019)",
      "Last ping: a minute ago, from 10.1.2.3",
      "Last ping type: Started",
      "Status changed to down at: Wed, 01 Jan 2020 01:00:00 +0000",
      "",
      "Last Ping Body:",
      "---------------",
      "<b>log</b>",
      "",
      "--",
      "Regards, hcd",
      "",
    ].join("\n"),
  );
  assert.ok(delivery.html.includes('"Foo &amp; Bar" is DOWN (success signal did not arrive on time, grace time passed).'));
  assert.ok(delivery.html.includes("&lt;b&gt;log&lt;/b&gt;"));
  assert.not.ok(delivery.text.includes(c.uuid) || delivery.html.includes(c.uuid));
});

// ---- wording and addresses -----------------------------------------------------------------------

test("an entry with only what the notification shows of its check (and channel) renders exactly as one with the whole records", () => {
  const checks = [
    check({
      name: "Nightly *backup*",
      slug: "nightly",
      tags: "db prod",
      desc: "Runs at 2",
      status: "down",
      nPings: 12,
      createdAt: T0 - 9 * DAY,
    }),
    check({ name: "", kind: "cron", schedule: "*/5 * * * *", tz: "Europe/Riga", status: "up", nPings: 3 }),
  ];
  const channels = [
    channel(),
    channel({ kind: "slack", value: { kind: "slack", url: "https://hooks.slack.example/x" } }),
    channel({ kind: "discord", value: { kind: "discord", url: "https://discord.com/api/webhooks/1/t" } }),
    channel({ kind: "ntfy", value: { kind: "ntfy", spec: { url: "https://ntfy.example", topic: "t", priority_down: 5, priority_up: 3 } } }),
    webhook({
      method_down: "POST",
      url_down: "http://h.example/$CODE/$STATUS?n=$NAME&t=$TAG1",
      body_down: "$NAME_JSON $BODY $REMINDER",
      headers_down: { "X-Slug": "$SLUG" },
      url_up: "http://h.example/up/$CODE?e=$EXITSTATUS&now=$NOW",
    }),
  ];
  const flips: Partial<Flip>[] = [
    { at: T0, from: "up", to: "down", reason: "timeout" },
    { at: T0, from: "down", to: "up", reason: "" },
  ];
  let rendered = 0;
  for (const c of checks)
    for (const ch of channels)
      for (const f of flips)
        for (const reminder of [undefined, 2]) {
          const whole = {
            ...outboxEntry({
              check: c,
              channel: ch,
              flip: f,
              lastPing: ping({ kind: "fail", at: T0 - 5 * MINUTE, exitStatus: 2 }),
              extras: { lastPingBody: new TextEncoder().encode("log *line*"), projectName: "ops", downSinceAt: T0 - HOUR },
            }),
            ...(reminder === undefined || f.to === "up" ? {} : { reminder }),
          };
          const lean = { ...whole, check: noticeCheckOf(c), channel: noticeChannelOf(ch) };
          const want = render(whole, SITE);
          assert.equal(render(lean, SITE), want, `${ch.kind} ${f.to} ${c.kind} reminder ${reminder}`);
          if (want !== null) rendered++;
        }
  assert.is(rendered, 2 * 5 * 2 * 2, "every case renders a message (never null = null)");
});

test("a channel that sends the check's JSON is refused an entry without the whole check (never sends a partial JSON)", () => {
  const c = check({ name: "x", status: "down" });
  const json = channel({
    kind: "webhook",
    value: {
      kind: "webhook",
      json: true,
      spec: {
        method_down: "GET",
        url_down: "http://h.example/",
        body_down: "",
        headers_down: {},
        method_up: "GET",
        url_up: "",
        body_up: "",
        headers_up: {},
      },
    },
  });
  assert.ok(http(render(outboxEntry({ check: c, channel: json }), SITE)).body?.includes('"name": "x"'));
  assert.throws(() => render({ ...outboxEntry({ check: c, channel: json }), check: noticeCheckOf(c) }, SITE), /lacks the whole check/);
});

test("wording: periods, downtimes, relative times and ISO seconds", () => {
  assert.equal(
    [formatPeriod(86_400_000), formatPeriod(8 * 86_400_000), formatPeriod(14 * 86_400_000), formatPeriod(90 * MINUTE)],
    ["1 day", "8 days", "2 weeks", "1 hour 30 minutes"],
  );
  assert.equal(
    [formatDowntime(45_000), formatDowntime(61_000), formatDowntime(3 * 86_400_000 + 3_600_000)],
    ["45 seconds", "1 minute, 1 second", "3 days, 1 hour"],
  );
  assert.equal(
    [formatAgo(0, 0), formatAgo(0, 1000), formatAgo(0, 10 * MINUTE), formatAgo(0, 3_600_000), formatAgo(0, 9 * 86_400_000)],
    ["now", "a second ago", "10 minutes ago", "an hour ago", "1 week, 2 days ago"],
  );
  assert.is(isoSeconds(T0 + 999), "2020-01-01T01:00:00+00:00");
});

const addresses: [string, boolean][] = [
  ["127.0.0.1", true],
  ["10.0.0.1", true],
  ["172.16.5.4", true],
  ["192.168.1.1", true],
  ["169.254.169.254", true],
  ["0.0.0.0", true],
  ["100.64.0.1", true],
  ["240.0.0.1", true],
  ["::1", true],
  ["::", true],
  ["fd00::1", true],
  ["fe80::1%eth0", true],
  ["::ffff:127.0.0.1", true],
  ["2001:db8::1", true],
  ["8.8.8.8", false],
  ["2606:4700:4700::1111", false],
  ["not-an-ip", true],
];
for (const [address, want] of addresses) {
  test(`isPrivateAddress(${address}) is ${want}`, () => assert.is(isPrivateAddress(address), want));
}

test.run();
