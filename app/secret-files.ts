// `<NAME>_FILE` for every secret setting (CONTRACT.md "Container image and compose files"): the value is
// read from the file it names (a container's secret), its trailing line ending cut, before the settings are read.
import { readFileSync } from "node:fs";
import { SECRET_SERVICE_SETTINGS } from "../notify/kinds/settings.ts";
import { ConfigError } from "./config.ts";

/** The settings that may come from a file: every one that holds a password, token or key. */
export const SECRET_SETTINGS: readonly string[] = [
  "ADMIN_TOKEN",
  "SMTP_URL",
  "METRICS_TOKEN",
  "OIDC_CLIENT_SECRET",
  "BADGE_SECRET",
  "NATS_URL",
  ...SECRET_SERVICE_SETTINGS,
];

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Returns `env` with each `<NAME>_FILE` that is set replaced by `<NAME>` holding the file's content, less
 * its trailing line endings. Throws ConfigError naming every variable at fault: both `<NAME>` and
 * `<NAME>_FILE` set, a file that can't be read, or one that is empty. Messages never hold a value.
 */
export function withSecretFiles(env: Env, read: (path: string) => string = (path) => readFileSync(path, "utf8")): Env {
  const problems: string[] = [];
  const resolved: Record<string, string | undefined> = { ...env };
  for (const name of SECRET_SETTINGS) {
    const path = env[`${name}_FILE`];
    if (path === undefined || path.trim() === "") continue;
    delete resolved[`${name}_FILE`];
    if (env[name] !== undefined && env[name].trim() !== "") {
      problems.push(`${name} and ${name}_FILE are both set: set one of them`);
      continue;
    }
    let content: string;
    try {
      content = read(path.trim());
    } catch (error) {
      problems.push(`${name}_FILE=${path.trim()}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      continue;
    }
    const value = content.replace(/[\r\n]+$/, "");
    if (value.trim() === "") problems.push(`${name}_FILE=${path.trim()}: the file is empty`);
    else resolved[name] = value;
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join("\n  ")}`);
  return resolved;
}
