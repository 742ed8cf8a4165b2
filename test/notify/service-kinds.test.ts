// Each kind of notify/kinds/ against a real local receiver: the request its provider documents (method,
// path, headers, body fields) for a down, an up and a reminder, delivered by a real Deliverer and store.
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { ServiceKind } from "../../engine/model.ts";
import type { Captured } from "./receivers.ts";
import { httpReceiver } from "./receivers.ts";
import type { Direction } from "./service-kinds-fixture.ts";
import {
  BOT_TOKEN,
  closeOutboxes,
  DOWNTIME_LINE,
  delivererOf,
  entryOf,
  LINK,
  MATRIX_TOKEN,
  PUSHOVER_TOKEN,
  REASON,
  REMINDER_AT,
  REMINDER_LINE,
  serviceChannel,
  settingsAt,
  TRELLO_KEY,
  TWILIO_AUTH,
  UNIQUE_KEY,
} from "./service-kinds-fixture.ts";
import { parseServiceValue } from "../../notify/kinds/service.ts";

test.after.each(closeOutboxes);

type Case = {
  kind: ServiceKind;
  value: (base: string) => unknown;
  expect: (direction: Direction, requests: Captured[], base: string) => void;
};

const json = (request: Captured | undefined) => JSON.parse(request?.body ?? "null");
const form = (request: Captured | undefined) => Object.fromEntries(new URLSearchParams(request?.body ?? ""));
function one(requests: Captured[], method: string, path: string, contentType = "application/json"): Captured {
  assert.is(requests.length, 1, `one request to ${path}`);
  assert.equal([requests[0].method, requests[0].path, requests[0].headers["content-type"]], [method, path, contentType]);
  return requests[0];
}

