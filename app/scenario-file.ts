// A scenario file (docs/simulation-and-replay.md) → the engine's replay commands. Check fields, channels and
// project limits go through the API's own validation (input.ts), so a scenario says what a client would.
import type { Millis, PingSignal } from "../engine/model.ts";
import { PING_SIGNALS, SECOND } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import { invalid, ok } from "../engine/outcome.ts";
import type { ReplayCommand, ReplayPing, ReplayScenario } from "../engine/replay.ts";
import { reasonOf } from "../http/errors.ts";
import type { JsonObject } from "../http/body.ts";
import { channelInputOf, maintenanceInputOf, projectInputOf } from "../http/admin-input.ts";
import { serviceKindsOf } from "../notify/kinds/service.ts";
import { DEFAULT_SERVICE_SETTINGS } from "../notify/kinds/settings.ts";
import { checkRequestOf } from "../http/input.ts";
import { escalationOf } from "../http/alerting-input.ts";
import { isUuid } from "../engine/ids.ts";

/** A scenario as JSON: what `hcd replay FILE` reads and bench/scenarios.ts writes. */
export type ScenarioFile = {
  readonly start: string; // ISO 8601
  readonly project?: JsonObject; // as POST /admin/v1/projects: name, check_limit, ping_log_limit, ping_body_limit
  readonly commands: readonly ScenarioFileCommand[];
};

/** One timed command; `at` is seconds after `start`, never earlier than the command before. */
export type ScenarioFileCommand = { readonly at: number } & (
  | { readonly do: "channel"; readonly kind: string; readonly name?: string; readonly value: unknown }
  | { readonly do: "create" | "update"; readonly check: string; readonly fields?: JsonObject }
  | {
      readonly do: "ping";
      readonly check: string;
      readonly signal?: PingSignal;
      readonly exit_status?: number;
      readonly rid?: string;
      readonly method?: string;
      readonly body?: string;
      readonly email?: { readonly subject: string; readonly text: string };
    }
  | { readonly do: "pause" | "resume" | "acknowledge"; readonly check: string }
  | { readonly do: "maintenance"; readonly name?: string; readonly schedule: string; readonly tz?: string; readonly duration: number }
  | { readonly do: "escalation"; readonly steps: unknown }
  | { readonly do: "advance" }
);

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/;

/** Returns the scenario in engine terms; a bad file → an outcome whose reason names the command. */
export function scenarioOf(value: unknown): Outcome<ReplayScenario> {
  if (!isObject(value)) return bad("the file is not a JSON object");
  const start = value.start;
  if (typeof start !== "string" || !ISO_8601.test(start)) return bad("start must be an ISO 8601 date and time with a zone");
  const startAt = Date.parse(start);
  const projectBody = value.project ?? { name: "replay" };
  if (!isObject(projectBody)) return bad("project must be an object");
  const project = projectInputOf({ name: "replay", ...projectBody });
  if (!project.ok) return bad(`project: ${reasonOf(project.failure)}`);
  if (!Array.isArray(value.commands)) return bad("commands must be a list");
  const commands: ReplayCommand[] = [];
  let lastAt = startAt;
  for (const [index, item] of value.commands.entries()) {
    const where = `commands[${index}]`;
    if (!isObject(item)) return bad(`${where} is not an object`);
    if (typeof item.at !== "number" || !Number.isFinite(item.at) || item.at < 0)
      return bad(`${where}.at must be a number of seconds after start`);
    const at: Millis = startAt + Math.round(item.at * SECOND);
    if (at < lastAt) return bad(`${where}.at is earlier than the command before it`);
    lastAt = at;
    const command = commandOf(item, at);
    if (!command.ok) return bad(`${where}: ${reasonOf(command.failure)}`);
    commands.push(command.value);
  }
  return ok({ startAt, project: project.value, commands });
}

function commandOf(item: JsonObject, at: Millis): Outcome<ReplayCommand> {
  const DOS = ["channel", "create", "update", "ping", "pause", "resume", "acknowledge", "maintenance", "escalation", "advance"];
  if (!DOS.includes(item.do as string)) return invalid("do", `must be one of ${DOS.join(", ")}`);
  const label = item.check;
  const needsCheck = item.do !== "channel" && item.do !== "advance" && item.do !== "maintenance" && item.do !== "escalation";
  if (needsCheck && (typeof label !== "string" || label === "")) return invalid("check", "must name a check (any label)");
  const check = label as string;
  switch (item.do) {
    case "advance":
      return ok({ at, command: "advance" });
    case "channel": {
      const channel = channelInputOf(item, serviceKindsOf(DEFAULT_SERVICE_SETTINGS));
      return channel.ok ? ok({ at, command: "channel", channel: channel.value }) : channel;
    }
    case "create":
    case "update": {
      const fields = item.fields ?? {};
      if (!isObject(fields)) return invalid("fields", "must be an object of check fields");
      const request = checkRequestOf(item.do === "create" && !Object.hasOwn(fields, "name") ? { name: check, ...fields } : fields, null);
      return request.ok ? ok({ at, command: item.do, check, spec: request.value.spec }) : request;
    }
    case "ping": {
      const ping = pingOf(item);
      return ping.ok ? ok({ at, command: "ping", check, ping: ping.value }) : ping;
    }
    case "pause":
    case "resume":
    case "acknowledge":
      return ok({ at, command: item.do, check });
    case "maintenance": {
      const window = maintenanceInputOf(item);
      return window.ok ? ok({ at, command: "maintenance", window: window.value }) : window;
    }
    case "escalation": {
      const steps = escalationOf(item.steps ?? null);
      return steps.ok ? ok({ at, command: "escalation", steps: steps.value ?? [] }) : steps;
    }
    default:
      return invalid("do", `must be one of ${DOS.join(", ")}`);
  }
}

function pingOf(item: JsonObject): Outcome<ReplayPing> {
  const signal = item.signal ?? "success";
  if (!PING_SIGNALS.some((s) => s === signal)) return invalid("signal", `must be one of ${PING_SIGNALS.join(", ")}`);
  const exitStatus = item.exit_status ?? null;
  if (exitStatus !== null && (typeof exitStatus !== "number" || !Number.isInteger(exitStatus) || exitStatus < 0 || exitStatus > 255)) {
    return invalid("exit_status", "must be an integer from 0 to 255");
  }
  const rid = item.rid ?? null;
  if (rid !== null && (typeof rid !== "string" || !isUuid(rid.toLowerCase()))) return invalid("rid", "must be a uuid");
  const method = item.method ?? "GET";
  if (typeof method !== "string" || !/^[A-Z]+$/.test(method)) return invalid("method", "must be an HTTP method");
  const body = item.body ?? null;
  if (body !== null && typeof body !== "string") return invalid("body", "must be a string");
  const ping: ReplayPing = {
    signal: signal as PingSignal,
    exitStatus,
    rid: rid === null ? null : rid.toLowerCase(),
    method,
    body: body === null ? null : new TextEncoder().encode(body),
  };
  if (item.email === undefined) return ok(ping);
  const email = item.email;
  if (!isObject(email) || typeof email.subject !== "string" || typeof email.text !== "string") {
    return invalid("email", "must be an object with a subject and a text");
  }
  return ok({ ...ping, email: { subject: email.subject, text: email.text } });
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function bad<T>(reason: string): Outcome<T> {
  return invalid("", reason);
}
