// What a notification kind beyond the first five is made of (CONTRACT "Notification kinds"): its value's
// check, its requests for a message, and how it reads its provider's refusals. One module per kind
// implements this; kinds/index.ts lists them.
import type { ServiceFields } from "../../engine/model.ts";
import type { Outcome } from "../../engine/outcome.ts";
import { invalid, ok } from "../../engine/outcome.ts";
import type { JsonValue } from "../py-json.ts";
import { pyJson } from "../py-json.ts";
import type { CommandRun, HttpRequest, JsonRpcCall } from "../delivery.ts";
import type { ServiceSettings, TextSetting } from "./settings.ts";

/** One message, the same facts every kind words its own way; built from the outbox entry by render.ts. */
export type ServiceMessage = {
  readonly direction: "up" | "down";
  readonly reminder: boolean; // a "still down" reminder rather than a status change
  readonly name: string; // the check's name, or its uuid when it has none
  readonly title: string; // "Backup is DOWN", "Backup is still DOWN", "Backup is UP"
  readonly statusLine: string | null; // the reason, the downtime or the reminder line
  readonly reason: string; // why a down flip happened, long form ("" when none)
  readonly link: string; // the check's public (cloaked) link
  readonly detailsUrl: string; // the check's page on this site
  readonly incidentKey: string; // one per check, for providers that pair a trigger with its resolve
  readonly idempotencyKey: string; // one per outbox entry: the same on every retry of one message
  readonly desc: string;
  readonly projectName: string;
  readonly tags: readonly string[];
  /** Project, Tags, Period or Schedule and Time Zone, Total Pings, Last Ping, in the reference's order. */
  readonly details: readonly (readonly [label: string, value: string])[];
  readonly totalPings: number;
  readonly lastPing: string; // "Never", or "Success, 5 minutes ago"
  readonly lastPingAgo: string | null; // "5 minutes ago"; null = never pinged
  readonly body: string | null; // the last ping's body cut to 1000 characters, null = none
  readonly siteName: string;
  /** The check's own fields as stored (name may be empty, tags space-separated), for commands' variables. */
  readonly check: { readonly uuid: string; readonly name: string; readonly slug: string; readonly tags: string };
  readonly at: string; // the flip's instant, "2020-01-01T01:00:00+00:00"
};

/** A setup request (ServiceKindModule.setup): the field it is about (named in any problem) and how its answer reads. */
export type SetupCall = {
  readonly request: HttpRequest;
  readonly field: string;
  read(status: number, body: string): Outcome<ServiceFields>;
};

/** A provider's refusal as the delivery state shows it, and whether retrying can help. */
export type Refusal = { readonly error: string; readonly permanent: boolean };

/** One input of a kind's own form on the integrations page: a field of its value. */
export type FormField = {
  readonly name: string;
  readonly label: string;
  readonly input: "text" | "secret" | "number" | "list" | "bool" | "textarea" | "select"; // list: comma-separated, sent as an array
  readonly options?: readonly (readonly [value: string, label: string])[]; // a select's choices
  readonly initial?: string; // what a new integration's form holds (a select's choice)
  readonly required: boolean;
  readonly hint?: string;
  /** Where the message (and the kind's secrets) go: changing it asks for the secret fields again. */
  readonly target?: boolean;
};

/** A form of one required URL field, the value of the webhook-like kinds. */
export const URL_FORM: readonly FormField[] = [{ name: "url", label: "Webhook URL", input: "secret", required: true }];

export type ServiceKindModule = {
  /** What the value holds, for the dashboard and docs/notifications.md. */
  readonly help: string;
  /** The inputs of its form on the dashboard, in order. */
  readonly form: readonly FormField[];
  /** Checks and normalises a value from the admin API or the dashboard; a problem names its field. */
  parse(value: unknown): Outcome<ServiceFields>;
  /** Fields whose values are secrets: never shown, and cut out of any error text. */
  readonly secretFields: readonly string[];
  /** The requests to make, in order, or one command (none: this direction sends nothing); throws when the server lacks a setting. */
  render(
    fields: ServiceFields,
    message: ServiceMessage,
    settings: ServiceSettings,
  ): readonly HttpRequest[] | readonly [CommandRun] | readonly [JsonRpcCall];
  /**
   * Runs a program or reaches any host on the server's behalf, past the private-address rule (shell,
   * apprise): only the operator adds, edits or tests it (http/dashboard/permits.ts mayConfigureOperatorKinds).
   */
  readonly operatorOnly?: boolean;
  /** The server settings it cannot send without (a bot token, an account): the dashboard does not offer it without them. */
  readonly needs?: readonly TextSetting[];
  /** Whether this server offers the kind (default: yes); the admin API refuses a kind it does not. */
  enabled?(settings: ServiceSettings): string | null;
  /**
   * A request to make once when the integration is added or edited, and how its answer completes the
   * fields (Matrix: a room alias joined and resolved to its room id); null = nothing to ask.
   */
  setup?(fields: ServiceFields, settings: ServiceSettings): SetupCall | null;
  /** Reads a failed answer; default: `defaultRefusal`. */
  refusal?(status: number, body: string): Refusal;
};