const CASES: Case[] = [
  {
    kind: "telegram",
    value: () => ({ chat_id: "-100123" }),
    expect(direction, requests) {
      const body = json(one(requests, "POST", `/tg/bot${BOT_TOKEN}/sendMessage`));
      assert.equal([body.chat_id, body.message_thread_id, body.parse_mode], [-100123, null, "html"]);
      if (direction === "down") {
        assert.is(
          body.text,
          `🔴 The check <a href="${LINK}">Backup</a> is <b>DOWN</b> (${REASON}).\n\n<b>Project:</b> Ops\n` +
            "<b>Period:</b> 1 day\n<b>Total Pings:</b> 7\n<b>Last Ping:</b> Success, 5 minutes ago",
        );
      } else if (direction === "up") {
        assert.ok(body.text.startsWith(`🟢 The check <a href="${LINK}">Backup</a> is now <b>UP</b>.\n${DOWNTIME_LINE}\n\n`), body.text);
      } else {
        assert.ok(body.text.startsWith(`🔴 The check <a href="${LINK}">Backup</a> is still <b>DOWN</b>.\n${REMINDER_LINE}\n\n`), body.text);
      }
    },
  },
  {
    kind: "msteamsw",
    value: (base) => `${base}/teams/workflow`,
    expect(direction, requests) {
      const body = json(one(requests, "POST", "/teams/workflow"));
      assert.is(body.type, "message");
      const card = body.attachments[0];
      assert.is(card.contentType, "application/vnd.microsoft.card.adaptive");
      assert.equal(
        [card.content.type, card.content.version, card.content.actions[0]],
        ["AdaptiveCard", "1.2", { type: "Action.OpenUrl", title: "View in hcd", url: LINK }],
      );
      const heading = card.content.body[0].text;
      const facts = card.content.body.find((block: { type: string }) => block.type === "FactSet").facts;
      assert.equal(facts[0], { title: "Project:", value: "Ops" });
      assert.equal(facts.at(-1), { title: "Last Ping:", value: direction === "down" ? "Success, 5 minutes ago" : facts.at(-1).value });
      if (direction === "down") assert.is(heading, `🔴 \u201cBackup\u201d is DOWN (${REASON}).`);
      if (direction === "up") assert.equal([heading, card.content.body[1].text], ["🟢 \u201cBackup\u201d is UP.", DOWNTIME_LINE]);
      if (direction === "reminder")
        assert.equal([heading, card.content.body[1].text], ["🔴 \u201cBackup\u201d is still DOWN.", REMINDER_LINE]);
    },
  },
  {
    kind: "pd",
    value: () => ({ service_key: "pd-service-key-secret" }),
    expect(direction, requests) {
      const body = json(one(requests, "POST", "/pd/create_event.json"));
      assert.equal(
        [body.service_key, body.incident_key, body.client, body.client_url],
        ["pd-service-key-secret", UNIQUE_KEY, "hcd", "http://hcd.test/checks/5c3e8a1e-0000-4000-8000-000000000001/details/"],
      );
      assert.equal([body.details.Project, body.details["Total pings"], body.details.Period], ["Ops", 7, "1 day"]);
      const expected = {
        down: ["trigger", `Backup is DOWN (${REASON}).`],
        up: ["resolve", "Backup received a ping and is now UP"],
        reminder: ["trigger", "Backup is still DOWN."],
      }[direction];
      assert.equal([body.event_type, body.description], expected);
    },
  },
  {
    kind: "po",
    value: () => ({ user_key: "po-user-key-secret", priority: 2, priority_up: 0 }),
    expect(direction, requests) {
      if (direction === "up") {
        // an emergency's repeats are cancelled before the up is sent
        assert.equal(
          requests.map((r) => r.path),
          [`/po/1/receipts/cancel_by_tag/${UNIQUE_KEY}.json`, "/po/1/messages.json"],
        );
        assert.equal(form(requests[0]), { token: PUSHOVER_TOKEN });
        requests = requests.slice(1);
      }
      const body = form(one(requests, "POST", "/po/1/messages.json", "application/x-www-form-urlencoded"));
      assert.equal(
        [body.token, body.user, body.html, body.tags, body.url, body.url_title],
        [PUSHOVER_TOKEN, "po-user-key-secret", "1", UNIQUE_KEY, LINK, "View on hcd"],
      );
      const expected = {
        down: ["2", "🔴 Backup is DOWN", `Reason: ${REASON}.`],
        up: ["0", "🟢 Backup is UP", DOWNTIME_LINE],
        reminder: ["2", "🔴 Backup is still DOWN", REMINDER_LINE],
      }[direction];
      assert.equal([body.priority, body.title, body.message.split("\n")[0]], expected);
      assert.ok(body.message.includes("\n<b>Project:</b> Ops\n"), body.message);
      assert.equal([body.retry, body.expire], direction === "up" ? [undefined, undefined] : ["300", "86400"]);
    },
  },
  {
    kind: "gotify",
    value: (base) => ({ url: `${base}/gotify/`, token: "gotify-app-token", priority: 8, priority_up: 3 }),
    expect(direction, requests) {
      const request = one(requests, "POST", "/gotify/message");
      assert.is(request.headers["x-gotify-key"], "gotify-app-token");
      const body = json(request);
      assert.equal(body.extras["client::display"], { contentType: "text/markdown" });
      const expected = {
        down: [8, "Backup is DOWN", `🔴 The check [Backup](${LINK}) is **DOWN** (${REASON}).`],
        up: [3, "Backup is UP", `🟢 The check [Backup](${LINK}) is now **UP**.`],
        reminder: [8, "Backup is still DOWN", `🔴 The check [Backup](${LINK}) is still **DOWN**.`],
      }[direction];
      assert.equal([body.priority, body.title, body.message.split("\n")[0]], expected);
      if (direction === "reminder") assert.ok(body.message.includes(`\n\n${REMINDER_LINE}\n`), body.message);
    },
  },
  {
    kind: "matrix",
    value: () => ({ room_id: "!room:example.org" }),
    expect(direction, requests) {
      assert.is(requests.length, 1);
      const [request] = requests;
      assert.is(request.method, "PUT");
      assert.match(request.path, /^\/mx\/_matrix\/client\/v3\/rooms\/!room%3Aexample\.org\/send\/m\.room\.message\/[0-9a-f]{40}$/);
      assert.is(request.headers.authorization, `Bearer ${MATRIX_TOKEN}`);
      const body = json(request);
      assert.equal([body.msgtype, body.format], ["m.text", "org.matrix.custom.html"]);
      const expected = {
        down: `Backup is DOWN (${REASON}). ${LINK}`,
        up: `Backup is UP. ${DOWNTIME_LINE} ${LINK}`,
        reminder: `Backup is still DOWN. ${REMINDER_LINE} ${LINK}`,
      }[direction];
      assert.is(body.body, expected);
      assert.ok(body.formatted_body.includes(`<a href="${LINK}">Backup</a>`), body.formatted_body);
    },
  },
  {
    kind: "googlechat",
    value: (base) => ({ url: `${base}/chat/v1/spaces/x/messages?key=k` }),
    expect(direction, requests) {
      const body = json(one(requests, "POST", "/chat/v1/spaces/x/messages?key=k"));
      const widgets = body.cardsV2[0].card.sections[0].widgets;
      const expected = {
        down: `🔴 The check <b>Backup</b> is <b>DOWN</b>.\nReason: ${REASON}.`,
        up: `🟢 The check <b>Backup</b> is now <b>UP</b>.\n${DOWNTIME_LINE}`,
        reminder: `🔴 The check <b>Backup</b> is still <b>DOWN</b>.\n${REMINDER_LINE}`,
      }[direction];
      assert.is(widgets[0].textParagraph.text, expected);
      assert.equal(widgets[1], { decoratedText: { topLabel: "Project", text: "Ops" } });
      assert.is(widgets.at(-1).buttonList.buttons[0].onClick.openLink.url, LINK);
    },
  },
  {
    kind: "opsgenie",
    value: () => ({ key: "opsgenie-key-secret", region: "eu" }),
    expect(direction, requests) {
      const request =
        direction === "up"
          ? one(requests, "POST", `/og/v2/alerts/${UNIQUE_KEY}/close?identifierType=alias`)
          : one(requests, "POST", "/og/v2/alerts");
      assert.is(request.headers.authorization, "GenieKey opsgenie-key-secret");
      const body = json(request);
      assert.equal([body.alias, body.source], [UNIQUE_KEY, "hcd"]);
      if (direction === "up") return assert.is(body.message, undefined);
      assert.is(body.message, direction === "down" ? `The check "Backup" is DOWN (${REASON}).` : 'The check "Backup" is still DOWN.');
      assert.equal([body.details.Project, body.details["Full details"], body.details["Total pings"]], ["Ops", LINK, 7]);
    },
  },
  {
    kind: "mattermost",
    value: (base) => ({ url: `${base}/hooks/mm` }),
    expect(direction, requests) {
      const body = json(one(requests, "POST", "/hooks/mm"));
      const attachment = body.attachments[0];
      const expected = {
        down: ["danger", "\u201cBackup\u201d is DOWN.", `Reason: ${REASON}.`],
        up: ["good", "\u201cBackup\u201d is UP.", DOWNTIME_LINE],
        reminder: ["danger", "\u201cBackup\u201d is still DOWN.", REMINDER_LINE],
      }[direction];
      assert.equal([attachment.color, attachment.title, attachment.text], expected);
      assert.equal(
        [body.username, attachment.title_link, attachment.fields[0]],
        ["hcd", LINK, { title: "Project", value: "Ops", short: true }],
      );
    },
  },
  {
    kind: "rocketchat",
    value: (base) => `${base}/hooks/rc/token`,
    expect(direction, requests) {
      const body = json(one(requests, "POST", "/hooks/rc/token"));
      const expected = {
        down: ["#d9534f", `[Backup](${LINK}) is DOWN (${REASON}).`],
        up: ["#5cb85c", `[Backup](${LINK}) is UP.\n${DOWNTIME_LINE}`],
        reminder: ["#d9534f", `[Backup](${LINK}) is still DOWN.\n${REMINDER_LINE}`],
      }[direction];
      assert.equal([body.attachments[0].color, body.text], expected);
      assert.equal([body.alias, body.attachments[0].fields[1]], ["hcd", { title: "Period", value: "1 day", short: true }]);
    },
  },
  {
    kind: "zulip",
    value: (base) => ({ bot_email: "bot@org.example", api_key: "zulip-api-key", site: base, mtype: "private", to: "42" }),
    expect(direction, requests) {
      const request = one(requests, "POST", "/api/v1/messages", "application/x-www-form-urlencoded");
      assert.is(request.headers.authorization, `Basic ${Buffer.from("bot@org.example:zulip-api-key").toString("base64")}`);
      const body = form(request);
      const expected = {
        down: ["Backup is DOWN", `[Backup](${LINK}) is **DOWN** (${REASON}).`],
        up: ["Backup is UP", `[Backup](${LINK}) is **UP**.\n${DOWNTIME_LINE}`],
        reminder: ["Backup is still DOWN", `[Backup](${LINK}) is still **DOWN**.\n${REMINDER_LINE}`],
      }[direction];
      assert.equal([body.type, body.to, body.topic, body.content], ["private", "[42]", ...expected]);
    },
  },
  {
    kind: "pushbullet",
    value: () => ({ token: "pushbullet-access-token" }),
    expect(direction, requests) {
      const request = one(requests, "POST", "/pb/v2/pushes");
      assert.is(request.headers["access-token"], "pushbullet-access-token");
      const body = json(request);
      const expected = {
        down: `The check "Backup" is DOWN (${REASON}).\n${LINK}`,
        up: `The check "Backup" is UP.\n${DOWNTIME_LINE}\n${LINK}`,
        reminder: `The check "Backup" is still DOWN.\n${REMINDER_LINE}\n${LINK}`,
      }[direction];
      assert.equal([body.type, body.title, body.body], ["note", "hcd", expected]);
    },
  },
  {
    kind: "victorops",
    value: (base) => `${base}/integrations/generic/20131114/alert/key/route`,
    expect(direction, requests) {
      const body = json(one(requests, "POST", "/integrations/generic/20131114/alert/key/route"));
      const expected = {
        down: ["CRITICAL", `Backup is DOWN (${REASON}).`],
        up: ["RECOVERY", "Backup is UP."],
        reminder: ["CRITICAL", "Backup is still DOWN."],
      }[direction];
      assert.equal([body.message_type, body.state_message], expected);
      assert.equal([body.entity_id, body.entity_display_name, body.monitoring_tool], [UNIQUE_KEY, "Backup", "hcd"]);
    },
  },
  {
    kind: "pagertree",
    value: (base) => `${base}/integration/int_x`,
    expect(direction, requests) {
      const body = json(one(requests, "POST", "/integration/int_x"));
      const expected = {
        down: ["trigger", `Backup is DOWN (${REASON})`, `Backup is DOWN (${REASON}).\nLast ping was 5 minutes ago.`],
        up: ["resolve", "Backup is UP", "Backup is UP."],
        reminder: ["trigger", "Backup is still DOWN", "Backup is still DOWN.\nLast ping was 2 hours ago."],
      }[direction];
      assert.equal([body.event_type, body.title, body.description], expected);
      assert.equal([body.incident_key, body.client, body.client_url], [UNIQUE_KEY, "hcd", LINK]);
    },
  },
  {
    kind: "spike",
    value: (base) => ({ url: `${base}/api/v1/integrations/webhook/x` }),
    expect(direction, requests) {
      const body = json(one(requests, "POST", "/api/v1/integrations/webhook/x"));
      const expected = {
        down: ["down", `Backup is DOWN (${REASON})`],
        up: ["up", "Backup is UP"],
        reminder: ["down", "Backup is still DOWN"],
      }[direction];
      assert.equal([body.status, body.title, body.check_id], [...expected, UNIQUE_KEY]);
    },
  },
  {
    kind: "sms",
    value: () => ({ phone: "+15551234567", notify_up: false }),
    expect(direction, requests) {
      if (direction === "up") return assert.equal(requests, [], "notify_up false: nothing");
      const request = one(requests, "POST", "/tw/2010-04-01/Accounts/AC123/Messages.json", "application/x-www-form-urlencoded");
      assert.is(request.headers.authorization, `Basic ${Buffer.from(`AC123:${TWILIO_AUTH}`).toString("base64")}`);
      const expected = {
        down: `hcd: The check "Backup" is DOWN (${REASON}).`,
        reminder: `hcd: The check "Backup" is still DOWN. ${REMINDER_LINE}`,
      }[direction];
      assert.equal(form(request), { To: "+15551234567", From: "+15550001111", Body: expected });
    },
  },
  {
    kind: "whatsapp",
    value: () => "+15551234567",
    expect(direction, requests) {
      const request = one(requests, "POST", "/tw/2010-04-01/Accounts/AC123/Messages.json", "application/x-www-form-urlencoded");
      assert.is(request.headers.authorization, `Basic ${Buffer.from(`AC123:${TWILIO_AUTH}`).toString("base64")}`);
      // the reference's request: an approved template (Content API) through the Messaging Service, the name its one variable
      const template = direction === "up" ? "HXup000123456789abcdef0123456789ab" : "HXdown0123456789abcdef0123456789ab";
      assert.equal(form(request), {
        To: "whatsapp:+15551234567",
        From: "whatsapp:+15550001111",
        MessagingServiceSid: "MG0123456789abcdef0123456789abcdef",
        ContentSid: template,
        ContentVariables: '{"1": "Backup"}',
      });
    },
  },
  {
    kind: "call",
    value: () => ({ phone: "+15551234567" }),
    expect(direction, requests) {
      if (direction === "up") return assert.equal(requests, [], "no call for an up");
      const body = form(one(requests, "POST", "/tw/2010-04-01/Accounts/AC123/Calls.json", "application/x-www-form-urlencoded"));
      const said = direction === "down" ? "is down." : "is still down.";
      assert.equal(body, {
        To: "+15551234567",
        From: "+15550001111",
        Twiml: `<Response><Say>Hello! A message from hcd: The check &quot;Backup&quot; ${said}</Say></Response>`,
      });
    },
  },
  {
    kind: "github",
    value: () => ({ repo: "acme/ops", token: "github-token-secret", labels: "bug, monitoring" }),
    expect(direction, requests) {
      if (direction !== "down") return assert.equal(requests, [], `no issue for ${direction}`);
      const request = one(requests, "POST", "/gh/repos/acme/ops/issues");
      assert.equal(
        [request.headers.authorization, request.headers.accept, request.headers["x-github-api-version"]],
        ["Bearer github-token-secret", "application/vnd.github+json", "2022-11-28"],
      );
      const body = json(request);
      assert.equal([body.title, body.labels], ["Backup is DOWN", ["bug", "monitoring"]]);
      assert.is(
        body.body,
        `The check [Backup](${LINK}) is **DOWN** (${REASON}).\n\n**Project:** Ops\n**Period:** 1 day\n` +
          "**Total Pings:** 7\n**Last Ping:** Success, 5 minutes ago",
      );
    },
  },
  {
    kind: "trello",
    value: () => ({ list_id: "0123456789abcdef01234567", token: "trello-token-secret" }),
    expect(direction, requests) {
      if (direction !== "down") return assert.equal(requests, [], `no card for ${direction}`);
      const request = one(requests, "POST", "/tr/1/cards");
      assert.is(request.headers.authorization, `OAuth oauth_consumer_key="${TRELLO_KEY}", oauth_token="trello-token-secret"`);
      assert.equal(json(request), {
        idList: "0123456789abcdef01234567",
        name: "Down: Backup",
        desc: `**Period:** 1 day\n\n**Last Ping:** 5 minutes ago\n\n[Full Details @ hcd](${LINK})`,
      });
    },
  },
];

