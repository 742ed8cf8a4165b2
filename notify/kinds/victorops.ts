// Splunk On-Call (VictorOps): its REST endpoint with one entity per check, CRITICAL while down and
// RECOVERY on up (reference hc/integrations/victorops).
import type { ServiceKindModule } from "./kind.ts";
import { inlineReason, jsonRequest, parseUrlValue, URL_FORM } from "./kind.ts";

export const victorops: ServiceKindModule = {
  help: 'the REST endpoint URL with its routing key (a string, or {"url": ...})',
  form: URL_FORM,
  secretFields: ["url"],
  parse: parseUrlValue,
  render(fields, m) {
    return [
      jsonRequest(String(fields.url), {
        entity_id: m.incidentKey,
        message_type: m.direction === "down" ? "CRITICAL" : "RECOVERY",
        entity_display_name: m.name,
        state_message: `${m.title}${inlineReason(m)}.`,
        monitoring_tool: m.siteName,
      }),
    ];
  },
};
