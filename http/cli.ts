// `hcd`: the admin operations from the command line, printing the admin API's JSON.
// Two ways to reach the data:
//   - with --url (or HCD_URL): through the running server's admin API (token: --token, ADMIN_TOKEN,
//     or DATA_DIR/admin-token). Use this whenever the server is running: it owns the data while it runs.
//   - without: directly on DATA_DIR through an in-process pool, for when the server is stopped.
// Both paths validate with the same http/input.ts code and print the same http/present.ts JSON.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { systemClock } from "../engine/host/clock.ts";
import type { Pool } from "../engine/host/pool-api.ts";
import { createInProcessPool } from "../engine/host/pool.ts";
import type { Outcome } from "../engine/outcome.ts";
import { ConfigError, readSettings } from "./config.ts";
import type { Settings } from "./config.ts";
import { reasonOf } from "./errors.ts";
import type { JsonObject } from "./input.ts";
import { channelInputOf, projectInputOf, projectMuteOf, pruneBeforeOf } from "./input.ts";
import { isoSeconds, presentChannel, presentChannelStates, presentOutbox, presentProject } from "./present.ts";

const HELP = `hcd: admin commands for the hcd monitoring service

Usage:
  hcd project create --name NAME [--check-limit N] [--ping-log-limit N] [--ping-body-limit BYTES]
  hcd project list
  hcd project mute --project ID (--until ISO-8601 | --clear)
        a maintenance window: no notification of the project's checks until then; --clear ends it
  hcd channel add --project ID --kind email|webhook|slack|discord|ntfy --value VALUE [--name NAME]
        VALUE is a string (address, URL, topic URL) or a JSON object (webhook and ntfy specs)
  hcd channel list --project ID
        the project's channels with their delivery state: pending, failed (given up), last_error
  hcd outbox
        every notification not yet delivered: attempts, next_attempt, last_error, given_up
  hcd prune [--before ISO-8601]
        removes flips older than --before (default: the start of the month two months back)
  hcd --help

Where the data is:
  --url URL      the running server (or HCD_URL); the change goes through its admin API
  --token TOKEN  its admin token (or ADMIN_TOKEN, else DATA_DIR/admin-token)
  without --url  DATA_DIR (default ./data) is opened directly: only while the server is stopped

Every command prints the admin API's JSON. Exit status: 0 ok, 1 refused or failed, 2 usage error.`;

type Args = { readonly words: string[]; readonly options: Map<string, string> };

class UsageError extends Error {}

/** Returns the positional words and --option values of argv. */
function parseArgs(argv: readonly string[]): Args {
  const words: string[] = [];
  const options = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--help" || arg === "-h") {
      options.set("help", "");
    } else if (arg === "--clear") { // a flag: takes no value
      options.set("clear", "");
    } else if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      if (eq > 0) {
        options.set(arg.slice(2, eq), arg.slice(eq + 1));
      } else {
        const value = argv[i + 1];
        if (value === undefined) throw new UsageError(`${arg} needs a value`);
        options.set(arg.slice(2), value);
        i++;
      }
    } else {
      words.push(arg);
    }
  }
  return { words, options };
}

/** One admin operation: its HTTP form and its direct form, both answering JSON. */
type Operation = {
  readonly method: "GET" | "POST";
  readonly path: string;
  readonly body?: JsonObject;
  readonly direct: (pool: Pool) => Promise<Outcome<unknown>>;
};

