// Matrix: one m.room.message to the channel's room, sent by the server's account (MATRIX_HOMESERVER,
// MATRIX_ACCESS_TOKEN) with a plain and an HTML body (reference hc/integrations/matrix). The transaction
// id is the outbox entry's, so a retried message is not posted twice.
import { invalid, ok } from "../../engine/outcome.ts";
import { escapeHtml as e } from "../../lib/html.ts";
import type { ServiceKindModule, ServiceMessage } from "./kind.ts";
import { inlineReason, isObject, jsonRequest, lineAfterHeadline } from "./kind.ts";
import { required } from "./settings.ts";

function plain(m: ServiceMessage): string {
  const after = lineAfterHeadline(m);
  return [`${m.title}${inlineReason(m)}.`, ...(after === null ? [] : [after]), m.link].join(" ");
}

function formatted(m: ServiceMessage): string {
  const who = `The check <a href="${e(m.link)}">${e(m.name)}</a>`;
  const lines = [m.direction === "up" ? `🟢 ${who} is <b>UP</b>.` : `🔴 ${who} is ${m.reminder ? "still " : ""}<b>DOWN</b>${e(inlineReason(m))}.`];
  const after = lineAfterHeadline(m);
  if (after !== null) lines.push(e(after));
  lines.push("", ...m.details.map(([label, value]) => `<b>${e(label)}:</b> ${e(value)}`));
  if (m.body !== null) lines.push("<b>Last Ping Body:</b>", `<pre>${e(m.body)}</pre>`);
  return lines.join("<br>\n");
}

export const matrix: ServiceKindModule = {
  help: '{"room_id": "!abc:example.org"} (or a "#alias:example.org" the account of MATRIX_ACCESS_TOKEN has joined)',
  form: [{ name: "room_id", label: "Room id or alias", input: "text", required: true, hint: "!id:server or #alias:server" }],
  secretFields: [],
  parse(value) {
    const room = isObject(value) ? value.room_id : value;
    if (typeof room !== "string" || !/^[!#][^:\s]+:[^\s]+$/.test(room) || room.length > 255) {
      return invalid("value.room_id", 'must be a room id ("!id:server") or alias ("#name:server")');
    }
    return ok({ room_id: room });
  },
  render(fields, m, settings) {
    const server = required(settings, "matrixHomeserver");
    const token = required(settings, "matrixAccessToken");
    const url = `${server}/_matrix/client/v3/rooms/${encodeURIComponent(String(fields.room_id))}/send/m.room.message/${m.idempotencyKey}`;
    return [jsonRequest(url, { msgtype: "m.text", body: plain(m), format: "org.matrix.custom.html", formatted_body: formatted(m) },
      { method: "PUT", headers: { Authorization: `Bearer ${token}` }, operatorEndpoint: true })];
  },
};
