// The kinds beyond the first five as the rest of notify sees them: their requests for a message, how a
// failed answer reads, and the secrets cut out of what is stored or shown.
import type { ServiceFields, ServiceKind } from "../../engine/model.ts";
import type { Outcome } from "../../engine/outcome.ts";
import type { Delivery } from "../render.ts";
import type { Refusal, ServiceMessage } from "./kind.ts";
import { defaultRefusal } from "./kind.ts";
import { SERVICE_KIND_MODULES } from "./index.ts";
import type { ServiceSettings } from "./settings.ts";
import { settingSecrets } from "./settings.ts";

/** What to send for a service kind's message; null = nothing in this direction. */
export function renderService(kind: ServiceKind, fields: ServiceFields, message: ServiceMessage, settings: ServiceSettings): Delivery | null {
  const requests = SERVICE_KIND_MODULES[kind].render(fields, message, settings);
  if (requests.length === 0) return null;
  return requests.length === 1 ? requests[0] : { kind: "sequence", requests };
}

/** Reads a failed answer of a service kind, its secrets masked in the error. */
export function serviceRefusal(kind: ServiceKind, fields: ServiceFields, settings: ServiceSettings, status: number, body: string): Refusal {
  const module = SERVICE_KIND_MODULES[kind];
  const refusal = module.refusal?.(status, body) ?? defaultRefusal(status);
  return { error: maskSecrets(refusal.error, kind, fields, settings), permanent: refusal.permanent };
}

/** Replaces every secret of the channel and of the server's settings in `text` with "****". */
export function maskSecrets(text: string, kind: ServiceKind, fields: ServiceFields, settings: ServiceSettings): string {
  const secrets = [...SERVICE_KIND_MODULES[kind].secretFields.map((name) => fields[name]), ...settingSecrets(settings)]
    .filter((secret): secret is string => typeof secret === "string" && secret.length >= 4)
    .sort((a, b) => b.length - a.length);
  return secrets.reduce((masked, secret) => masked.replaceAll(secret, "****"), text);
}

/** Checks a service kind's value as the admin API and the dashboard receive it. */
export function parseServiceValue(kind: ServiceKind, value: unknown): Outcome<ServiceFields> {
  return SERVICE_KIND_MODULES[kind].parse(value);
}

/** What a service kind's value holds, for the dashboard's hints. */
export function serviceHelp(kind: ServiceKind): string {
  return SERVICE_KIND_MODULES[kind].help;
}

/** The kinds as the HTTP edge receives them (AppDeps.serviceKinds). */
export const SERVICE_KINDS_CATALOG = { parse: parseServiceValue, help: serviceHelp };
