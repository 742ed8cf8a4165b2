// What the dashboard says of each notification kind: its title and what to paste where (after the
// reference's integration pages), and for the first five kinds their form and the admin API's value it
// makes. The other kinds' fields are their notify/kinds/ module's (AppDeps.serviceKinds). A new kind is its
// module plus one entry here (the Record's type makes a missing entry a compile error).
import type { ChannelKind, ChannelValue, ServiceKind } from "../../engine/model.ts";
import type { KindFormField } from "../deps.ts";
import { valueText } from "../../lib/value-text.ts";

export type KindPage = {
  readonly title: string;
  /** What it sends and where each value comes from, in the provider's own words for its screens. */
  readonly intro: string;
};

/** The first five kinds' forms: their fields, the admin API's value those make, and a stored value as fields. */
export type OwnForm = {
  readonly fields: readonly KindFormField[];
  valueOf(fields: Readonly<Record<string, unknown>>): unknown;
  storedOf(value: ChannelValue): Record<string, string | number | null>;
};

export const KIND_PAGES: Readonly<Record<ChannelKind, KindPage>> = {
  email: { title: "Email", intro: "Sends an email to this address when a check goes down or up (and its reminders)." },
  webhook: {
    title: "Webhook",
    intro:
      "Makes an HTTP request to your URL when a check goes down, and another when it goes up. Leave a URL empty to send nothing for that event. Placeholders such as $NAME, $STATUS, $CODE, $NOW, $TAGS, $BODY and $JSON are replaced in the URL, body and header values.",
  },
  slack: {
    title: "Slack",
    intro:
      "In Slack, add the Incoming WebHooks app to your workspace (Apps → Incoming WebHooks → Add to Slack), pick the channel to post to, and copy the Webhook URL it shows (https://hooks.slack.com/services/…). Paste it here.",
  },
  discord: {
    title: "Discord",
    intro:
      "In Discord, open Server Settings → Integrations → Webhooks → New Webhook, pick the channel, then Copy Webhook URL and paste it here.",
  },
  ntfy: {
    title: "ntfy",
    intro:
      "Publishes to an ntfy topic: subscribe to the topic in the ntfy app. For a protected topic or server, create an access token (ntfy's Account page, or ntfy token add on its server) and paste it.",
  },
  telegram: {
    title: "Telegram",
    intro:
      "Add this server's bot to your group, or start a chat with it, then paste the chat's id (a number: a group's starts with -100; or @channelname for a public channel the bot posts to).",
  },
  msteamsw: {
    title: "Microsoft Teams",
    intro:
      'In Teams, open the channel\'s ⋯ menu → Workflows → "Post to a channel when a webhook request is received", finish the wizard, and copy the URL it gives. Paste it here.',
  },
  pd: {
    title: "PagerDuty",
    intro: "In PagerDuty, open Services → your service → Integrations → Add an integration → Events API V1, and copy its Integration Key.",
  },
  po: {
    title: "Pushover",
    intro:
      "Your User Key is on your Pushover dashboard (pushover.net, top right). Priority 2 (emergency) repeats every 5 minutes until acknowledged.",
  },
  gotify: {
    title: "Gotify",
    intro: "In your Gotify server's web UI, open Apps → Create Application and copy its token. Paste the server's address and the token.",
  },
  matrix: {
    title: "Matrix",
    intro:
      "Invite this server's Matrix account to the room, then paste the room's alias (#room:server) or id (!id:server, in Element: Room settings → Advanced). An alias is joined and turned into the room's id when you save.",
  },
  googlechat: {
    title: "Google Chat",
    intro: "In Google Chat, open the space's menu → Apps & integrations → Webhooks → Add webhook, name it, and copy the webhook URL.",
  },
  opsgenie: {
    title: "Opsgenie",
    intro:
      "In Opsgenie, open Teams → your team → Integrations → Add integration → API, and copy its API Key. Pick the region your account is in.",
  },
  mattermost: {
    title: "Mattermost",
    intro: "In Mattermost, open Main Menu → Integrations → Incoming Webhooks → Add Incoming Webhook, pick the channel, and copy the URL.",
  },
  rocketchat: {
    title: "Rocket.Chat",
    intro:
      "In Rocket.Chat, open Administration → Integrations → New → Incoming, enable it, pick the channel, save, and copy the Webhook URL.",
  },
  zulip: {
    title: "Zulip",
    intro:
      "In Zulip, open Personal settings → Bots → Add a new bot (Incoming webhook), then copy its email and API key from its zuliprc. Send to a stream and topic, or privately to user ids or emails.",
  },
  pushbullet: { title: "Pushbullet", intro: "In Pushbullet, open Settings → Account → Create Access Token, and paste the token." },
  victorops: {
    title: "Splunk On-Call",
    intro:
      "In Splunk On-Call (VictorOps), open Integrations → REST Generic, copy the REST endpoint URL, and replace $routing_key at its end with your routing key.",
  },
  pagertree: { title: "PagerTree", intro: "In PagerTree, create an integration of type Healthchecks.io (or Webhook) and copy its URL." },
  spike: {
    title: "Spike.sh",
    intro: "In Spike.sh, open Integrations → Add integration → Healthchecks.io (or Webhook) and copy its webhook URL.",
  },
  shell: {
    title: "Shell command",
    intro:
      "Runs a command on this server when a check goes down or up (only the operator adds these). The command is run as written, without a shell of its own; the check's facts are environment variables: NAME, CODE, STATUS, NOW, SLUG, TAGS, TAG1…. Read them in a script, e.g. /bin/sh -c 'notify \"$NAME is $STATUS\"'.",
  },
  github: {
    title: "GitHub",
    intro:
      "Opens an issue in the repository when a check goes down. Create a fine-grained personal access token (Settings → Developer settings → Personal access tokens) allowed to read and write the repository's issues, and paste it.",
  },
  trello: {
    title: "Trello",
    intro:
      "Adds a card to a list when a check goes down. Get a token for this server's Trello app key (trello.com/1/authorize), and the list's id (open a card of the list, add .json to its URL, and copy idList).",
  },
  sms: {
    title: "SMS",
    intro:
      "Sends a text message through this server's Twilio account. Give the number in international form, starting with + and the country code.",
  },
  whatsapp: {
    title: "WhatsApp",
    intro:
      "Sends a WhatsApp message (the server's approved templates) through this server's Twilio account. Give the number in international form, starting with + and the country code.",
  },
  call: {
    title: "Phone call",
    intro:
      "Calls the number through this server's Twilio account when a check goes down and reads the alert out. Give the number in international form.",
  },
  apprise: {
    title: "Apprise",
    intro:
      "Sends through Apprise (only the operator adds these): paste one Apprise URL, e.g. tgram://bottoken/ChatID or mailto://user:pass@example.com (see Apprise's wiki for every service).",
  },
  group: {
    title: "Group",
    intro: "Sends each notification to several integrations of this project at once: pick them below (a group cannot contain a group).",
  },
  alertmanager: {
    title: "Prometheus Alertmanager",
    intro:
      "Sends each check that goes down to your Alertmanager as a firing alert (alertname CheckDown, with the check's name, id and project as labels) and resolves it when the check is up again, so Alertmanager's routes, grouping and silences apply. Paste Alertmanager's address; hcd posts to its /api/v2/alerts.",
  },
  signal: {
    title: "Signal",
    intro:
      "Sends a Signal message from this server's signal-cli account. Give the recipient's phone number in international form, or their Signal username (name.01). They receive it from this server's number.",
  },
};

