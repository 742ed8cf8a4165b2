// Mattermost: a Slack-compatible incoming webhook with one attachment (reference hc/integrations/mattermost,
// which sends its Slack payload).
import type { JsonValue } from "../py-json.ts";
import type { ServiceKindModule } from "./kind.ts";
import { jsonRequest, parseUrlValue, URL_FORM } from "./kind.ts";

export const mattermost: ServiceKindModule = {
  help: 'the incoming webhook URL (a string, or {"url": ...})',
  form: URL_FORM,
  secretFields: ["url"],
  parse: parseUrlValue,
  render(fields, m) {
    const state = `is ${m.reminder ? "still " : ""}${m.direction.toUpperCase()}`;
    const fieldList: JsonValue[] = [];
    if (m.desc) fieldList.push({ title: "Description", value: m.desc });
    for (const [title, value] of m.details) fieldList.push({ title, value, short: true });
    if (m.body !== null && !m.body.includes("```")) fieldList.push({ title: "Last Ping Body", value: `\`\`\`\n${m.body}\n\`\`\`` });
    return [
      jsonRequest(String(fields.url), {
        username: m.siteName,
        attachments: [
          {
            color: m.direction === "up" ? "good" : "danger",
            fallback: `The check "${m.name}" ${state}.`,
            mrkdwn_in: ["fields"],
            title: `\u201c${m.name}\u201d ${state}.`,
            title_link: m.link,
            text: m.statusLine,
            fields: fieldList,
          },
        ],
      }),
    ];
  },
};
