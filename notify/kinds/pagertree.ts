// PagerTree: its webhook integration with one incident per check, triggered while down and resolved on
// up (reference hc/integrations/pagertree).
import type { ServiceKindModule } from "./kind.ts";
import { inlineReason, jsonRequest, parseUrlValue, URL_FORM } from "./kind.ts";

export const pagertree: ServiceKindModule = {
  help: 'the integration\'s webhook URL (a string, or {"url": ...})',
  form: URL_FORM,
  secretFields: ["url"],
  parse: parseUrlValue,
  render(fields, m) {
    const title = `${m.title}${inlineReason(m)}`;
    const last = m.direction === "down" && m.lastPingAgo !== null ? `\nLast ping was ${m.lastPingAgo}.` : "";
    return [
      jsonRequest(String(fields.url), {
        incident_key: m.incidentKey,
        event_type: m.direction === "down" ? "trigger" : "resolve",
        title,
        description: `${title}.${last}`,
        client: m.siteName,
        client_url: m.link,
        tags: m.tags.join(" "),
      }),
    ];
  },
};
