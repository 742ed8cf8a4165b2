// The kinds beyond the first five as the rest of notify sees them: their requests for a message, how a
// failed answer reads, and the secrets cut out of what is stored or shown.
import type { ServiceFields, ServiceKind } from "../../engine/model.ts";
import type { Outcome } from "../../engine/outcome.ts";
import type { Delivery, HttpRequest } from "../delivery.ts";
import type { Refusal, ServiceMessage } from "./kind.ts";
import { defaultRefusal } from "./kind.ts";
import { SERVICE_KIND_MODULES } from "./index.ts";
import type { ServiceSettings } from "./settings.ts";
import { DEFAULT_SERVICE_SETTINGS, missingSetting, settingSecrets } from "./settings.ts";
import { invalid, ok } from "../../engine/outcome.ts";
import { sendHttp } from "../send.ts";

/** What to send for a service kind's message; null = nothing in this direction. */
export function renderService(
  kind: ServiceKind,
  fields: ServiceFields,
  message: ServiceMessage,
  settings: ServiceSettings,
): Delivery | null {
  const requests = SERVICE_KIND_MODULES[kind].render(fields, message, settings);
  if (requests.length === 0) return null;
  const [first] = requests;
  if (requests.length === 1 || first.kind !== "http") return first;
  return { kind: "sequence", requests: requests.filter((r): r is HttpRequest => r.kind === "http") };
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

/** Checks a service kind's value as the admin API and the dashboard receive it; a kind this server does not offer is refused. */
export function parseServiceValue(
  kind: ServiceKind,
  value: unknown,
  settings: ServiceSettings = DEFAULT_SERVICE_SETTINGS,
): Outcome<ServiceFields> {
  const module = SERVICE_KIND_MODULES[kind];
  const off = module.enabled?.(settings) ?? null;
  return off === null ? module.parse(value) : invalid("kind", off);
}

/**
 * Completes a checked value with what its kind asks its provider once, when the integration is added or
 * edited (a Matrix room alias resolved to its room id); a refusal or an unreachable server names the field.
 */
export async function prepareServiceValue(
  kind: ServiceKind,
  fields: ServiceFields,
  settings: ServiceSettings,
): Promise<Outcome<ServiceFields>> {
  let call;
  try {
    call = SERVICE_KIND_MODULES[kind].setup?.(fields, settings) ?? null;
  } catch (error) {
    // a setting the server lacks
    return invalid("kind", error instanceof Error ? error.message : String(error));
  }
  if (call === null) return ok(fields);
  const result = await sendHttp(call.request, { timeoutMs: SETUP_TIMEOUT_MS, maxResponseBytes: 64 * 1024, allowPrivateIps: false });
  if (result.status === null)
    return invalid(call.field, maskSecrets(`could not be checked: ${result.ok ? "no answer" : result.error}`, kind, fields, settings));
  return call.read(result.status, result.responseBody ?? "");
}

const SETUP_TIMEOUT_MS = 10_000;

/** What a service kind's value holds, for the dashboard's hints. */
export function serviceHelp(kind: ServiceKind): string {
  return SERVICE_KIND_MODULES[kind].help;
}

/** The kinds as the HTTP edge receives them (AppDeps.serviceKinds), with this server's settings. */
export function serviceKindsOf(settings: ServiceSettings) {
  return {
    parse: (kind: ServiceKind, value: unknown) => parseServiceValue(kind, value, settings),
    help: serviceHelp,
    form: (kind: ServiceKind) => SERVICE_KIND_MODULES[kind].form,
    operatorOnly: (kind: ServiceKind) => SERVICE_KIND_MODULES[kind].operatorOnly === true,
    unavailable: (kind: ServiceKind) => {
      const module = SERVICE_KIND_MODULES[kind];
      const missing = missingSetting(settings, module.needs ?? []);
      return module.enabled?.(settings) ?? (missing === null ? null : `${missing} is not set on this server`);
    },
    prepare: (kind: ServiceKind, fields: ServiceFields) => prepareServiceValue(kind, fields, settings),
  };
}
