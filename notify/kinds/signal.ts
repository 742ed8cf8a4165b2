// Signal: one message through the operator's signal-cli daemon, its JSON-RPC `send` on the socket named by
// SIGNAL_CLI_SOCKET (reference hc/integrations/signal): plain text with bold and monospace ranges as
// signal-cli's textStyle. The channel keeps the recipient (a phone number, or a username) and its directions.
import { invalid, ok } from "../../engine/outcome.ts";
import type { Refusal, ServiceKindModule, ServiceMessage } from "./kind.ts";
import { isObject } from "./kind.ts";
import { pyJson } from "../py-json.ts";
import { valueText } from "../../lib/value-text.ts";
import { required } from "./settings.ts";

/** Text with style ranges ("start:length:BOLD", start and length in characters), as signal-cli takes it. */
class Styled {
  text = "";
  readonly styles: string[] = [];
  add(part: string, style?: "BOLD" | "MONOSPACE"): this {
    if (style !== undefined) this.styles.push(`${[...this.text].length}:${[...part].length}:${style}`);
    this.text += part;
    return this;
  }
}

/** The reference's signal_message, as text and styles; a reminder is hcd's own "still DOWN". */
export function signalText(m: ServiceMessage): Styled {
  const out = new Styled().add("The check ").add(m.name, "BOLD");
  if (m.direction === "up")
    out
      .add(" is now ")
      .add("UP", "BOLD")
      .add(".")
      .add(m.statusLine === null ? "" : ` ${m.statusLine}`);
  else if (m.reminder)
    out
      .add(" is still ")
      .add("DOWN", "BOLD")
      .add(".")
      .add(m.statusLine === null ? "" : ` ${m.statusLine}`);
  else
    out
      .add(" is ")
      .add("DOWN", "BOLD")
      .add(m.reason === "" ? "." : ` (${m.reason}).`);
  out.add("\n");
  for (const [label, value] of m.details) {
    out.add("\n").add(`${label}:`, "BOLD").add(" ");
    if (label === "Schedule") out.add(value, "MONOSPACE");
    else out.add(value);
  }
  return out;
}

/** A recipient as the reference's form takes it: "+<5 to 15 digits>", or a username "name.01". */
function recipientOf(raw: unknown): string | null {
  if (typeof raw !== "string") return null;
  const stripped = raw.replace(/[^\x00-\x7f]/g, "").replace(/[\s-]/g, "");
  if (stripped.includes(".")) return /^\w{3,48}\.\d{2,10}$/.test(stripped) ? stripped : null;
  return /^\+\d{5,15}$/.test(stripped) ? stripped : null;
}

/** Reads signal-cli's error reply (a JSON-RPC line) as the reference does. */
function refusal(_status: number, body: string): Refusal {
  let reply: { error?: { code?: unknown; data?: { response?: { results?: { type?: unknown; token?: unknown }[] } } } };
  try {
    reply = JSON.parse(body) as typeof reply;
  } catch {
    return { error: "signal-cli call failed (unexpected response)", permanent: false };
  }
  for (const result of reply.error?.data?.response?.results ?? []) {
    if (result.type === "UNREGISTERED_FAILURE") return { error: "Recipient not found", permanent: true };
    // Signal wants a captcha solved on the sending account before it sends more: the operator's task, then a retry works
    if (result.type === "RATE_LIMIT_FAILURE" && typeof result.token === "string")
      return { error: "CAPTCHA proof required", permanent: false };
  }
  return { error: `signal-cli call failed (${valueText(reply.error?.code ?? "unknown")})`, permanent: false };
}

export const signal: ServiceKindModule = {
  help: '{"value": "+15551234567" (or a username, "name.01"), "up": true, "down": true}: sent by the operator\'s signal-cli (SIGNAL_CLI_SOCKET)',
  form: [
    {
      name: "value",
      label: "Phone number or username",
      input: "text",
      required: true,
      hint: "+15551234567, or a Signal username such as alice.01",
      target: true,
    },
    { name: "down", label: "When down", input: "bool", required: false },
    { name: "up", label: "When up", input: "bool", required: false },
  ],
  secretFields: [],
  enabled: (settings) =>
    settings.signalCliSocket === null ? "signal notifications are off on this server (SIGNAL_CLI_SOCKET is not set)" : null,
  parse(value) {
    const v = isObject(value) ? value : { value };
    const recipient = recipientOf(v.value);
    if (recipient === null)
      return invalid("value.value", 'must be a phone number in international form ("+15551234567") or a Signal username ("name.01")');
    const flags: Record<string, number> = {};
    for (const field of ["down", "up"] as const) {
      const flag = v[field] ?? true;
      if (typeof flag !== "boolean") return invalid(`value.${field}`, "must be true or false");
      flags[field] = flag ? 1 : 0;
    }
    if (flags.down === 0 && flags.up === 0) return invalid("value.down", "or value.up must be true: please select at least one");
    return ok({ value: recipient, ...flags });
  },
  render(fields, m, settings) {
    if (Number(m.direction === "up" ? fields.up : fields.down) === 0) return [];
    const socket = required(settings, "signalCliSocket");
    const value = String(fields.value);
    const { text, styles } = signalText(m);
    const id = m.idempotencyKey;
    const params = { recipient: [value.includes(".") ? `u:${value}` : value], message: text, textStyle: styles };
    return [{ kind: "jsonrpc", socket, id, line: pyJson({ jsonrpc: "2.0", method: "send", params, id }) }];
  },
  refusal,
};
