// Zulip: POST /api/v1/messages on the organisation's site as a bot (HTTP basic auth with its email and
// API key), to a stream and topic or privately (reference hc/integrations/zulip).
import { invalid, ok } from "../../engine/outcome.ts";
import type { Refusal, ServiceKindModule } from "./kind.ts";
import { defaultRefusal, formRequest, inlineReason, isHttpUrl, isObject, jsonField, lineAfterHeadline, stringField } from "./kind.ts";

export const zulip: ServiceKindModule = {
  help: '{"bot_email": "alerts-bot@org.zulipchat.com", "api_key": "...", "site": "https://org.zulipchat.com", "mtype": "stream" or "private", "to": "a stream, or a user", "topic": optional}',
  form: [
    { name: "bot_email", label: "Bot email", input: "text", required: true, target: true },
    { name: "api_key", label: "Bot API key", input: "secret", required: true },
    { name: "site", label: "Site", input: "text", required: false, hint: "default: the bot's domain", target: true },
    { name: "mtype", label: "Send to", input: "text", required: true, hint: "stream or private" },
    { name: "to", label: "Stream or user", input: "text", required: true },
    { name: "topic", label: "Topic", input: "text", required: false },
  ],
  secretFields: ["api_key"],
  parse(value) {
    if (!isObject(value)) return invalid("value", "must be an object with bot_email, api_key, site, mtype and to");
    const email = stringField(value, "bot_email", 200);
    if (!email.ok) return email;
    if (!/^[^\s@]+@[^\s@]+$/.test(email.value)) return invalid("value.bot_email", "must be an email address");
    const key = stringField(value, "api_key", 100);
    if (!key.ok) return key;
    const site = value.site ?? `https://${email.value.split("@")[1]}`; // the reference's fallback: the bot's domain
    if (!isHttpUrl(site)) return invalid("value.site", "must be an http(s) URL");
    if (value.mtype !== "stream" && value.mtype !== "private") return invalid("value.mtype", 'must be "stream" or "private"');
    const to = stringField(value, "to", 200);
    if (!to.ok) return to;
    const topic = value.topic ?? "";
    if (typeof topic !== "string" || topic.length > 60) return invalid("value.topic", "must be a string of at most 60 characters");
    return ok({ bot_email: email.value, api_key: key.value, site: site.replace(/\/+$/, ""), mtype: value.mtype, to: to.value, topic });
  },
  render(fields, m) {
    const after = lineAfterHeadline(m);
    const lines = [`[${m.name}](${m.link}) is ${m.reminder ? "still " : ""}**${m.direction.toUpperCase()}**${inlineReason(m)}.`];
    if (after !== null) lines.push(after);
    if (m.desc) lines.push("", "---", "**Description**", m.desc);
    const to = String(fields.to);
    const request = formRequest(
      `${String(fields.site)}/api/v1/messages`,
      {
        type: String(fields.mtype),
        to: fields.mtype === "private" && /^\d+$/.test(to) ? `[${to}]` : to,
        topic: String(fields.topic) || m.title,
        content: lines.join("\n"),
      },
      false,
    );
    const auth = Buffer.from(`${String(fields.bot_email)}:${String(fields.api_key)}`).toString("base64");
    return [{ ...request, headers: { ...request.headers, Authorization: `Basic ${auth}` } }];
  },
  refusal(status, body): Refusal {
    return defaultRefusal(status, jsonField(body, "msg"));
  },
};
