// Pushbullet: a note pushed with the user's access token (reference hc/integrations/pushbullet); the
// endpoint is PUSHBULLET_API_URL.
import { ok } from "../../engine/outcome.ts";
import type { ServiceKindModule } from "./kind.ts";
import { inlineReason, isObject, jsonRequest, lineAfterHeadline, stringField } from "./kind.ts";

export const pushbullet: ServiceKindModule = {
  help: '{"token": "..."}: an access token from Pushbullet\'s account settings',
  form: [{ name: "token", label: "Access token", input: "secret", required: true }],
  secretFields: ["token"],
  parse(value) {
    const token = stringField(isObject(value) ? value : { token: value }, "token", 100);
    return token.ok ? ok({ token: token.value }) : token;
  },
  render(fields, m, settings) {
    const after = lineAfterHeadline(m);
    const body = `The check "${m.name}" is ${m.reminder ? "still " : ""}${m.direction.toUpperCase()}${inlineReason(m)}.${after === null ? "" : `\n${after}`}\n${m.link}`;
    return [
      jsonRequest(
        `${settings.pushbulletApiUrl}/v2/pushes`,
        { type: "note", title: m.siteName, body },
        { headers: { "Access-Token": String(fields.token) }, operatorEndpoint: true },
      ),
    ];
  },
};
