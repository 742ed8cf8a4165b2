// Matrix: one m.room.message to the channel's room, sent by the server's account (MATRIX_HOMESERVER,
// MATRIX_ACCESS_TOKEN) with a plain and an HTML body (reference hc/integrations/matrix). A room alias is
// joined and resolved to its room id when the integration is saved, as the reference does. The transaction
// id is the outbox entry's, so a retried message is not posted twice.
import { invalid, ok } from "../../engine/outcome.ts";
import { escapeHtml as e } from "../../lib/html.ts";
import type { ServiceFields } from "../../engine/model.ts";
import type { HttpRequest } from "../delivery.ts";
import type { ServiceKindModule, ServiceMessage, SetupCall } from "./kind.ts";
import { inlineReason, isObject, jsonField, jsonRequest, lineAfterHeadline } from "./kind.ts";
import type { ServiceSettings } from "./settings.ts";
import { required } from "./settings.ts";

function plain(m: ServiceMessage): string {
  const after = lineAfterHeadline(m);
  return [`${m.title}${inlineReason(m)}.`, ...(after === null ? [] : [after]), m.link].join(" ");
}

function formatted(m: ServiceMessage): string {
  const who = `The check <a href="${e(m.link)}">${e(m.name)}</a>`;
  const lines = [
    m.direction === "up" ? `🟢 ${who} is <b>UP</b>.` : `🔴 ${who} is ${m.reminder ? "still " : ""}<b>DOWN</b>${e(inlineReason(m))}.`,
  ];
  const after = lineAfterHeadline(m);
  if (after !== null) lines.push(e(after));
  lines.push("", ...m.details.map(([label, value]) => `<b>${e(label)}:</b> ${e(value)}`));
  if (m.body !== null) lines.push("<b>Last Ping Body:</b>", `<pre>${e(m.body)}</pre>`);
  return lines.join("<br>\n");
}

/** The reference's texts for a join the homeserver refused (hc/integrations/matrix/client.py). */
const JOIN_ERRORS: Record<number, string> = {
  403: "Matrix server returned status 403 (Forbidden). Did you invite the account of MATRIX_ACCESS_TOKEN to the room?",
  429: "Matrix server returned status 429 (Too Many Requests), please try later.",
  502: "Matrix server returned status 502 (Bad Gateway), please try later.",
};

/** The room an alias names, by joining it as the server's account (reference: join at setup); a room id needs nothing. */
function joinCall(fields: ServiceFields, settings: ServiceSettings): SetupCall | null {
  const room = String(fields.room_id);
  if (room.startsWith("!")) return null;
  const url = `${required(settings, "matrixHomeserver")}/_matrix/client/v3/join/${encodeURIComponent(room)}`;
  const request: HttpRequest = {
    kind: "http",
    method: "POST",
    url,
    headers: { Authorization: `Bearer ${required(settings, "matrixAccessToken")}` },
    body: null,
    operatorEndpoint: true,
  };
  return {
    request,
    field: "value.room_id",
    read(status, body) {
      if (JOIN_ERRORS[status] !== undefined) return invalid("value.room_id", JOIN_ERRORS[status]);
      const id = status >= 200 && status < 300 ? jsonField(body, "room_id") : null;
      if (id === null || !ROOM_ID.test(id)) return invalid("value.room_id", "Matrix server returned unexpected response");
      return ok({ room_id: id, alias: room });
    },
  };
}

const ROOM_ID = /^![^:\s]+:[^\s]+$/;

export const matrix: ServiceKindModule = {
  help: '{"room_id": "!abc:example.org"} or a room alias "#ops:example.org", which the account of MATRIX_ACCESS_TOKEN joins when the integration is saved (the room id is kept)',
  form: [{ name: "room_id", label: "Room id or alias", input: "text", required: true, hint: "!id:server or #alias:server" }],
  needs: ["matrixHomeserver", "matrixAccessToken"],
  secretFields: [],
  parse(value) {
    const room = isObject(value) ? value.room_id : value;
    if (typeof room !== "string" || !/^[!#][^:\s]+:[^\s]+$/.test(room) || room.length > 255) {
      return invalid("value.room_id", 'must be a room id ("!id:server") or alias ("#name:server")');
    }
    return ok({
      room_id: room,
      ...(isObject(value) && typeof value.alias === "string" && room.startsWith("!") ? { alias: value.alias.slice(0, 255) } : {}),
    });
  },
  setup: joinCall,
  render(fields, m, settings) {
    const server = required(settings, "matrixHomeserver");
    const token = required(settings, "matrixAccessToken");
    const url = `${server}/_matrix/client/v3/rooms/${encodeURIComponent(String(fields.room_id))}/send/m.room.message/${m.idempotencyKey}`;
    return [
      jsonRequest(
        url,
        { msgtype: "m.text", body: plain(m), format: "org.matrix.custom.html", formatted_body: formatted(m) },
        { method: "PUT", headers: { Authorization: `Bearer ${token}` }, operatorEndpoint: true },
      ),
    ];
  },
};
