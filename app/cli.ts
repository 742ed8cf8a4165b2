// `hcd`: the admin operations from the command line, printing the admin API's JSON.
// Two ways to reach the data:
//   - with --url (or HCD_URL): through the running server's admin API (token: --token, ADMIN_TOKEN,
//     or DATA_DIR/admin-token). Use this whenever the server is running: it owns the data while it runs.
//   - without: directly on DATA_DIR through an in-process pool, for when the server is stopped.
// Both paths send the same admin API request to the same app (over HTTP, or in-process), so they
// validate and answer alike.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { JsonObject } from "../http/body.ts";
import { ConfigError, readSettings } from "./config.ts";
import { openInProcessAdmin } from "./in-process-admin.ts";
import type { Settings } from "./config.ts";
import { VERSION } from "./version.ts";
import { withSecretFiles } from "./secret-files.ts";
import { REPLAY_HELP, runReplay } from "./cli-replay.ts";
import { backupCommand, restoreCommand } from "./cli-backup.ts";
import { runSimulate, SIMULATE_HELP } from "./cli-simulate.ts";
import { repairCommand } from "./cli-repair.ts";
import { IMPORT_FLAGS, IMPORT_HELP, IMPORT_OPTIONS, importCommand, ImportUsageError } from "./import/cli-import.ts";
import { applyCommand, AS_CODE_HELP, exportCommand, schemaCommand } from "./as-code/commands.ts";

const HELP = `hcd: admin commands for the hcd monitoring service

Usage:
  hcd project create --name NAME [--check-limit N] [--ping-log-limit N] [--ping-body-limit BYTES]
  hcd project list
  hcd project mute --project ID (--until ISO-8601 | --clear)
        a maintenance window: no notification of the project's checks until then; --clear ends it
  hcd user create --email EMAIL [--admin]
        a dashboard user (--admin: an instance admin, who does all the admin token does); the password is
        read from standard input (echo "$PASSWORD" | hcd user create ...), else an invitation link is printed
  hcd user list
  hcd channel add --project ID --kind KIND --value VALUE [--name NAME]   (KIND: docs/notifications.md)
        VALUE is a string (address, URL, topic URL) or a JSON object (webhook and ntfy specs)
  hcd channel update --project ID --channel CHANNEL-ID --value VALUE [--name NAME]
        a new value (as channel add takes it for the channel's kind) and name; the kind stays
  hcd channel list --project ID
        the project's channels with their delivery state: pending, failed (given up), last_error
  hcd outbox
        every notification not yet delivered: attempts, next_attempt, last_error, given_up
  hcd prune [--before ISO-8601]
        removes flips older than --before (default: the start of the month two months back)
  hcd backup --out FILE
        a consistent copy of the whole store, taken while the server serves (with --url) or from a
        stopped DATA_DIR; FILE is replaced only by a complete, checked backup
  hcd restore --in FILE --data-dir DIR
        unpacks a backup into DIR (new or empty); start hcd with DATA_DIR=DIR
  hcd repair --data-dir DIR
        on a stopped DATA_DIR that hcd refuses to start on (a damaged log file): moves the damage into
        DIR/damaged/ and prints what was lost (file, offset, bytes, records_lost); deletes nothing
${AS_CODE_HELP}
${SIMULATE_HELP}
${REPLAY_HELP}
${IMPORT_HELP}
  hcd --help
  hcd --version
        prints this release's version (the running server's: the X-Hcd-Version header of /api/v3/status/)

Where the data is:
  --url URL      the running server (or HCD_URL); the change goes through its admin API
  --token TOKEN  its admin token (or ADMIN_TOKEN, else DATA_DIR/admin-token)
  without --url  DATA_DIR (default ./data) is opened directly: only while the server is stopped

Every command prints the admin API's JSON. Exit status: 0 ok, 1 refused or failed, 2 usage error.`;

type Args = { readonly words: readonly string[]; readonly options: Readonly<Record<string, string | undefined>> };

class UsageError extends Error {}

/** Options every command takes: where the data is. */
const COMMON_OPTIONS = ["url", "token"] as const;

