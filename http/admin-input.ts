// Admin API request bodies → operations (CONTRACT.md "Admin API"): projects, channels, maintenance windows,
// the clock, pruning.
import type { Channel, ChannelKind, ChannelValue, Millis, NtfySpec, WebhookSpec } from "../engine/model.ts";
import { CHANNEL_KINDS, LIMITS, SECOND } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import { invalid, ok } from "../engine/outcome.ts";
import type { ChannelInput, MaintenanceInput, ProjectInput } from "../host/pool-api.ts";
import { validateSchedule } from "../engine/schedule.ts";
import { canonicalZone } from "../engine/zones.ts";
import type { JsonObject } from "./body.ts";
import type { ServiceKinds } from "./deps.ts";
import { isoInstantOf } from "./field-input.ts";
import { isUuid } from "../engine/ids.ts";

/** Returns the project to create from an admin request body; invalid → 400 outcome. */
export function projectInputOf(body: JsonObject): Outcome<ProjectInput> {
  const name = body.name;
  if (typeof name !== "string") return invalid("name", "is required and must be a string");
  if ([...name].length > LIMITS.nameMaxChars) return invalid("name", "is too long");
  const int = (field: string, fallback: number, min: number, max: number): Outcome<number> => {
    if (!Object.hasOwn(body, field)) return ok(fallback);
    const value = body[field];
    if (typeof value !== "number" || !Number.isInteger(value)) return invalid(field, "is not an integer");
    if (value < min || value > max) return invalid(field, `must be from ${min} to ${max}`);
    return ok(value);
  };
  const checkLimit = int("check_limit", LIMITS.defaultCheckLimit, 0, 1_000_000);
  if (!checkLimit.ok) return checkLimit;
  const pingLogLimit = int("ping_log_limit", LIMITS.defaultPingLogLimit, 1, 1_000_000);
  if (!pingLogLimit.ok) return pingLogLimit;
  const pingBodyLimit = int("ping_body_limit", LIMITS.defaultPingBodyLimit, 0, 10_000_000);
  if (!pingBodyLimit.ok) return pingBodyLimit;
  return ok({ name, checkLimit: checkLimit.value, pingLogLimit: pingLogLimit.value, pingBodyLimit: pingBodyLimit.value });
}

/**
 * Returns the channel to add from an admin request body, its value normalised per kind; invalid → 400
 * outcome. `services` checks the values of the kinds beyond the first five (notify/kinds/).
 */
export function channelInputOf(body: JsonObject, services: Pick<ServiceKinds, "parse">): Outcome<ChannelInput> {
  const kind = CHANNEL_KINDS.find((k) => k === body.kind);
  if (kind === undefined) return invalid("kind", `must be one of ${CHANNEL_KINDS.join(", ")}`);
  const name = channelNameOf(Object.hasOwn(body, "name") ? body.name : "");
  if (!name.ok) return name;
  // brought over from elsewhere: its id kept, and without its settings when they could not be read (a stub)
  const id = Object.hasOwn(body, "id") ? body.id : undefined;
  if (id !== undefined && (typeof id !== "string" || !isUuid(id))) return invalid("id", "must be a lower-case uuid");
  const kept = id === undefined ? {} : { id };
  const stub = Object.hasOwn(body, "needs_settings") ? body.needs_settings : false;
  if (typeof stub !== "boolean") return invalid("needs_settings", "must be a boolean");
  const newChecks = body.new_checks;
  if (newChecks !== undefined && typeof newChecks !== "boolean") return invalid("new_checks", "must be true or false");
  // CONTRACT "Alerting, third part": told of every failure while its checks are down, not only of the change
  const everyFailure = body.every_failure;
  if (everyFailure !== undefined && typeof everyFailure !== "boolean") return invalid("every_failure", "must be true or false");
  const options = { ...(newChecks === undefined ? {} : { newChecks }), ...(everyFailure === undefined ? {} : { everyFailure }) };
  if (stub) {
    if (Object.hasOwn(body, "value")) return invalid("value", "must be absent when needs_settings is true");
    return ok({ kind, name: name.value, value: stubValueOf(kind), needsSettings: true, ...kept, ...options });
  }
  const value = channelValueOf(kind, body.value, services);
  if (!value.ok) return value;
  return ok({ kind, name: name.value, value: value.value, ...kept, ...options });
}

