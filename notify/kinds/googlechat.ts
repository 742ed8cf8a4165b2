// Google Chat: a card (cardsV2) to the space's incoming webhook with the status, the details and a button
// to the check (reference hc/integrations/googlechat).
import { escapeHtml as e } from "../../lib/html.ts";
import type { JsonValue } from "../py-json.ts";
import type { ServiceKindModule } from "./kind.ts";
import { jsonRequest, parseUrlValue, URL_FORM } from "./kind.ts";

export const googlechat: ServiceKindModule = {
  help: 'the space\'s incoming webhook URL (a string, or {"url": ...})',
  form: URL_FORM,
  secretFields: ["url"],
  parse: parseUrlValue,
  render(fields, m) {
    const lines = [
      m.direction === "up"
        ? `🟢 The check <b>${e(m.name)}</b> is now <b>UP</b>.`
        : `🔴 The check <b>${e(m.name)}</b> is ${m.reminder ? "still " : ""}<b>DOWN</b>.`,
    ];
    if (m.statusLine !== null) lines.push(e(m.statusLine));
    const widgets: JsonValue[] = [{ textParagraph: { text: lines.join("\n") } }];
    for (const [label, value] of m.details) widgets.push({ decoratedText: { topLabel: label, text: e(value) } });
    widgets.push({ buttonList: { buttons: [{ text: `View in ${m.siteName}`, type: "FILLED", onClick: { openLink: { url: m.link } } }] } });
    return [
      jsonRequest(String(fields.url), {
        text: `${m.title}.`,
        cardsV2: [{ cardId: m.incidentKey, card: { sections: [{ collapsible: true, uncollapsibleWidgetsCount: 1, widgets }] } }],
      }),
    ];
  },
};