const PRIORITIES: readonly (readonly [string, string])[] = [
  ["5", "5: max"],
  ["4", "4: high"],
  ["3", "3: default"],
  ["2", "2: low"],
  ["1", "1: min"],
  ["0", "0: send nothing"],
];
const METHODS: readonly (readonly [string, string])[] = [
  ["POST", "POST"],
  ["GET", "GET"],
  ["PUT", "PUT"],
];

/** "Name: value" lines ↔ a headers object. */
function headersOf(text: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of valueText(text).split("\n")) {
    const at = line.indexOf(":");
    if (line.trim() !== "") headers[at < 0 ? line.trim() : line.slice(0, at).trim()] = at < 0 ? "" : line.slice(at + 1).trim();
  }
  return headers;
}

const text = valueText;

const urlForm = (label: string): OwnForm => ({
  fields: [{ name: "url", label, input: "secret", required: true, target: true, hint: "kept secret: it holds the webhook's token" }],
  valueOf: (f) => text(f.url),
  storedOf: (value): Record<string, string> => ("url" in value ? { url: value.url } : {}), // kept server-side for an edit that leaves it empty; never shown
});

function webhookSide(direction: "down" | "up"): KindFormField[] {
  const when = direction === "down" ? "down" : "up";
  return [
    { name: `url_${direction}`, label: `URL when ${when}`, input: "secret", required: false, target: true, hint: "empty: no request" },
    { name: `method_${direction}`, label: `Method when ${when}`, input: "select", required: false, options: METHODS },
    { name: `body_${direction}`, label: `Body when ${when}`, input: "textarea", required: false },
    {
      name: `headers_${direction}`,
      label: `Headers when ${when}`,
      input: "secret",
      required: false,
      hint: 'one "Name: value" per line; kept secret (they may hold a token)',
    },
  ];
}

