// Which parts of a channel's value are secrets that `hcd export` leaves out of the file (as `${NAME}`):
// chat and webhook URLs (they carry the token that lets anyone post), each kind's own secret fields
// (notify/kinds/: keys and tokens), an ntfy token, and webhook headers that carry credentials.
import type { ServiceKind } from "../../engine/model.ts";
import { SERVICE_KINDS } from "../../engine/model.ts";
import { SERVICE_KIND_MODULES } from "../../notify/kinds/index.ts";

/** A secret inside a value: where (no steps: the whole value) and what to call it. */
export type SecretField = { readonly leaf: readonly (string | number)[]; readonly label: string };

/** Header names whose values are credentials. */
const CREDENTIAL_HEADER = /auth|token|key|secret|signature|cookie|pass/i;

/** The secrets in a channel's value as the admin API shows it (http/present.ts presentChannelValue). */
export function secretFieldsOf(kind: string, value: unknown): SecretField[] {
  const present = (v: unknown) => typeof v === "string" && v !== "";
  const object = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
  switch (kind) {
    case "email":
    case "group":
      return [];
    case "slack":
    case "discord":
      return present(value) ? [{ leaf: [], label: "url" }] : [];
    case "webhook": {
      if (object === null) return present(value) ? [{ leaf: [], label: "url" }] : [];
      const fields: SecretField[] = [];
      for (const direction of ["down", "up"]) {
        if (present(object[`url_${direction}`])) fields.push({ leaf: [`url_${direction}`], label: `url_${direction}` });
        const headers = object[`headers_${direction}`];
        if (typeof headers !== "object" || headers === null) continue;
        for (const [name, header] of Object.entries(headers)) {
          if (CREDENTIAL_HEADER.test(name) && present(header))
            fields.push({ leaf: [`headers_${direction}`, name], label: `${name} header ${direction}` });
        }
      }
      return fields;
    }
    case "ntfy":
      return object !== null && present(object.token) ? [{ leaf: ["token"], label: "token" }] : [];
    default: {
      if (!isServiceKind(kind) || object === null) return [];
      return SERVICE_KIND_MODULES[kind].secretFields.filter((name) => present(object[name])).map((name) => ({ leaf: [name], label: name }));
    }
  }
}

function isServiceKind(kind: string): kind is ServiceKind {
  return (SERVICE_KINDS as readonly string[]).includes(kind);
}
