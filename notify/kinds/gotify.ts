// Gotify: POST /message on the channel's server with its application token in the X-Gotify-Key header
// (never in the URL) and a Markdown message (reference hc/integrations/gotify). Priority 0 sends nothing.
import { invalid, ok } from "../../engine/outcome.ts";
import type { ServiceKindModule, ServiceMessage } from "./kind.ts";
import { inlineReason, intField, isHttpUrl, isObject, jsonRequest, lineAfterHeadline, stringField } from "./kind.ts";

// Markdown's link text must not close early
const mdText = (text: string) => text.replace(/[[\]\\*_`]/g, (c) => `\\${c}`);

function markdown(m: ServiceMessage): string {
  const who = `The check [${mdText(m.name)}](${m.link})`;
  const lines = [
    m.direction === "up" ? `🟢 ${who} is now **UP**.` : `🔴 ${who} is ${m.reminder ? "still " : ""}**DOWN**${inlineReason(m)}.`,
  ];
  const after = lineAfterHeadline(m);
  if (after !== null) lines.push("", after);
  lines.push("", ...m.details.map(([label, value]) => `**${label}:** ${mdText(value)}  `));
  return lines.join("\n");
}

export const gotify: ServiceKindModule = {
  help: '{"url": "https://gotify.example.com", "token": "...", "priority": 5, "priority_up": 5}: an application token; priority 0 sends nothing',
  form: [
    { name: "url", label: "Server URL", input: "text", required: true, target: true },
    { name: "token", label: "Application token", input: "secret", required: true },
    { name: "priority", label: "Priority when down", input: "number", required: false, hint: "0 to 10, default 5; 0 sends nothing" },
    { name: "priority_up", label: "Priority when up", input: "number", required: false },
  ],
  secretFields: ["token"],
  parse(value) {
    if (!isObject(value)) return invalid("value", "must be an object with url and token");
    if (!isHttpUrl(value.url)) return invalid("value.url", "must be an http(s) URL");
    const token = stringField(value, "token", 50);
    if (!token.ok) return token;
    const down = intField(value, "priority", 0, 10, 5);
    if (!down.ok) return down;
    const up = intField(value, "priority_up", 0, 10, 5);
    if (!up.ok) return up;
    return ok({ url: value.url.replace(/\/+$/, ""), token: token.value, priority: down.value, priority_up: up.value });
  },
  render(fields, m) {
    const priority = Number(m.direction === "up" ? fields.priority_up : fields.priority);
    if (priority === 0) return [];
    return [
      jsonRequest(
        `${String(fields.url)}/message`,
        {
          title: m.title,
          message: markdown(m),
          priority,
          extras: { "client::display": { contentType: "text/markdown" }, "client::notification": { click: { url: m.link } } },
        },
        { headers: { "X-Gotify-Key": String(fields.token) } },
      ),
    ];
  },
};