/** The first five kinds' own forms. */
export const OWN_FORMS: Readonly<Record<Exclude<ChannelKind, ServiceKind>, OwnForm>> = {
  email: {
    fields: [{ name: "address", label: "Email address", input: "text", required: true, target: true, hint: "oncall@example.com" }],
    valueOf: (f) => text(f.address),
    storedOf: (value): Record<string, string> => (value.kind === "email" ? { address: value.address } : {}),
  },
  slack: urlForm("Webhook URL"),
  discord: urlForm("Webhook URL"),
  ntfy: {
    fields: [
      { name: "url", label: "Server", input: "text", required: true, target: true, hint: "https://ntfy.sh, or your own server" },
      { name: "topic", label: "Topic", input: "text", required: true, target: true },
      { name: "token", label: "Access token", input: "secret", required: false, hint: "for a protected topic (tk_…)" },
      { name: "priority_down", label: "Priority when down", input: "select", required: false, options: PRIORITIES, initial: "3" },
      { name: "priority_up", label: "Priority when up", input: "select", required: false, options: PRIORITIES, initial: "3" },
    ],
    valueOf: (f) => ({
      url: text(f.url) || "https://ntfy.sh",
      topic: text(f.topic),
      ...(text(f.token) === "" ? {} : { token: text(f.token) }),
      priority_down: Number(f.priority_down ?? 3),
      priority_up: Number(f.priority_up ?? 3),
    }),
    storedOf: (value) =>
      value.kind === "ntfy"
        ? {
            url: value.spec.url,
            topic: value.spec.topic,
            priority_down: value.spec.priority_down,
            priority_up: value.spec.priority_up,
            ...(value.spec.token === undefined ? {} : { token: value.spec.token }),
          }
        : {},
  },
  webhook: {
    fields: [...webhookSide("down"), ...webhookSide("up")],
    valueOf: (f) => ({
      url_down: text(f.url_down),
      method_down: text(f.method_down) || "POST",
      body_down: text(f.body_down),
      headers_down: headersOf(f.headers_down),
      url_up: text(f.url_up),
      method_up: text(f.method_up) || "POST",
      body_up: text(f.body_up),
      headers_up: headersOf(f.headers_up),
    }),
    storedOf(value): Record<string, string> {
      if (value.kind !== "webhook") return {};
      const { spec } = value;
      const lines = (headers: Readonly<Record<string, string>>) =>
        Object.entries(headers)
          .map(([k, v]) => `${k}: ${v}`)
          .join("\n");
      // a URL-only webhook (POST the check's JSON) shows as its down URL with POST and the $JSON body
      return value.json
        ? {
            url_down: spec.url_down || spec.url_up,
            method_down: "POST",
            body_down: "$JSON",
            headers_down: "Content-Type: application/json",
            url_up: spec.url_up || spec.url_down,
            method_up: "POST",
            body_up: "$JSON",
            headers_up: "Content-Type: application/json",
          }
        : {
            url_down: spec.url_down,
            method_down: spec.method_down,
            body_down: spec.body_down,
            headers_down: lines(spec.headers_down),
            url_up: spec.url_up,
            method_up: spec.method_up,
            body_up: spec.body_up,
            headers_up: lines(spec.headers_up),
          };
    },
  },
};
