// Trello: a card on the channel's list when a check goes down (reference hc/integrations/trello), with
// the server's application key (TRELLO_APP_KEY) and the channel's token in the Authorization header,
// never in the URL; the API is TRELLO_API_URL. Ups and reminders add nothing.
import { invalid, ok } from "../../engine/outcome.ts";
import type { ServiceKindModule, ServiceMessage } from "./kind.ts";
import { isObject, jsonRequest, stringField } from "./kind.ts";
import { required } from "./settings.ts";

function desc(m: ServiceMessage): string {
  const lines = m.desc ? [m.desc, ""] : [];
  for (const [label, value] of m.details) {
    if (label === "Period" || label === "Time Zone") lines.push(`**${label}:** ${value}`, "");
    if (label === "Schedule") lines.push(`**Schedule:** \`${value}\``, "");
  }
  lines.push(`**Last Ping:** ${m.lastPingAgo ?? "never"}`, "", `[Full Details @ ${m.siteName}](${m.link})`);
  return lines.join("\n");
}

export const trello: ServiceKindModule = {
  help: '{"list_id": "...", "token": "..."}: a member\'s token for TRELLO_APP_KEY; a card per down',
  form: [
    { name: "list_id", label: "List id", input: "text", required: true, target: true },
    { name: "token", label: "Token", input: "secret", required: true },
  ],
  needs: ["trelloAppKey"],
  secretFields: ["token"],
  parse(value) {
    if (!isObject(value)) return invalid("value", "must be an object with list_id and token");
    if (typeof value.list_id !== "string" || !/^[0-9a-f]{24}$/.test(value.list_id))
      return invalid("value.list_id", "must be a Trello list id (24 hex digits)");
    const token = stringField(value, "token", 255);
    if (!token.ok) return token;
    return ok({ list_id: value.list_id, token: token.value });
  },
  render(fields, m, settings) {
    if (m.direction !== "down" || m.reminder) return [];
    const key = required(settings, "trelloAppKey");
    return [
      jsonRequest(
        `${settings.trelloApiUrl}/1/cards`,
        { idList: String(fields.list_id), name: `Down: ${m.name}`, desc: desc(m) },
        {
          headers: { Authorization: `OAuth oauth_consumer_key="${key}", oauth_token="${String(fields.token)}"` },
          operatorEndpoint: true,
        },
      ),
    ];
  },
};