/** The value of a stub of `kind`: its kind's empty value, which nothing is sent to (Channel.needsSettings). */
export function stubValueOf(kind: ChannelKind): ChannelValue {
  switch (kind) {
    case "email":
      return { kind, address: "" };
    case "slack":
    case "discord":
      return { kind, url: "" };
    case "webhook":
      return {
        kind,
        json: false,
        spec: {
          method_down: "POST",
          url_down: "",
          body_down: "",
          headers_down: {},
          method_up: "POST",
          url_up: "",
          body_up: "",
          headers_up: {},
        },
      };
    case "ntfy":
      return { kind, spec: { url: "", topic: "", priority_down: 3, priority_up: 3 } };
    default:
      return { kind, fields: {} };
  }
}

function channelNameOf(name: unknown): Outcome<string> {
  if (typeof name !== "string") return invalid("name", "is not a string");
  if ([...name].length > LIMITS.nameMaxChars) return invalid("name", "is too long");
  return ok(name);
}

/** An edit that keeps `channel`'s stored value and gives it `name`, checked as a new channel's name. */
export function channelRenameOf(name: unknown, channel: Channel): Outcome<ChannelInput> {
  const checked = channelNameOf(name);
  return checked.ok ? ok({ kind: channel.kind, name: checked.value, value: channel.value }) : checked;
}

/**
 * Validates an edit of `channel` (PUT /admin/v1/projects/<id>/channels/<channel-id>): `{"name"?, "value"}`
 * checked as a new channel of its kind would be; an absent name keeps the stored one, and a `kind` other
 * than the channel's is refused (an integration keeps its kind).
 */
export function channelEditOf(body: JsonObject, channel: Channel, services: Pick<ServiceKinds, "parse">): Outcome<ChannelInput> {
  if (Object.hasOwn(body, "kind") && body.kind !== channel.kind)
    return invalid("kind", `cannot change (the integration is ${channel.kind})`);
  if (!Object.hasOwn(body, "value")) return invalid("value", "is missing");
  return channelInputOf(
    {
      kind: channel.kind,
      name: Object.hasOwn(body, "name") ? body.name : channel.name,
      value: body.value,
      ...(Object.hasOwn(body, "new_checks") ? { new_checks: body.new_checks } : {}),
      ...(Object.hasOwn(body, "every_failure") ? { every_failure: body.every_failure } : {}),
    },
    services,
  );
}

/** Completes an input with what its kind asks its provider once when it is saved (http/deps.ts ServiceKinds.prepare). */
export async function preparedInput(input: ChannelInput, services: Pick<ServiceKinds, "prepare">): Promise<Outcome<ChannelInput>> {
  const value = input.value;
  if (!("fields" in value) || input.needsSettings === true) return ok(input); // a stub asks nothing: it has no settings yet
  const fields = await services.prepare(value.kind, value.fields);
  return fields.ok ? ok({ ...input, value: { kind: value.kind, fields: fields.value } }) : fields;
}

/**
 * A group's members must be channels of its project and not groups, so that groups never loop; returns
 * the problem, or null (for any other kind too).
 */
export function groupProblem(input: ChannelInput, projectChannels: readonly Channel[]): string | null {
  if (input.value.kind !== "group" || !("fields" in input.value)) return null;
  for (const id of String(input.value.fields.channels ?? "")
    .split(",")
    .filter((member) => member !== "")) {
    const member = projectChannels.find((channel) => channel.id === id);
    if (member === undefined) return `value.channels: ${id} is not a channel of this project`;
    if (member.kind === "group") return `value.channels: ${id} is a group (a group cannot contain a group)`;
  }
  return null;
}

const EMAIL_RE = /^[^\s@]+@[^\s@]+$/;
const WEBHOOK_METHODS = ["GET", "POST", "PUT"] as const;

