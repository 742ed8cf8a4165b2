// The CLI's arguments: each command's own options (a misspelt or foreign one is a usage error, never
// ignored), read with node:util's parseArgs, strict.
import { parseArgs } from "node:util";
import { IMPORT_FLAGS, IMPORT_OPTIONS } from "./import/cli-import.ts";

export type Args = { readonly words: readonly string[]; readonly options: Readonly<Record<string, string | undefined>> };

/** A command line the CLI cannot run: told with the help, exit status 2. */
export class UsageError extends Error {}

/** Options every command takes: where the data is. */
export const COMMON_OPTIONS = ["url", "token"] as const;

/** Each command's own options; a misspelt or foreign option is a usage error, never ignored. */
export const COMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  "project create": ["name", "check-limit", "ping-log-limit", "ping-body-limit"],
  "project list": [],
  "project mute": ["project", "until", "clear"],
  "user create": ["email", "admin"],
  "user list": [],
  "channel add": ["project", "kind", "value", "name"],
  "channel update": ["project", "channel", "value", "name"],
  "channel list": ["project"],
  outbox: [],
  prune: ["before"],
  simulate: [
    "check",
    "timeout",
    "grace",
    "schedule",
    "tz",
    "failure-threshold",
    "max-duration",
    "min-duration",
    "max-runs-per-period",
    "alert-on-overlap",
    "since",
    "key",
  ],
  replay: [],
  backup: ["out"],
  restore: ["in", "data-dir"],
  repair: ["data-dir"],
  import: IMPORT_OPTIONS,
  export: ["project", "include-secrets"],
  apply: ["file", "dry-run", "prune"],
  schema: [],
};

/** Options that take no value. */
const FLAGS = new Set<string>(["admin", "clear", "include-secrets", "dry-run", "prune", ...IMPORT_FLAGS]);

/** Options with a one-letter form. */
const SHORT: Readonly<Record<string, string>> = { file: "f" };

/** Returns the command words and options of argv (node:util's parseArgs, strict). */
export function argsOf(argv: readonly string[]): Args | "help" {
  const known = new Set<string>([...COMMON_OPTIONS, ...Object.values(COMMAND_OPTIONS).flat()]);
  const options = Object.fromEntries(
    [...known].map((name) => [
      name,
      { type: FLAGS.has(name) ? ("boolean" as const) : ("string" as const), ...(SHORT[name] ? { short: SHORT[name] } : {}) },
    ]),
  );
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (parsed.values.help === true) return "help";
  // a flag given reads as "" (present), like an option with a value; absent stays undefined
  const values = Object.fromEntries(
    Object.entries(parsed.values)
      .filter(([name]) => name !== "help")
      .map(([name, value]) => [name, value === true ? "" : value === false ? undefined : value]),
  );
  return { words: parsed.positionals, options: values };
}

/** Refuses any option given that `command` does not take. */
export function allowedOptions(command: string, args: Args): void {
  const allowed = COMMAND_OPTIONS[command] ?? [];
  for (const [name, value] of Object.entries(args.options)) {
    if (value !== undefined && !allowed.includes(name) && !(COMMON_OPTIONS as readonly string[]).includes(name)) {
      throw new UsageError(`${command} takes no --${name}`);
    }
  }
}
