// Healthchecks' stored integration values, each kind in the form its hc/integrations views store (v3.13),
// mapped by app/import/channel-values.ts and then taken by hcd's own admin validation (http/admin-input.ts)
// on a server that offers every kind: what hcd keeps is what the reference sent to.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { channelValueOf } from "../../app/import/channel-values.ts";
import { channelInputOf } from "../../http/admin-input.ts";
import { serviceKindsOf } from "../../notify/kinds/service.ts";
import { serviceSettingsOf } from "../../notify/kinds/settings.ts";

const ENV: Record<string, string> = {
  TELEGRAM_BOT_TOKEN: "1:t",
  PUSHOVER_API_TOKEN: "p",
  MATRIX_HOMESERVER: "https://matrix.example.org",
  MATRIX_ACCESS_TOKEN: "m",
  TWILIO_ACCOUNT: "AC1",
  TWILIO_AUTH: "a",
  TWILIO_FROM: "+15550000000",
  TRELLO_APP_KEY: "k",
  SHELL_ENABLED: "true",
  APPRISE_ENABLED: "true",
};
const kinds = serviceKindsOf(serviceSettingsOf((name) => ENV[name]).settings);

/** The value hcd keeps for a stored value of `kind` (through its admin validation); throws when it is refused. */
function kept(kind: string, stored: string): unknown {
  const mapped = channelValueOf(kind, stored);
  if ("skip" in mapped) throw new Error(`skipped: ${mapped.skip}`);
  const input = channelInputOf({ kind, name: "x", value: mapped.value }, kinds);
  if (!input.ok) throw new Error(`refused: ${JSON.stringify(input.failure)}`);
  return input.value.value;
}

test("each kind's stored value becomes the value hcd sends to", () => {
  const json = JSON.stringify;
  assert.equal(kept("email", "alice@example.org"), { kind: "email", address: "alice@example.org" });
  assert.equal(kept("email", json({ value: "ops@example.org", up: true, down: true })), { kind: "email", address: "ops@example.org" });
  assert.equal(kept("slack", "https://hooks.slack.com/services/T/B/x"), { kind: "slack", url: "https://hooks.slack.com/services/T/B/x" });
  assert.equal(
    kept("slack", json({ team_name: "Acme", incoming_webhook: { url: "https://hooks.slack.com/services/T/B/y", channel: "#ops" } })),
    { kind: "slack", url: "https://hooks.slack.com/services/T/B/y" },
  );
  assert.equal(kept("discord", json({ webhook: { url: "https://discordapp.com/api/webhooks/1/abc" } })), {
    kind: "discord",
    url: "https://discord.com/api/webhooks/1/abc",
  });
  assert.equal(kept("ntfy", json({ topic: "alerts", url: "https://ntfy.sh", priority: 5, priority_up: 3, token: "" })), {
    kind: "ntfy",
    spec: { url: "https://ntfy.sh", topic: "alerts", priority_down: 5, priority_up: 3 },
  });
  assert.equal(
    kept(
      "webhook",
      json({
        name: "hook",
        method_down: "POST",
        url_down: "https://x.example/down?c=$CODE",
        body_down: "$NAME",
        headers_down: { "X-Token": "s" },
        method_up: "GET",
        url_up: "",
        body_up: "",
        headers_up: {},
      }),
    ),
    {
      kind: "webhook",
      json: false,
      spec: {
        method_down: "POST",
        url_down: "https://x.example/down?c=$CODE",
        body_down: "$NAME",
        headers_down: { "X-Token": "s" },
        method_up: "GET",
        url_up: "",
        body_up: "",
        headers_up: {},
      },
    },
  );
  assert.equal(kept("telegram", json({ id: -1001234567890, type: "supergroup", name: "Ops", thread_id: 7 })), {
    kind: "telegram",
    fields: { chat_id: -1001234567890, thread_id: 7 },
  });
  assert.equal(kept("pd", "abc123servicekey"), { kind: "pd", fields: { service_key: "abc123servicekey" } });
  assert.equal(kept("pd", json({ service_key: "fromoauth", account: "acme" })), { kind: "pd", fields: { service_key: "fromoauth" } });
  assert.equal(kept("po", "uQiRzpo4DXghDmr9QzzfQu27cmVRsG|2|-1"), {
    kind: "po",
    fields: { user_key: "uQiRzpo4DXghDmr9QzzfQu27cmVRsG", priority: 2, priority_up: -1 },
  });
  assert.equal(
    kept("po", "uQiRzpo4DXghDmr9QzzfQu27cmVRsG|0"),
    { kind: "po", fields: { user_key: "uQiRzpo4DXghDmr9QzzfQu27cmVRsG", priority: 0, priority_up: 0 } },
    "older: one priority",
  );
  assert.equal(kept("sms", json({ value: "+15551234567", up: false, down: true })), {
    kind: "sms",
    fields: { phone: "+15551234567", notify_down: 1, notify_up: 0 },
  });
  assert.equal(kept("call", json({ value: "+15551234567" })), { kind: "call", fields: { phone: "+15551234567" } });
  assert.equal(kept("opsgenie", json({ key: "k-1", region: "eu" })), { kind: "opsgenie", fields: { key: "k-1", region: "eu" } });
  assert.equal(kept("matrix", "!room:example.org"), { kind: "matrix", fields: { room_id: "!room:example.org" } });
  // Healthchecks runs it in a shell with the name quoted into it; hcd runs it in /bin/sh -c with the name a quoted variable
  assert.equal(kept("shell", json({ cmd_down: "/usr/local/bin/page $NAME 'a b'", cmd_up: "" })), {
    kind: "shell",
    fields: { cmd_down: String.raw`/bin/sh -c '/usr/local/bin/page "$NAME" '\''a b'\'''`, cmd_up: "" },
  });
  assert.equal(kept("mattermost", "https://mm.example.org/hooks/abc"), {
    kind: "mattermost",
    fields: { url: "https://mm.example.org/hooks/abc" },
  });
  assert.equal(kept("group", "2223ad7d40714377a4c88f7eec2a8c18,4d9073a3-82f6-4989-8ccf-ddd7c55f0569"), {
    kind: "group",
    fields: { channels: "2223ad7d-4071-4377-a4c8-8f7eec2a8c18,4d9073a3-82f6-4989-8ccf-ddd7c55f0569" },
  });
});

test("deleted kinds are skipped with their reason; unreadable values and GitHub's app installation become stubs, saying why", () => {
  assert.match(
    String((channelValueOf("msteams", "https://outlook.office.com/webhook/x") as { skip: string }).skip),
    /Office 365 connectors/,
  );
  assert.match(String((channelValueOf("linenotify", "token") as { skip: string }).skip), /LINE Notify shut down/);
  const broken = channelValueOf("webhook", "{not json");
  assert.equal(broken, { notes: ["its stored value could not be read: it needs its settings given again"] });
  const github = channelValueOf("github", JSON.stringify({ installation_id: 1, repo: "acme/ops", labels: [] }));
  assert.ok(!("skip" in github) && github.value === undefined);
  assert.match(String(!("skip" in github) ? github.notes[0] : ""), /GitHub App installation/);
  const downOnly = channelValueOf("email", JSON.stringify({ value: "ops@example.org", up: false, down: true }));
  assert.match(String(!("skip" in downOnly) ? downOnly.notes[0] : ""), /"no up notifications" choice is not kept/);
});

test.run();