for (const c of CASES) {
  test(`${c.kind}: down, up and reminder reach the receiver as the provider documents them`, async () => {
    const rx = await httpReceiver();
    try {
      const ch = serviceChannel(c.kind, c.value(rx.url));
      for (const direction of ["down", "up", "reminder"] as const) {
        const { outbox, deliverer } = await delivererOf([entryOf(ch, direction)], rx.url);
        const before = rx.requests.length;
        await deliverer.deliverDue(REMINDER_AT);
        assert.equal(outbox.all(), [], `${direction}: delivered and gone from the outbox`);
        c.expect(direction, rx.requests.slice(before), rx.url);
      }
    } finally {
      await rx.close();
    }
  });
}

test("whatsapp is offered only with TWILIO_USE_WHATSAPP and its Messaging Service and templates, as the reference's", () => {
  const full = settingsAt("http://127.0.0.1:9");
  for (const [settings, reason] of [
    [{ ...full, twilioUseWhatsapp: false }, "whatsapp notifications are off on this server (TWILIO_USE_WHATSAPP)"],
    [{ ...full, whatsappUpContentSid: null }, "whatsapp notifications are off on this server (WHATSAPP_UP_CONTENT_SID is not set)"],
    [
      { ...full, twilioMessagingServiceSid: null },
      "whatsapp notifications are off on this server (TWILIO_MESSAGING_SERVICE_SID is not set)",
    ],
  ] as const) {
    assert.equal(parseServiceValue("whatsapp", "+15551234567", settings), {
      ok: false,
      failure: { code: "invalid", field: "kind", reason },
    });
  }
  assert.ok(parseServiceValue("whatsapp", "+15551234567", full).ok);
});

test.run();
