// Microsoft Teams through a Workflows webhook: an Adaptive Card with the status, the details as facts
// and a link (reference hc/integrations/msteamsw).
import type { JsonValue } from "../py-json.ts";
import type { ServiceKindModule } from "./kind.ts";
import { inlineReason, jsonRequest, lineAfterHeadline, parseUrlValue, URL_FORM } from "./kind.ts";

export const msteamsw: ServiceKindModule = {
  help: 'the Workflows webhook URL (a string, or {"url": ...})',
  form: URL_FORM,
  secretFields: ["url"],
  parse: parseUrlValue,
  render(fields, m) {
    const heading =
      m.direction === "up"
        ? `🟢 \u201c${m.name}\u201d is UP.`
        : `🔴 \u201c${m.name}\u201d is ${m.reminder ? "still " : ""}DOWN${inlineReason(m)}.`;
    const facts: JsonValue[] = [];
    if (m.desc) facts.push({ title: "Description:", value: m.desc.replaceAll("\n", "\n\n") });
    for (const [label, value] of m.details)
      facts.push({ title: `${label}:`, value: label === "Schedule" ? value.replaceAll("*", "\u034f*") : value });
    const body: JsonValue[] = [{ type: "TextBlock", text: heading, weight: "bolder", size: "medium", wrap: true, style: "heading" }];
    const after = lineAfterHeadline(m);
    if (after !== null) body.push({ type: "TextBlock", text: after, wrap: true });
    body.push({ type: "FactSet", facts });
    if (m.body !== null) {
      body.push(
        { type: "TextBlock", text: "Last Ping Body:", weight: "bolder" },
        { type: "CodeBlock", codeSnippet: m.body, language: "PlainText" },
      );
    }
    return [
      jsonRequest(String(fields.url), {
        type: "message",
        attachments: [
          {
            contentType: "application/vnd.microsoft.card.adaptive",
            contentUrl: null,
            content: {
              $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
              type: "AdaptiveCard",
              fallbackText: `\u201c${m.name}\u201d ${m.reminder ? "is still" : "is"} ${m.direction.toUpperCase()}.`,
              version: "1.2",
              body,
              actions: [{ type: "Action.OpenUrl", title: `View in ${m.siteName}`, url: m.link }],
            },
          },
        ],
      }),
    ];
  },
};