/** Each command's own options; a misspelt or foreign option is a usage error, never ignored. */
const COMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = {
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
function argsOf(argv: readonly string[]): Args | "help" {
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
function allowedOptions(command: string, args: Args): void {
  const allowed = COMMAND_OPTIONS[command] ?? [];
  for (const [name, value] of Object.entries(args.options)) {
    if (value !== undefined && !allowed.includes(name) && !(COMMON_OPTIONS as readonly string[]).includes(name)) {
      throw new UsageError(`${command} takes no --${name}`);
    }
  }
}

/** One admin operation: the admin API request that performs it. */
type Operation = {
  readonly method: "GET" | "POST" | "PUT";
  readonly path: string;
  readonly body?: JsonObject;
  readonly passwordFromStdin?: boolean;
};

function operationOf(args: Args): Operation {
  const [noun, verb, ...rest] = args.words;
  const command = [noun, verb].filter((w) => w !== undefined).join(" ");
  const allowed = COMMAND_OPTIONS[command];
  if (
    allowed === undefined ||
    ["simulate", "replay", "backup", "restore", "repair", "import", "export", "apply", "schema"].includes(command)
  ) {
    throw new UsageError(command === "" ? "no command given" : `unknown command: ${command}`);
  }
  if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
  allowedOptions(command, args);
  const opt = (name: string) => args.options[name];
  const int = (name: string): number | undefined => {
    const raw = opt(name);
    if (raw === undefined) return undefined;
    if (!/^\d+$/.test(raw)) throw new UsageError(`--${name} must be a non-negative integer`);
    return Number(raw);
  };
  const project = () => {
    const id = opt("project");
    if (id === undefined) throw new UsageError(`${command} needs --project`);
    return `/admin/v1/projects/${encodeURIComponent(id)}/channels`;
  };
  switch (command) {
    case "project create": {
      const body: Record<string, unknown> = { name: opt("name") };
      for (const [flag, field] of [
        ["check-limit", "check_limit"],
        ["ping-log-limit", "ping_log_limit"],
        ["ping-body-limit", "ping_body_limit"],
      ]) {
        const value = int(flag);
        if (value !== undefined) body[field] = value;
      }
      if (body.name === undefined) throw new UsageError("project create needs --name");
      return { method: "POST", path: "/admin/v1/projects", body };
    }
    case "project list":
      return { method: "GET", path: "/admin/v1/projects" };
    case "project mute": {
      const id = opt("project");
      const until = opt("until");
      if (id === undefined || (until === undefined) === (args.options.clear === undefined)) {
        throw new UsageError("project mute needs --project and one of --until or --clear");
      }
      return { method: "POST", path: `/admin/v1/projects/${encodeURIComponent(id)}/mute`, body: { until: until ?? null } };
    }
    case "user create": {
      if (opt("email") === undefined) throw new UsageError("user create needs --email");
      return {
        method: "POST",
        path: "/admin/v1/users",
        body: { email: opt("email"), admin: args.options.admin !== undefined },
        passwordFromStdin: true,
      };
    }
    case "user list":
      return { method: "GET", path: "/admin/v1/users" };
    case "channel add": {
      const raw = opt("value");
      if (opt("kind") === undefined || raw === undefined) throw new UsageError("channel add needs --project, --kind and --value");
      const body: Record<string, unknown> = { kind: opt("kind"), value: valueOf(raw) };
      if (opt("name") !== undefined) body.name = opt("name");
      return { method: "POST", path: project(), body };
    }
    case "channel update": {
      const channel = opt("channel");
      const raw = opt("value");
      if (channel === undefined || raw === undefined) throw new UsageError("channel update needs --project, --channel and --value");
      const body: Record<string, unknown> = { value: valueOf(raw) };
      if (opt("name") !== undefined) body.name = opt("name");
      return { method: "PUT", path: `${project()}/${encodeURIComponent(channel)}`, body };
    }
    case "channel list":
      return { method: "GET", path: project() };
    case "outbox":
      return { method: "GET", path: "/admin/v1/outbox" };
    default: {
      // prune
      const body: Record<string, unknown> = {};
      if (opt("before") !== undefined) body.before = opt("before");
      return { method: "POST", path: "/admin/v1/prune", body };
    }
  }
}

/**
 * The password piped to standard input (its one trailing line end dropped), or null when standard input is
 * a terminal or empty (then the user gets an invitation link). Never an argument: arguments are visible to
 * every user of the machine in the process list.
 */
async function passwordOfStdin(): Promise<string | null> {
  if (process.stdin.isTTY === true) return null;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
  return text === "" ? null : text;
}

/** A --value that parses as a JSON object or string is taken as JSON; anything else is the string itself. */
function valueOf(raw: string): unknown {
  if (!/^\s*[{"]/.test(raw)) return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** Answers an operation through the running server's admin API. */
async function overHttp(op: Operation, url: string, token: string): Promise<{ status: number; json: unknown }> {
  return answerOf(await fetch(new URL(op.path, url.endsWith("/") ? url : url + "/"), requestInit(op, token)));
}

/** Answers an operation on a stopped server's DATA_DIR: the same admin API, served in-process (app/in-process-admin.ts). */
async function direct(op: Operation, settings: Settings): Promise<{ status: number; json: unknown }> {
  const admin = await openInProcessAdmin(settings);
  try {
    return answerOf(await admin.fetch(new Request(new URL(op.path, "http://localhost/"), requestInit(op, admin.token))));
  } finally {
    await admin.close();
  }
}

function requestInit(op: Operation, token: string): RequestInit {
  return {
    method: op.method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: op.body === undefined ? undefined : JSON.stringify(op.body),
  };
}

async function answerOf(res: Response): Promise<{ status: number; json: unknown }> {
  const text = await res.text();
  try {
    return { status: res.status, json: JSON.parse(text) };
  } catch {
    return { status: res.status, json: { error: text } };
  }
}

function adminTokenOf(args: Args, settings: Settings): string {
  const token = args.options.token ?? settings.adminToken;
  if (token !== undefined && token !== null) return token;
  try {
    return readFileSync(join(settings.dataDir, "admin-token"), "utf8").trim();
  } catch {
    throw new UsageError("no admin token: pass --token or set ADMIN_TOKEN");
  }
}

/** Runs the CLI on argv; returns the exit status. */
export async function runCli(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Promise<number> {
  try {
    if (argv.length === 1 && argv[0] === "--version") {
      console.log(`hcd ${VERSION}`);
      return 0;
    }
    const args = argsOf(argv);
    if (args === "help" || args.words.length === 0) {
      console.log(HELP);
      return args === "help" ? 0 : 2;
    }
    if (args.words[0] === "replay") {
      allowedOptions("replay", args);
      return runReplay(args.words.slice(1));
    }
    if (args.words[0] === "repair") {
      allowedOptions("repair", args);
      if (args.words.length > 1) throw new UsageError(`unexpected argument: ${args.words[1]}`);
      const dataDir = args.options["data-dir"];
      if (dataDir === undefined) throw new UsageError("repair needs --data-dir DIR");
      return await repairCommand(dataDir);
    }
    if (args.words[0] === "restore" || args.words[0] === "backup") {
      const [noun, ...more] = args.words;
      allowedOptions(noun, args);
      if (more.length > 0) throw new UsageError(`unexpected argument: ${more[0]}`);
      if (noun === "restore") {
        const file = args.options.in,
          dataDir = args.options["data-dir"];
        if (file === undefined || dataDir === undefined) throw new UsageError("restore needs --in FILE and --data-dir DIR");
        return await restoreCommand(file, dataDir);
      }
      const out = args.options.out;
      if (out === undefined) throw new UsageError("backup needs --out FILE");
      const settings = readSettings(withSecretFiles(env));
      const url = args.options.url ?? env.HCD_URL;
      return await backupCommand(out, settings, url ? { url, token: () => adminTokenOf(args, settings) } : null);
    }
    if (args.words[0] === "import") {
      allowedOptions("import", args);
      const url = args.options.url ?? env.HCD_URL ?? null;
      return await importCommand(args.words.slice(1), args.options, env, {
        url,
        token: () => adminTokenOf(args, readSettings(withSecretFiles(env))),
        settings: () => readSettings(withSecretFiles(env)),
      });
    }
    if (args.words[0] === "export" || args.words[0] === "apply" || args.words[0] === "schema") {
      const [noun, ...more] = args.words;
      allowedOptions(noun, args);
      if (more.length > 0) throw new UsageError(`unexpected argument: ${more[0]}`);
      if (noun === "schema") return schemaCommand();
      const settings = readSettings(env);
      const url = args.options.url ?? env.HCD_URL;
      const remote = url ? { url, token: () => adminTokenOf(args, settings) } : null;
      if (noun === "export")
        return await exportCommand(
          { project: args.options.project, includeSecrets: args.options["include-secrets"] !== undefined },
          settings,
          remote,
        );
      const file = args.options.file;
      if (file === undefined) throw new UsageError("apply needs -f FILE (- for standard input)");
      return await applyCommand(
        { file, dryRun: args.options["dry-run"] !== undefined, prune: args.options.prune !== undefined },
        settings,
        remote,
        env,
      );
    }
    if (args.words[0] === "simulate") {
      allowedOptions("simulate", args);
      if (args.words.length > 1) throw new UsageError(`unexpected argument: ${args.words[1]}`);
      return await runSimulate(args.options, env);
    }
    const parsed = operationOf(args);
    const password = parsed.passwordFromStdin === true ? await passwordOfStdin() : null;
    const op = password === null ? parsed : { ...parsed, body: { ...parsed.body, password } };
    const settings = readSettings(withSecretFiles(env));
    const url = args.options.url ?? env.HCD_URL;
    const answer = url ? await overHttp(op, url, adminTokenOf(args, settings)) : await direct(op, settings);
    console.log(JSON.stringify(answer.json, null, 2));
    return answer.status < 400 ? 0 : 1;
  } catch (error) {
    if (error instanceof UsageError || error instanceof ImportUsageError) {
      console.error(`hcd: ${error.message}\n\n${HELP}`);
      return 2;
    }
    console.error(`hcd: ${error instanceof ConfigError || error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
