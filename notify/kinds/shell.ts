// Shell: runs a command on this server for a down or an up (reference hc/integrations/shell), only with
// SHELL_ENABLED=true and configured by the operator alone (operatorOnly). The command is split into its
// arguments once, here, and run as written without a shell; the check's facts (its name and tags, which
// members write) reach it only as environment variables (NAME, CODE, STATUS, NOW, SLUG, TAGS, TAG1...),
// never substituted into the command: a script run with `/bin/sh -c '... "$NAME" ...'` reads them as data.
import { invalid, ok } from "../../engine/outcome.ts";
import type { Outcome } from "../../engine/outcome.ts";
import type { ServiceKindModule, ServiceMessage } from "./kind.ts";
import { isObject } from "./kind.ts";

const CMD_MAX = 1000;

/**
 * Splits a command line into arguments as a POSIX shell's quoting would (single and double quotes,
 * backslash escapes), with nothing else of a shell: no variables, globs, pipes or redirections.
 */
export function splitArguments(line: string): Outcome<string[]> {
  const args: string[] = [];
  let current: string | null = null;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = null;
      else current += c;
    } else if (c === "\\") {
      const next = line[++i];
      if (next === undefined) return invalid("value", "ends with a lone backslash");
      current = (current ?? "") + (quote === '"' && !'"\\$`'.includes(next) ? `\\${next}` : next);
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else current += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      current ??= "";
    } else if (/\s/.test(c)) {
      if (current !== null) args.push(current);
      current = null;
    } else if ("|&;<>()`".includes(c)) {
      return invalid("value", `has "${c}": commands run without a shell (no pipes, lists or redirections); quote it to pass it on`);
    } else {
      current = (current ?? "") + c;
    }
  }
  if (quote !== null) return invalid("value", "has an unclosed quote");
  if (current !== null) args.push(current);
  return ok(args);
}

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "ash", "busybox"]);

function commandOf(value: Record<string, unknown>, field: "cmd_down" | "cmd_up"): Outcome<string> {
  const cmd = value[field] ?? "";
  if (typeof cmd !== "string" || cmd.length > CMD_MAX)
    return invalid(`value.${field}`, `must be a string of at most ${CMD_MAX} characters`);
  const args = splitArguments(cmd);
  if (!args.ok) return invalid(`value.${field}`, args.failure.code === "invalid" ? args.failure.reason : "is not a command");
  if (args.value.length > 0 && args.value[0].includes("$"))
    return invalid(`value.${field}`, "must start with the program to run, not a placeholder");
  // placeholders are never replaced in the command: outside a shell's script they would reach the program as written
  const program = (args.value[0] ?? "").split("/").pop() ?? "";
  if (!SHELLS.has(program) && args.value.slice(1).some((arg) => /\$[A-Z]/.test(arg))) {
    return invalid(
      `value.${field}`,
      `passes a placeholder to ${program}, which would get it as written: the check's facts are environment variables (NAME, CODE, STATUS, NOW, SLUG, TAGS, TAG1...); read them in a script, e.g. /bin/sh -c '${args.value
        .join(" ")
        .replaceAll("'", "")
        .replace(/\$([A-Z][A-Z0-9]*)/g, '"$$$1"')}'`,
    );
  }
  return ok(cmd.trim());
}

/** The facts as environment variables (the reference's placeholders without their "$"). */
function variables(m: ServiceMessage): [key: string, value: string][] {
  const tags = m.check.tags.split(" ").filter((tag) => tag !== "");
  return [
    ["CODE", m.check.uuid],
    ["STATUS", m.direction],
    ["NOW", m.at],
    ["NAME", m.check.name],
    ["SLUG", m.check.slug],
    ["TAGS", m.check.tags],
    ...tags.map((tag, i): [string, string] => [`TAG${i + 1}`, tag]),
  ];
}

export const shell: ServiceKindModule = {
  help: '{"cmd_down": "/bin/sh -c \'page-oncall \\"$NAME is $STATUS\\"\'", "cmd_up": ""}: run as written, without a shell of its own; the check\'s facts are environment variables (NAME, CODE, STATUS, NOW, SLUG, TAGS, TAG1...); an empty command does nothing (only with SHELL_ENABLED=true, added by the operator)',
  form: [
    { name: "cmd_down", label: "Command when down", input: "text", required: false },
    { name: "cmd_up", label: "Command when up", input: "text", required: false },
  ],
  secretFields: [],
  operatorOnly: true,
  enabled: (settings) => (settings.shellEnabled ? null : "shell notifications are off on this server (SHELL_ENABLED)"),
  parse(value) {
    if (!isObject(value)) return invalid("value", "must be an object with cmd_down and cmd_up");
    const down = commandOf(value, "cmd_down");
    if (!down.ok) return down;
    const up = commandOf(value, "cmd_up");
    if (!up.ok) return up;
    if (down.value === "" && up.value === "") return invalid("value", "needs cmd_down or cmd_up");
    return ok({ cmd_down: down.value, cmd_up: up.value });
  },
  render(fields, m, settings) {
    if (!settings.shellEnabled) throw new Error("SHELL_ENABLED is not true on this server");
    const args = splitArguments(String(m.direction === "up" ? fields.cmd_up : fields.cmd_down));
    if (!args.ok) throw new Error("the command no longer parses");
    if (args.value.length === 0) return [];
    return [{ kind: "command", argv: args.value, env: Object.fromEntries(variables(m)) }];
  },
};
