// Opsgenie: the Alert API v2 with one alert per check (its alias): created while down, closed on up
// (reference hc/integrations/opsgenie). OPSGENIE_API_URL, when set, replaces the region's host.
import { invalid, ok } from "../../engine/outcome.ts";
import type { Refusal, ServiceKindModule } from "./kind.ts";
import { defaultRefusal, isObject, jsonField, jsonRequest, stringField } from "./kind.ts";

const REGIONS: Record<string, string> = { us: "https://api.opsgenie.com", eu: "https://api.eu.opsgenie.com" };

export const opsgenie: ServiceKindModule = {
  help: '{"key": "...", "region": "us"}: an API integration key; region "us" or "eu"',
  form: [
    { name: "key", label: "API key", input: "secret", required: true },
    { name: "region", label: "Region", input: "text", required: false, hint: "us or eu", target: true },
  ],
  secretFields: ["key"],
  parse(value) {
    if (!isObject(value)) return invalid("value", "must be an object with key and region");
    const key = stringField(value, "key", 100);
    if (!key.ok) return key;
    const region = value.region ?? "us";
    if (typeof region !== "string" || !Object.hasOwn(REGIONS, region)) return invalid("value.region", 'must be "us" or "eu"');
    return ok({ key: key.value, region });
  },
  render(fields, m, settings) {
    const base = settings.opsgenieApiUrl ?? REGIONS[String(fields.region)] ?? REGIONS.us;
    const headers = { Authorization: `GenieKey ${String(fields.key)}` };
    const payload: Record<string, string | string[] | Record<string, string | number>> = { alias: m.incidentKey, source: m.siteName };
    if (m.direction === "up") {
      return [jsonRequest(`${base}/v2/alerts/${m.incidentKey}/close?identifierType=alias`, payload, { headers, operatorEndpoint: true })];
    }
    const details: Record<string, string | number> = { Project: m.projectName, "Total pings": m.totalPings, "Last ping": m.lastPing };
    for (const [label, value] of m.details)
      if (["Period", "Schedule", "Time Zone"].includes(label)) details[label === "Time Zone" ? "Time zone" : label] = value;
    details["Full details"] = m.link;
    Object.assign(payload, {
      message: `The check "${m.name}" is ${m.reminder ? "still " : ""}DOWN${m.reason ? ` (${m.reason})` : ""}.`,
      description: m.desc,
      tags: [...m.tags],
      details,
    });
    return [jsonRequest(`${base}/v2/alerts`, payload, { headers, operatorEndpoint: true })];
  },
  refusal(status, body): Refusal {
    return defaultRefusal(status, jsonField(body, "message"));
  },
};