/**
 * A failed answer by default: 408, 429 and 5xx may pass, so they are retried; any other 4xx is the
 * provider refusing this request for good (a bad key, a deleted webhook).
 */
export function defaultRefusal(status: number, detail: string | null = null): Refusal {
  const error = `Received status code ${status}${detail === null || detail === "" ? "" : ` with a message: "${detail}"`}`;
  return { error, permanent: status >= 400 && status < 500 && status !== 408 && status !== 429 };
}

/** Returns the string at `path` of a JSON answer (e.g. ["error", "message"]), or null. */
export function jsonField(body: string, ...path: string[]): string | null {
  try {
    let value: unknown = JSON.parse(body);
    for (const key of path) value = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
    return typeof value === "string" ? value : null;
  } catch {
    return null;
  }
}

/** A JSON POST (or PUT) with the reference's serialiser's headers. */
export function jsonRequest(
  url: string,
  payload: JsonValue,
  opts: { method?: "POST" | "PUT"; headers?: Record<string, string>; operatorEndpoint?: boolean } = {},
): HttpRequest {
  return {
    kind: "http",
    method: opts.method ?? "POST",
    url,
    headers: { "Content-Type": "application/json", ...opts.headers },
    body: pyJson(payload),
    operatorEndpoint: opts.operatorEndpoint ?? false,
  };
}

/** An application/x-www-form-urlencoded POST. */
export function formRequest(url: string, fields: Record<string, string | number>, operatorEndpoint: boolean): HttpRequest {
  const body = new URLSearchParams(Object.entries(fields).map(([k, v]) => [k, String(v)])).toString();
  return { kind: "http", method: "POST", url, headers: { "Content-Type": "application/x-www-form-urlencoded" }, body, operatorEndpoint };
}

// ---- value checks shared by the kinds -----------------------------------------------------------------

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Returns true for an absolute http: or https: URL with a host. */
export function isHttpUrl(text: unknown): text is string {
  if (typeof text !== "string") return false;
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

/** A value that is one webhook URL, as a string or as {"url": ...}. */
export function parseUrlValue(value: unknown): Outcome<ServiceFields> {
  const url = isObject(value) ? value.url : value;
  if (!isHttpUrl(url)) return invalid(isObject(value) ? "value.url" : "value", "must be an http(s) URL");
  return ok({ url });
}

/** A required non-empty string field of an object value (at most `max` characters). */
export function stringField(value: Record<string, unknown>, field: string, max = 200): Outcome<string> {
  const v = value[field];
  if (typeof v !== "string" || v.trim() === "") return invalid(`value.${field}`, "is required and must be a non-empty string");
  if (v.length > max) return invalid(`value.${field}`, "is too long");
  return ok(v.trim());
}

/** An optional integer field from `min` to `max`, `fallback` when absent. */
export function intField(value: Record<string, unknown>, field: string, min: number, max: number, fallback: number): Outcome<number> {
  if (!Object.hasOwn(value, field)) return ok(fallback);
  const v = value[field];
  return typeof v === "number" && Number.isInteger(v) && v >= min && v <= max
    ? ok(v)
    : invalid(`value.${field}`, `must be an integer from ${min} to ${max}`);
}

/** " (reason)" after a status change's DOWN, as the reference's headlines have it; "" otherwise. */
export function inlineReason(m: ServiceMessage): string {
  return m.direction === "down" && m.reason !== "" ? ` (${m.reason})` : "";
}

/** The line under a headline that has its reason inline: an up's downtime or a reminder's line; null = none. */
export function lineAfterHeadline(m: ServiceMessage): string | null {
  return m.direction === "up" || m.reminder ? m.statusLine : null;
}
