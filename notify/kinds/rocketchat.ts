// Rocket.Chat: an incoming webhook with a Markdown text and one attachment of fields (reference
// hc/integrations/rocketchat).
import type { JsonValue } from "../py-json.ts";
import type { ServiceKindModule } from "./kind.ts";
import { inlineReason, jsonRequest, lineAfterHeadline, parseUrlValue, URL_FORM } from "./kind.ts";

export const rocketchat: ServiceKindModule = {
  help: 'the incoming webhook URL (a string, or {"url": ...})',
  form: URL_FORM,
  secretFields: ["url"],
  parse: parseUrlValue,
  render(fields, m) {
    const after = lineAfterHeadline(m);
    const text = `[${m.name}](${m.link}) is ${m.reminder ? "still " : ""}${m.direction.toUpperCase()}${inlineReason(m)}.${after === null ? "" : `\n${after}`}`;
    const fieldList: JsonValue[] = [];
    if (m.desc) fieldList.push({ title: "Description", value: m.desc });
    for (const [title, value] of m.details)
      fieldList.push({ title, value: title === "Schedule" ? value.replaceAll("*", "\\*") : value, short: true });
    return [
      jsonRequest(String(fields.url), {
        alias: m.siteName,
        text,
        attachments: [{ color: m.direction === "up" ? "#5cb85c" : "#d9534f", fields: fieldList }],
      }),
    ];
  },
};
