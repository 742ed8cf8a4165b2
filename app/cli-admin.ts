// The CLI's plain admin commands (project, user, channel, outbox, prune): each one admin API request, sent
// through the admin client (app/admin-client.ts) to the running server or in-process on a stopped DATA_DIR.
import type { JsonObject } from "../http/body.ts";
import type { AdminClient } from "./admin-client.ts";
import type { Args } from "./cli-args.ts";
import { allowedOptions, COMMAND_OPTIONS, UsageError } from "./cli-args.ts";

/** One admin operation: the admin API request that performs it. */
export type Operation = {
  readonly method: "GET" | "POST" | "PUT";
  readonly path: string;
  readonly body?: JsonObject;
  readonly passwordFromStdin?: boolean;
};

/** The admin API request of a plain admin command; a usage error for anything else. */
export function operationOf(args: Args): Operation {
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
export async function passwordOfStdin(): Promise<string | null> {
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

/** Sends the operation through `client` (closed after), answering its status and JSON. */
export async function runOperation(op: Operation, client: AdminClient): Promise<{ status: number; json: unknown }> {
  try {
    return await client.request(op.method, op.path, op.body);
  } finally {
    await client.close();
  }
}
