// Pushover: messages.json with the server's application token (PUSHOVER_API_TOKEN) and the channel's
// user key; priority 2 (emergency) repeats until acknowledged, so its "up" first cancels the repeats
// (reference hc/integrations/po). Priority -3 sends nothing in that direction.
import { invalid, ok } from "../../engine/outcome.ts";
import { escapeHtml as e } from "../../lib/html.ts";
import type { Refusal, ServiceKindModule, ServiceMessage } from "./kind.ts";
import { defaultRefusal, formRequest, intField, isObject, jsonField, stringField } from "./kind.ts";
import { required } from "./settings.ts";

const EMERGENCY_RETRY_S = 300; // the reference's PUSHOVER_EMERGENCY_RETRY_DELAY
const EMERGENCY_EXPIRE_S = 86_400; // and PUSHOVER_EMERGENCY_EXPIRATION
const NOTHING = -3;

function text(m: ServiceMessage): string {
  const lines = m.statusLine === null ? [] : [e(m.statusLine)];
  lines.push("", ...m.details.map(([label, value]) => `<b>${e(label)}:</b> ${e(value)}`));
  return lines.join("\n");
}

export const po: ServiceKindModule = {
  help: '{"user_key": "...", "priority": 0, "priority_up": 0}: priorities -2 to 2 (2 = emergency, repeated until acknowledged; -3 = send nothing), the "up" one defaults to "priority"',
  form: [
    { name: "user_key", label: "User key", input: "secret", required: true },
    {
      name: "priority",
      label: "Priority when down",
      input: "number",
      required: false,
      hint: "-2 to 2; 2 repeats until acknowledged; -3 sends nothing",
    },
    { name: "priority_up", label: "Priority when up", input: "number", required: false },
  ],
  needs: ["pushoverApiToken"],
  secretFields: ["user_key"],
  parse(value) {
    if (!isObject(value)) return invalid("value", "must be an object with user_key");
    const user = stringField(value, "user_key", 50);
    if (!user.ok) return user;
    const down = intField(value, "priority", -3, 2, 0);
    if (!down.ok) return down;
    const up = intField(value, "priority_up", -3, 2, down.value);
    if (!up.ok) return up;
    return ok({ user_key: user.value, priority: down.value, priority_up: up.value });
  },
  render(fields, m, settings) {
    const token = required(settings, "pushoverApiToken");
    const priority = Number(m.direction === "up" ? fields.priority_up : fields.priority);
    if (priority === NOTHING) return [];
    const requests = [];
    if (m.direction === "up" && Number(fields.priority) === 2) {
      requests.push(formRequest(`${settings.pushoverApiUrl}/1/receipts/cancel_by_tag/${m.incidentKey}.json`, { token }, true));
    }
    const title = `${m.direction === "up" ? "🟢" : "🔴"} ${m.title}`;
    const payload: Record<string, string | number> = {
      token,
      user: String(fields.user_key),
      message: text(m),
      title,
      html: 1,
      priority,
      tags: m.incidentKey,
      url: m.link,
      url_title: `View on ${m.siteName}`,
    };
    if (priority === 2) Object.assign(payload, { retry: EMERGENCY_RETRY_S, expire: EMERGENCY_EXPIRE_S });
    requests.push(formRequest(`${settings.pushoverApiUrl}/1/messages.json`, payload, true));
    return requests;
  },
  refusal(status, body): Refusal {
    if (status === 400 && jsonField(body, "user") === "invalid")
      return { error: "Received status code 400 (invalid user)", permanent: true };
    return defaultRefusal(status, null);
  },
};
