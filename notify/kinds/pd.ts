// PagerDuty: the Events API (v1, as the reference uses) with one incident per check, triggered while down
// and resolved on up (reference hc/integrations/pd); the endpoint is PAGERDUTY_EVENTS_URL.
import { ok } from "../../engine/outcome.ts";
import type { ServiceKindModule } from "./kind.ts";
import { isObject, jsonRequest, stringField } from "./kind.ts";

export const pd: ServiceKindModule = {
  help: '{"service_key": "..."}: the integration key of a PagerDuty service (Events API)',
  form: [{ name: "service_key", label: "Integration key", input: "secret", required: true }],
  secretFields: ["service_key"],
  parse(value) {
    const key = stringField(isObject(value) ? value : { service_key: value }, "service_key", 100);
    return key.ok ? ok({ service_key: key.value }) : key;
  },
  render(fields, m, settings) {
    const details: Record<string, string | number> = { Project: m.projectName, "Total pings": m.totalPings, "Last ping": m.lastPing };
    if (m.desc) details.Description = m.desc;
    if (m.tags.length > 0) details.Tags = m.tags.join(", ");
    for (const [label, value] of m.details)
      if (["Period", "Schedule", "Time Zone"].includes(label)) details[label === "Time Zone" ? "Time zone" : label] = value;
    const description =
      m.direction === "up"
        ? `${m.name} received a ping and is now UP`
        : `${m.name} is ${m.reminder ? "still " : ""}DOWN${m.reason ? ` (${m.reason})` : ""}.`;
    return [
      jsonRequest(
        settings.pagerdutyEventsUrl,
        {
          service_key: String(fields.service_key),
          incident_key: m.incidentKey,
          event_type: m.direction === "down" ? "trigger" : "resolve",
          description,
          client: m.siteName,
          client_url: m.detailsUrl,
          details,
        },
        { operatorEndpoint: true },
      ),
    ];
  },
};
