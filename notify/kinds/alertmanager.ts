// Prometheus Alertmanager (CONTRACT "Alerting, third part"): POST <url>/api/v2/alerts with one alert per
// check, firing while it is down and resolved when it is up again, so Alertmanager's routing, grouping,
// silences and inhibition apply to hcd's checks. The alert's labels name the check (alertname CheckDown,
// check, check_id = its unique_key, never its uuid; project; severity) plus the integration's own; its
// annotations say why; generatorURL links the check. A firing alert's endsAt lies a year ahead (Alertmanager
// would otherwise resolve it by itself after its resolve_timeout); a reminder or escalation step sends it again.
import { invalid, ok } from "../../engine/outcome.ts";
import type { ServiceFields } from "../../engine/model.ts";
import type { ServiceKindModule, ServiceMessage } from "./kind.ts";
import { isHttpUrl, isObject, jsonRequest } from "./kind.ts";

const YEAR_MS = 365 * 86_400_000;
// label names as Prometheus takes them; the ones hcd sets can't be overridden
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const OWN_LABELS = new Set(["alertname", "check", "check_id", "project"]);

/** The integration's extra labels from "key=value" pairs (one a line, or comma-separated), or an object of strings. */
function labelsOf(value: unknown): { labels: Record<string, string> } | { problem: string } {
  if (value === undefined || value === "") return { labels: {} };
  const pairs: [string, unknown][] =
    typeof value === "string"
      ? value
          .split(/[\n,]/)
          .map((item) => item.trim())
          .filter((item) => item !== "")
          .map((item) => {
            const at = item.indexOf("=");
            return at < 0 ? [item, undefined] : [item.slice(0, at).trim(), item.slice(at + 1).trim()];
          })
      : isObject(value)
        ? Object.entries(value)
        : [["", undefined]];
  const labels: Record<string, string> = {};
  for (const [name, text] of pairs) {
    if (!LABEL_NAME.test(name) || name.startsWith("__"))
      return { problem: `"${name}" is not a label name (letters, digits and _, not starting with a digit or __)` };
    if (OWN_LABELS.has(name)) return { problem: `"${name}" is set by hcd` };
    if (typeof text !== "string" || text.length > 200) return { problem: `the label ${name} needs a value of at most 200 characters` };
    labels[name] = text;
  }
  return Object.keys(labels).length > 20 ? { problem: "at most 20 labels" } : { labels };
}

function alertOf(fields: ServiceFields, m: ServiceMessage): Record<string, unknown> {
  const extra = labelsOf(fields.labels ?? "");
  const labels: Record<string, string> = {
    severity: "critical",
    ...("labels" in extra ? extra.labels : {}),
    alertname: "CheckDown",
    check: m.name,
    check_id: m.incidentKey,
    project: m.projectName,
  };
  const at = Date.parse(m.at);
  return {
    labels,
    annotations: {
      summary: m.title,
      description: m.statusLine ?? m.title,
      ...(m.desc === "" ? {} : { check_description: m.desc }),
      last_ping: m.lastPing,
    },
    // down: firing for a year (refreshed by reminders); up: ended now, which resolves it
    startsAt: m.at,
    endsAt: new Date(m.direction === "up" ? at : at + YEAR_MS).toISOString(),
    generatorURL: m.link,
  };
}

export const alertmanager: ServiceKindModule = {
  help: '{"url": "http://alertmanager:9093", "labels"?: "team=ops, env=prod", "token"?: "..."}: Alertmanager\'s address; labels added to every alert; a bearer token when it needs one',
  form: [
    {
      name: "url",
      label: "Alertmanager URL",
      input: "text",
      required: true,
      target: true,
      hint: "its address, such as http://alertmanager:9093 (alerts go to /api/v2/alerts)",
    },
    {
      name: "labels",
      label: "Labels",
      input: "textarea",
      required: false,
      hint: "key=value, one a line: added to every alert (alertname, check, check_id and project are hcd's)",
    },
    { name: "token", label: "Bearer token", input: "secret", required: false, hint: "only when Alertmanager (or its proxy) asks for one" },
  ],
  secretFields: ["token"],
  parse(value) {
    if (!isObject(value)) return invalid("value", "must be an object with url");
    if (!isHttpUrl(value.url)) return invalid("value.url", "must be an http(s) URL");
    const labels = labelsOf(value.labels);
    if ("problem" in labels) return invalid("value.labels", labels.problem);
    const token = value.token ?? "";
    if (typeof token !== "string" || token.length > 500 || /[\s\u0000-\u001f\u007f]/.test(token))
      return invalid("value.token", "must be a token of at most 500 characters, without spaces");
    const text = Object.entries(labels.labels)
      .map(([name, v]) => `${name}=${v}`)
      .join("\n");
    return ok({ url: value.url.replace(/\/+$/, ""), labels: text, ...(token === "" ? {} : { token }) });
  },
  render(fields, m) {
    const headers: Record<string, string> =
      typeof fields.token === "string" && fields.token !== "" ? { Authorization: `Bearer ${fields.token}` } : {};
    return [jsonRequest(`${String(fields.url)}/api/v2/alerts`, [alertOf(fields, m)] as never, { headers })];
  },
};