function channelValueOf(kind: ChannelKind, value: unknown, services: Pick<ServiceKinds, "parse">): Outcome<ChannelValue> {
  switch (kind) {
    case "email":
      if (typeof value !== "string" || !EMAIL_RE.test(value)) return invalid("value", "must be an email address");
      return ok({ kind, address: value });
    case "slack":
    case "discord":
      if (typeof value !== "string" || !isHttpUrl(value)) return invalid("value", "must be an http(s) webhook URL");
      return ok({ kind, url: value });
    case "webhook": {
      if (typeof value === "string") {
        if (!isHttpUrl(value)) return invalid("value", "must be an http(s) URL or a webhook object");
        // URL form: POST the check's JSON representation on every up and down change
        const spec: WebhookSpec = {
          method_down: "POST",
          url_down: value,
          body_down: "",
          headers_down: {},
          method_up: "POST",
          url_up: value,
          body_up: "",
          headers_up: {},
        };
        return ok({ kind, spec, json: true });
      }
      if (!isPlainObject(value)) return invalid("value", "must be an http(s) URL or a webhook object");
      const down = webhookDirectionOf(value, "down");
      if (!down.ok) return down;
      const up = webhookDirectionOf(value, "up");
      if (!up.ok) return up;
      if (down.value.url === "" && up.value.url === "") return invalid("value", "needs url_down or url_up");
      const spec: WebhookSpec = {
        method_down: down.value.method,
        url_down: down.value.url,
        body_down: down.value.body,
        headers_down: down.value.headers,
        method_up: up.value.method,
        url_up: up.value.url,
        body_up: up.value.body,
        headers_up: up.value.headers,
      };
      return ok({ kind, spec, json: false });
    }
    case "ntfy": {
      if (typeof value === "string") {
        // a topic URL: https://ntfy.sh/<topic>
        if (!isHttpUrl(value)) return invalid("value", "must be a topic URL or an ntfy object");
        const url = new URL(value);
        const parts = url.pathname.split("/").filter((p) => p !== "");
        const topic = parts.pop();
        if (topic === undefined) return invalid("value", "topic URL has no topic");
        const base = `${url.origin}${parts.length > 0 ? "/" + parts.join("/") : ""}`;
        return ok({ kind, spec: { url: base, topic: decodeURIComponent(topic), priority_down: 3, priority_up: 3 } });
      }
      if (!isPlainObject(value)) return invalid("value", "must be a topic URL or an ntfy object");
      if (typeof value.url !== "string" || !isHttpUrl(value.url)) return invalid("value.url", "must be an http(s) URL");
      if (typeof value.topic !== "string" || value.topic === "" || value.topic.includes("/"))
        return invalid("value.topic", "must be a topic name");
      const priority = (field: "priority_down" | "priority_up", fallback: number): Outcome<number> => {
        if (!Object.hasOwn(value, field)) return ok(fallback);
        const p = value[field];
        return typeof p === "number" && Number.isInteger(p) && p >= 0 && p <= 5
          ? ok(p)
          : invalid(`value.${field}`, "must be an integer from 0 to 5");
      };
      const down = priority("priority_down", 3);
      if (!down.ok) return down;
      const up = priority("priority_up", 3);
      if (!up.ok) return up;
      const token = value.token ?? "";
      // an access token (ntfy's tk_..., or any the server takes) for a protected topic: sent as a bearer token
      if (typeof token !== "string" || token.length > 100 || /[\s\u0000-\u001f\u007f]/.test(token))
        return invalid("value.token", "must be an access token of at most 100 characters, without spaces");
      const spec: NtfySpec = {
        url: value.url.replace(/\/+$/, ""),
        topic: value.topic,
        priority_down: down.value,
        priority_up: up.value,
        ...(token === "" ? {} : { token }),
      };
      return ok({ kind, spec });
    }
    default: {
      const fields = services.parse(kind, value);
      return fields.ok ? ok({ kind, fields: fields.value }) : fields;
    }
  }
}

