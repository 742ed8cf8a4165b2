// Telegram: the bot API's sendMessage with an HTML text (reference hc/integrations/telegram); the bot's
// token is the server's (TELEGRAM_BOT_TOKEN), the channel keeps the chat.
import { invalid, ok } from "../../engine/outcome.ts";
import { escapeHtml as e } from "../../lib/html.ts";
import type { Refusal, ServiceKindModule, ServiceMessage } from "./kind.ts";
import { defaultRefusal, inlineReason, isObject, jsonField, jsonRequest, lineAfterHeadline } from "./kind.ts";
import { required } from "./settings.ts";

// the reference's answers that mean the chat is gone for this bot
const GONE = new Set([
  "Forbidden: the group chat was deleted",
  "Forbidden: bot was blocked by the user",
  "Forbidden: user is deactivated",
  "Forbidden: bot was kicked from the group chat",
  "Forbidden: bot was kicked from the supergroup chat",
  "Bad Request: chat not found",
]);

function text(m: ServiceMessage): string {
  const who = `The check <a href="${e(m.link)}">${e(m.name)}</a>`;
  const lines =
    m.direction === "up"
      ? [`🟢 ${who} is now <b>UP</b>.`]
      : [`🔴 ${who} is ${m.reminder ? "still " : ""}<b>DOWN</b>${e(inlineReason(m))}.`];
  const after = lineAfterHeadline(m);
  if (after !== null) lines.push(e(after));
  lines.push("", ...m.details.map(([label, value]) => `<b>${e(label)}:</b> ${e(value)}`));
  if (m.body !== null) lines.push("<b>Last Ping Body:</b>", `<pre>${e(m.body)}</pre>`);
  return lines.join("\n");
}

export const telegram: ServiceKindModule = {
  help: '{"chat_id": 123456789} (a chat the bot of TELEGRAM_BOT_TOKEN is in; "@channelname" also works), optionally "thread_id"',
  form: [
    { name: "chat_id", label: "Chat id", input: "text", required: true, hint: "the chat's numeric id, or @channelname" },
    { name: "thread_id", label: "Topic (thread) id", input: "number", required: false },
  ],
  needs: ["telegramBotToken"],
  secretFields: [],
  parse(value) {
    const v = isObject(value) ? value : { chat_id: value };
    const chat = v.chat_id;
    const chatOk =
      (typeof chat === "number" && Number.isInteger(chat)) || (typeof chat === "string" && /^(-?\d{1,20}|@\w{4,64})$/.test(chat));
    if (!chatOk) return invalid("value.chat_id", 'must be a chat id (an integer) or "@channelname"');
    const thread = v.thread_id ?? null;
    if (thread !== null && !(typeof thread === "number" && Number.isInteger(thread) && thread > 0))
      return invalid("value.thread_id", "must be a positive integer");
    return ok({ chat_id: typeof chat === "string" && /^-?\d+$/.test(chat) ? Number(chat) : chat, thread_id: thread });
  },
  render(fields, message, settings) {
    const token = required(settings, "telegramBotToken");
    return [
      jsonRequest(
        `${settings.telegramApiUrl}/bot${token}/sendMessage`,
        { chat_id: fields.chat_id ?? null, message_thread_id: fields.thread_id ?? null, text: text(message), parse_mode: "html" },
        { operatorEndpoint: true },
      ),
    ];
  },
  refusal(status, body): Refusal {
    const description = jsonField(body, "description");
    const judged = defaultRefusal(status, description);
    return { error: judged.error, permanent: judged.permanent || (description !== null && GONE.has(description)) };
  },
};
