// A Healthchecks integration's stored value (api_channel.value: a bare string or JSON, per kind, as its
// hc/integrations/<kind> views store it, v3.13) → the value hcd's admin API takes for the same kind. hcd
// checks every value again when it is added; what it refuses becomes a stub that needs its settings.

/** The kinds the reference removed, which nothing can send to any more: never brought over. */
export const REMOVED_KINDS: Readonly<Record<string, string>> = {
  msteams: "Microsoft retired Office 365 connectors; Healthchecks deleted these integrations (use msteamsw, a Workflows webhook)",
  linenotify: "LINE Notify shut down in 2025; Healthchecks deleted these integrations",
  hipchat: "HipChat shut down in 2019; Healthchecks deleted these integrations",
  pagerteam: "Pager Team shut down; Healthchecks deleted these integrations",
};

/** An integration's hcd value (undefined: a stub needing its settings) with what is not kept; or why it is not brought over. */
export type ChannelMapping = { readonly value?: unknown; readonly notes: readonly string[] } | { readonly skip: string };

/** The kinds whose stored value is one URL, taken by hcd's kind of the same name as a string. */
const URL_KINDS = new Set(["victorops", "pagertree", "spike", "msteamsw", "googlechat", "rocketchat", "mattermost"]);

/** Maps kind and stored value; a value that does not read as its kind's is a stub with a note saying so. */
export function channelValueOf(kind: string, stored: string): ChannelMapping {
  if (Object.hasOwn(REMOVED_KINDS, kind)) return { skip: REMOVED_KINDS[kind] };
  try {
    return mapped(kind, stored);
  } catch {
    return { notes: ["its stored value could not be read: it needs its settings given again"] };
  }
}

function mapped(kind: string, stored: string): ChannelMapping {
  const doc = () => object(JSON.parse(stored));
  switch (kind) {
    case "email": {
      if (!stored.startsWith("{")) return { value: stored, notes: [] };
      const email = doc();
      const notes =
        email.up === false || email.down === false
          ? [`its "${email.down === false ? "no down" : "no up"} notifications" choice is not kept: hcd's email integrations send both`]
          : [];
      return { value: text(email.value), notes };
    }
    case "webhook": {
      const { name: _name, ...spec } = doc(); // the reference keeps the channel's name in its value too
      return { value: spec, notes: [] };
    }
    case "slack":
      return { value: stored.startsWith("{") ? text(object(doc().incoming_webhook).url) : stored, notes: [] };
    case "discord": {
      const url = text(object(doc().webhook).url);
      return { value: url.startsWith("https://discordapp.com/") ? `https://discord.com/${url.slice(23)}` : url, notes: [] };
    }
    case "ntfy": {
      const ntfy = doc();
      const token = typeof ntfy.token === "string" && ntfy.token !== "" ? { token: ntfy.token } : {};
      return {
        value: { url: text(ntfy.url), topic: text(ntfy.topic), priority_down: ntfy.priority, priority_up: ntfy.priority_up, ...token },
        notes: [],
      };
    }
    case "telegram": {
      const chat = doc();
      return {
        value: { chat_id: chat.id, ...(chat.thread_id === null || chat.thread_id === undefined ? {} : { thread_id: chat.thread_id }) },
        notes: ["hcd sends through the bot of its TELEGRAM_BOT_TOKEN: it must be the bot this chat added"],
      };
    }
    case "pd":
      return { value: { service_key: stored.startsWith("{") ? text(doc().service_key) : stored }, notes: [] };
    case "po": {
      const [userKey, priority, priorityUp] = stored.split("|");
      return { value: { user_key: userKey, priority: Number(priority), priority_up: Number(priorityUp ?? priority) }, notes: [] };
    }
    case "pushbullet":
      return { value: { token: stored }, notes: [] };
    case "matrix":
      return { value: { room_id: stored }, notes: [] };
    case "apprise":
      return { value: { url: stored }, notes: [] };
    case "gotify": {
      const gotify = doc();
      return { value: { url: text(gotify.url), token: text(gotify.token) }, notes: [] };
    }
    case "zulip": {
      const z = doc();
      return {
        value: { bot_email: z.bot_email, api_key: z.api_key, site: z.site, mtype: z.mtype, to: z.to, topic: z.topic ?? "" },
        notes: [],
      };
    }
    case "opsgenie": {
      const o = doc();
      return { value: { key: o.key, region: o.region }, notes: [] };
    }
    case "trello": {
      const t = doc();
      return { value: { list_id: t.list_id, token: t.token }, notes: [] };
    }
    case "shell": {
      const sh = doc();
      return { value: { cmd_down: throughShell(text(sh.cmd_down ?? "")), cmd_up: throughShell(text(sh.cmd_up ?? "")) }, notes: [] };
    }
    case "sms":
    case "whatsapp": {
      const phone = doc();
      return { value: { phone: text(phone.value), notify_down: phone.down !== false, notify_up: phone.up !== false }, notes: [] };
    }
    case "call":
      return { value: { phone: text(doc().value) }, notes: [] };
    case "signal": {
      const phone = doc();
      return { value: { value: text(phone.value), up: phone.up !== false, down: phone.down !== false }, notes: [] };
    }
    case "github":
      return { notes: ["Healthchecks posts through its GitHub App installation, which hcd cannot use: it needs a token given"] };
    case "group":
      return {
        value: {
          channels: stored
            .split(",")
            .map((code) => uuidOf(code.trim()))
            .filter((id) => id !== null),
        },
        notes: [],
      };
    default:
      if (URL_KINDS.has(kind)) return { value: stored, notes: [] };
      return { notes: [] }; // a kind hcd may not know: it says so when the stub is added
  }
}

function object(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("not an object");
  return value as Record<string, unknown>;
}

function text(value: unknown): string {
  if (typeof value !== "string") throw new Error("not a string");
  return value;
}

/** A uuid with or without dashes, in its canonical lower-case form; null when it is not one. */
export function uuidOf(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const hex = value.replace(/-/g, "").toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A Healthchecks shell command as hcd runs one: Healthchecks hands the line to a shell with the check's
 * name and tags quoted into it; hcd substitutes nothing and gives them as environment variables, so the
 * line runs in `/bin/sh -c` with each of those placeholders read as a quoted variable ("$NAME").
 */
export function throughShell(line: string): string {
  if (line.trim() === "") return "";
  const quoted = line.replace(/\$(NAME|TAGS|TAG\d+)\b/g, '"$$$1"');
  return `/bin/sh -c '${quoted.replaceAll("'", "'\\''")}'`;
}