function webhookDirectionOf(
  value: JsonObject,
  direction: "down" | "up",
): Outcome<{ method: string; url: string; body: string; headers: Record<string, string> }> {
  const get = (field: string, fallback: unknown) =>
    Object.hasOwn(value, `${field}_${direction}`) ? value[`${field}_${direction}`] : fallback;
  const method = get("method", "GET");
  if (typeof method !== "string" || !WEBHOOK_METHODS.some((m) => m === method.toUpperCase())) {
    return invalid(`value.method_${direction}`, `must be one of ${WEBHOOK_METHODS.join(", ")}`);
  }
  const url = get("url", "");
  if (typeof url !== "string" || (url !== "" && !isHttpUrl(url)))
    return invalid(`value.url_${direction}`, "must be empty or an http(s) URL");
  const body = get("body", "");
  if (typeof body !== "string") return invalid(`value.body_${direction}`, "is not a string");
  const headers = get("headers", {});
  if (!isPlainObject(headers) || !Object.values(headers).every((v) => typeof v === "string")) {
    return invalid(`value.headers_${direction}`, "must be an object of header name to string value");
  }
  for (const header of Object.keys(headers)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header))
      return invalid(`value.headers_${direction}`, `has an invalid header name: ${header}`);
  }
  return ok({ method: method.toUpperCase(), url, body, headers: headers as Record<string, string> });
}

function isPlainObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Returns the virtual clock step of an admin clock request, in ms; invalid → 400 outcome. */
export function clockAdvanceOf(body: JsonObject): Outcome<Millis> {
  const advance = body.advance;
  if (typeof advance !== "number" || !Number.isFinite(advance) || advance < 0)
    return invalid("advance", "must be a non-negative number of seconds");
  if (advance > 100 * 365 * 86_400) return invalid("advance", "is too large");
  return ok(Math.round(advance * SECOND));
}

/** Returns the prune cut-off: `before` (ISO 8601) or the start of the month two months before `at` (UTC); invalid → 400 outcome. */
export function pruneBeforeOf(body: JsonObject, at: Millis): Outcome<Millis> {
  if (!Object.hasOwn(body, "before")) return ok(retentionStartAt(at));
  const before = body.before;
  const parsed = typeof before === "string" ? Date.parse(before) : NaN;
  if (!Number.isFinite(parsed)) return invalid("before", "must be an ISO 8601 timestamp");
  return ok(parsed);
}

/** Returns the first instant kept by flip retention: the current month plus the two full months before it (spec §6.2). */
export function retentionStartAt(at: Millis): Millis {
  const now = new Date(at);
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 2, 1);
}

/** Returns true for an absolute http: or https: URL. */
export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}

/** Returns the project mute's end from `{"until": ISO 8601 or null}` (null = unmute); invalid → 400 outcome. */
export function projectMuteOf(body: JsonObject): Outcome<Millis | null> {
  if (!Object.hasOwn(body, "until")) return invalid("until", "is missing (an ISO 8601 date and time, or null)");
  const value = body.until;
  if (value === null) return ok(null);
  const at = typeof value === "string" ? isoInstantOf(value) : null;
  return at === null ? invalid("until", "is not an ISO 8601 date and time, or null") : ok(at);
}

/** Returns the maintenance window to add from an admin request body (CONTRACT "Alerting, second part"); invalid → 400 outcome. */
export function maintenanceInputOf(body: JsonObject): Outcome<MaintenanceInput> {
  const name = Object.hasOwn(body, "name") ? body.name : "";
  if (typeof name !== "string") return invalid("name", "is not a string");
  if ([...name].length > LIMITS.nameMaxChars) return invalid("name", "is too long");
  const tzText = Object.hasOwn(body, "tz") ? body.tz : "UTC";
  const tz = typeof tzText === "string" ? canonicalZone(tzText) : null;
  if (tz === null) return invalid("tz", "is not a valid timezone");
  const schedule = body.schedule;
  if (
    typeof schedule !== "string" ||
    schedule.trim() === "" ||
    [...schedule].length > LIMITS.scheduleMaxChars ||
    !validateSchedule(schedule, tz).ok
  ) {
    return invalid("schedule", "is required and must be a valid cron or OnCalendar expression");
  }
  const duration = body.duration;
  if (typeof duration !== "number" || !Number.isInteger(duration))
    return invalid("duration", "is required and must be an integer (seconds)");
  if (duration * SECOND < LIMITS.maintenanceMinMs || duration * SECOND > LIMITS.maintenanceMaxMs)
    return invalid("duration", "must be from 60 to 604800");
  return ok({ name, schedule, tz, durationMs: duration * SECOND });
}