function operationOf(args: Args): Operation {
  const [noun, verb, ...rest] = args.words;
  if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
  const opt = (name: string) => args.options.get(name);
  const int = (name: string): number | undefined => {
    const raw = opt(name);
    if (raw === undefined) return undefined;
    if (!/^\d+$/.test(raw)) throw new UsageError(`--${name} must be a non-negative integer`);
    return Number(raw);
  };
  const at = () => systemClock.now();
  const command = [noun, verb].filter((w) => w !== undefined).join(" ");
  switch (command) {
    case "project create": {
      const body: Record<string, unknown> = { name: opt("name") };
      for (const [flag, field] of [["check-limit", "check_limit"], ["ping-log-limit", "ping_log_limit"], ["ping-body-limit", "ping_body_limit"]]) {
        const value = int(flag);
        if (value !== undefined) body[field] = value;
      }
      if (body.name === undefined) throw new UsageError("project create needs --name");
      return {
        method: "POST", path: "/admin/v1/projects", body,
        direct: async (pool) => {
          const input = projectInputOf(body);
          return input.ok ? { ok: true, value: presentProject(await pool.createProject(input.value, at())) } : input;
        },
      };
    }
    case "project list":
      return {
        method: "GET", path: "/admin/v1/projects",
        direct: async (pool) => ({ ok: true, value: { projects: pool.listProjects().map(presentProject) } }),
      };
    case "project mute": {
      const project = opt("project");
      const until = opt("until");
      if (project === undefined || (until === undefined) === (opt("clear") === undefined)) {
        throw new UsageError("project mute needs --project and one of --until or --clear");
      }
      const body: Record<string, unknown> = { until: until ?? null };
      return {
        method: "POST", path: `/admin/v1/projects/${encodeURIComponent(project)}/mute`, body,
        direct: async (pool) => {
          const untilAt = projectMuteOf(body);
          if (!untilAt.ok) return untilAt;
          const muted = await pool.muteProject(project, untilAt.value, at());
          return muted.ok ? { ok: true, value: { muted_until: isoSeconds(muted.value.mutedUntilAt ?? null) } } : muted;
        },
      };
    }
    case "channel add": {
      const project = opt("project");
      const raw = opt("value");
      if (project === undefined || opt("kind") === undefined || raw === undefined) throw new UsageError("channel add needs --project, --kind and --value");
      const body: Record<string, unknown> = { kind: opt("kind"), value: valueOf(raw) };
      if (opt("name") !== undefined) body.name = opt("name");
      return {
        method: "POST", path: `/admin/v1/projects/${encodeURIComponent(project)}/channels`, body,
        direct: async (pool) => {
          if (!pool.listProjects().some((p) => p.id === project)) return { ok: false, failure: { code: "not_found", what: "project" } };
          const input = channelInputOf(body);
          if (!input.ok) return input;
          const added = await pool.addChannel(project, input.value, at());
          return added.ok ? { ok: true, value: presentChannel(added.value) } : added;
        },
      };
    }
    case "channel list": {
      const project = opt("project");
      if (project === undefined) throw new UsageError("channel list needs --project");
      return {
        method: "GET", path: `/admin/v1/projects/${encodeURIComponent(project)}/channels`,
        direct: async (pool) => {
          if (!pool.listProjects().some((p) => p.id === project)) return { ok: false, failure: { code: "not_found", what: "project" } };
          const [channels, outbox] = await Promise.all([pool.listChannels(project), pool.listOutbox()]);
          return { ok: true, value: presentChannelStates(channels, outbox.filter((entry) => entry.projectId === project)) };
        },
      };
    }
    case "outbox":
      return {
        method: "GET", path: "/admin/v1/outbox",
        direct: async (pool) => ({ ok: true, value: presentOutbox(await pool.listOutbox()) }),
      };
    case "prune": {
      const body: Record<string, unknown> = {};
      if (opt("before") !== undefined) body.before = opt("before");
      return {
        method: "POST", path: "/admin/v1/prune", body,
        direct: async (pool) => {
          const beforeAt = pruneBeforeOf(body, at());
          if (!beforeAt.ok) return beforeAt;
          return { ok: true, value: { pruned: await pool.pruneFlips(beforeAt.value), before: new Date(beforeAt.value).toISOString() } };
        },
      };
    }
    default:
      throw new UsageError(command === "" ? "no command given" : `unknown command: ${command}`);
  }
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

async function overHttp(op: Operation, url: string, token: string): Promise<{ status: number; json: unknown }> {
  const res = await fetch(new URL(op.path, url.endsWith("/") ? url : url + "/"), {
    method: op.method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: op.body === undefined ? undefined : JSON.stringify(op.body),
  });
  const text = await res.text();
  try {
    return { status: res.status, json: JSON.parse(text) };
  } catch {
    return { status: res.status, json: { error: text } };
  }
}

async function direct(op: Operation, settings: Settings): Promise<{ status: number; json: unknown }> {
  // The CLI applies no deadlines and sends no notifications (passive): the server does that when it
  // next starts. Commands still carry the real time.
  const pool = await createInProcessPool({
    dataDir: settings.dataDir, shards: 1, durability: "flush", clock: "virtual", startAt: Date.now(), passive: true,
    notify: { siteRoot: settings.siteRoot ?? `http://localhost:${settings.port}`, allowPrivateIps: settings.allowPrivateIps, smtpUrl: settings.smtpUrl },
  });
  try {
    const outcome = await op.direct(pool);
    return outcome.ok ? { status: 200, json: outcome.value } : { status: 400, json: { error: reasonOf(outcome.failure) } };
  } finally {
    await pool.close();
  }
}

function adminTokenOf(args: Args, settings: Settings): string {
  const token = args.options.get("token") ?? settings.adminToken;
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
    const args = parseArgs(argv);
    if (args.options.has("help") || args.words.length === 0) {
      console.log(HELP);
      return args.options.has("help") ? 0 : 2;
    }
    const op = operationOf(args);
    const settings = readSettings(env);
    const url = args.options.get("url") ?? env.HCD_URL;
    const answer = url ? await overHttp(op, url, adminTokenOf(args, settings)) : await direct(op, settings);
    console.log(JSON.stringify(answer.json, null, 2));
    return answer.status < 400 ? 0 : 1;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`hcd: ${error.message}\n\n${HELP}`);
      return 2;
    }
    console.error(`hcd: ${error instanceof ConfigError || error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
