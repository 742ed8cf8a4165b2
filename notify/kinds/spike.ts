// Spike.sh: its webhook integration with the check's key, so its down and up pair (reference
// hc/integrations/spike).
import type { ServiceKindModule } from "./kind.ts";
import { inlineReason, jsonRequest, parseUrlValue, URL_FORM } from "./kind.ts";

export const spike: ServiceKindModule = {
  help: 'the integration\'s webhook URL (a string, or {"url": ...})',
  form: URL_FORM,
  secretFields: ["url"],
  parse: parseUrlValue,
  render(fields, m) {
    const title = `${m.title}${inlineReason(m)}`;
    const last = m.direction === "down" && m.lastPingAgo !== null ? `\nLast ping was ${m.lastPingAgo}.` : "";
    return [jsonRequest(String(fields.url), { check_id: m.incidentKey, title, message: `${title}.${last}`, status: m.direction })];
  },
};
