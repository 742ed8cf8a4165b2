// sms, whatsapp and call through Twilio's REST API with the server's account (TWILIO_ACCOUNT, TWILIO_AUTH,
// TWILIO_FROM, TWILIO_API_URL): a text message, a WhatsApp message, or a call that reads the alert out
// (reference hc/integrations/sms, whatsapp, call). The channel keeps the phone number.
import { invalid, ok } from "../../engine/outcome.ts";
import type { Outcome } from "../../engine/outcome.ts";
import type { ServiceFields } from "../../engine/model.ts";
import { escapeHtml } from "../../lib/html.ts";
import type { HttpRequest } from "../delivery.ts";
import type { FormField, Refusal, ServiceKindModule, ServiceMessage } from "./kind.ts";
import { defaultRefusal, formRequest, inlineReason, isObject, lineAfterHeadline } from "./kind.ts";
import type { ServiceSettings } from "./settings.ts";
import { missingSetting, required } from "./settings.ts";
import { pyJson } from "../py-json.ts";

const INVALID_NUMBER = 21211; // Twilio's error code for a number it cannot send to

function parsePhone(value: unknown, directions: boolean): Outcome<ServiceFields> {
  const v = isObject(value) ? value : { phone: value };
  if (typeof v.phone !== "string" || !/^\+[1-9]\d{6,14}$/.test(v.phone.replace(/[\s-]/g, ""))) {
    return invalid("value.phone", "must be a phone number in international form: +15551234567");
  }
  const fields: Record<string, string | number> = { phone: v.phone.replace(/[\s-]/g, "") };
  if (directions) {
    for (const field of ["notify_down", "notify_up"] as const) {
      const flag = v[field] ?? true;
      if (typeof flag !== "boolean") return invalid(`value.${field}`, "must be true or false");
      fields[field] = flag ? 1 : 0;
    }
  }
  return ok(fields);
}

function refusal(status: number, body: string): Refusal {
  try {
    if (status === 400 && (JSON.parse(body) as { code?: unknown }).code === INVALID_NUMBER)
      return { error: "Invalid phone number", permanent: true };
  } catch {
    /* not JSON: the status alone */
  }
  return defaultRefusal(status);
}

function post(settings: ServiceSettings, resource: "Messages" | "Calls", form: Record<string, string>): HttpRequest {
  const account = required(settings, "twilioAccount");
  const request = formRequest(`${settings.twilioApiUrl}/2010-04-01/Accounts/${encodeURIComponent(account)}/${resource}.json`, form, true);
  const auth = Buffer.from(`${account}:${required(settings, "twilioAuth")}`).toString("base64");
  return { ...request, headers: { ...request.headers, Authorization: `Basic ${auth}` } };
}

function text(m: ServiceMessage): string {
  const after = lineAfterHeadline(m);
  return `${m.siteName}: The check "${m.name}" is ${m.reminder ? "still " : ""}${m.direction.toUpperCase()}${inlineReason(m)}.${after === null ? "" : ` ${after}`}`;
}

const wanted = (fields: ServiceFields, m: ServiceMessage) => Number(m.direction === "up" ? fields.notify_up : fields.notify_down) !== 0;

const PHONE: FormField = { name: "phone", label: "Phone number", input: "text", required: true, hint: "+15551234567" };
const DIRECTIONS: readonly FormField[] = [
  PHONE,
  { name: "notify_down", label: "When down", input: "bool", required: false },
  { name: "notify_up", label: "When up", input: "bool", required: false },
];

export const sms: ServiceKindModule = {
  help: '{"phone": "+15551234567", "notify_down"?: true, "notify_up"?: true}',
  form: DIRECTIONS,
  secretFields: [],
  needs: ["twilioAccount", "twilioAuth", "twilioFrom"],
  parse: (value) => parsePhone(value, true),
  render: (fields, m, settings) =>
    wanted(fields, m)
      ? [post(settings, "Messages", { To: String(fields.phone), From: required(settings, "twilioFrom"), Body: text(m) })]
      : [],
  refusal,
};

/** What WhatsApp needs of the server: Twilio's account, a WhatsApp sender, its Messaging Service and two approved templates. */
const WHATSAPP_SETTINGS = [
  "twilioAccount",
  "twilioAuth",
  "twilioFrom",
  "twilioMessagingServiceSid",
  "whatsappDownContentSid",
  "whatsappUpContentSid",
] as const;

export const whatsapp: ServiceKindModule = {
  help: '{"phone": "+15551234567", "notify_down"?: true, "notify_up"?: true}: the approved message templates of WHATSAPP_DOWN_CONTENT_SID / WHATSAPP_UP_CONTENT_SID with the check\'s name',
  form: DIRECTIONS,
  secretFields: [],
  enabled(settings) {
    if (!settings.twilioUseWhatsapp) return "whatsapp notifications are off on this server (TWILIO_USE_WHATSAPP)";
    const missing = missingSetting(settings, WHATSAPP_SETTINGS);
    return missing === null ? null : `whatsapp notifications are off on this server (${missing} is not set)`;
  },
  parse: (value) => parsePhone(value, true),
  // WhatsApp refuses free text a business starts outside a 24-hour window: the reference sends an approved
  // template (Twilio's Content API) whose one variable is the check's name; a reminder is a down
  render: (fields, m, settings) =>
    wanted(fields, m)
      ? [
          post(settings, "Messages", {
            To: `whatsapp:${String(fields.phone)}`,
            From: `whatsapp:${required(settings, "twilioFrom")}`,
            MessagingServiceSid: required(settings, "twilioMessagingServiceSid"),
            ContentSid: required(settings, m.direction === "up" ? "whatsappUpContentSid" : "whatsappDownContentSid"),
            ContentVariables: pyJson({ 1: m.name }),
          }),
        ]
      : [],
  refusal,
};

export const call: ServiceKindModule = {
  help: '{"phone": "+15551234567"}: a call that reads the alert out, for a down only',
  form: [PHONE],
  secretFields: [],
  needs: ["twilioAccount", "twilioAuth", "twilioFrom"],
  parse: (value) => parsePhone(value, false),
  render(fields, m, settings) {
    if (m.direction !== "down") return [];
    const say = `Hello! A message from ${m.siteName}: The check "${m.name}" is ${m.reminder ? "still " : ""}down.`;
    return [
      post(settings, "Calls", {
        To: String(fields.phone),
        From: required(settings, "twilioFrom"),
        Twiml: `<Response><Say>${escapeHtml(say)}</Say></Response>`,
      }),
    ];
  },
  refusal,
};
