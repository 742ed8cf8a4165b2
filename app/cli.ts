// `hcd`: the admin operations from the command line, printing the admin API's JSON.
// Two ways to reach the data:
//   - with --url (or HCD_URL): through the running server's admin API (token: --token, ADMIN_TOKEN,
//     or DATA_DIR/admin-token). Use this whenever the server is running: it owns the data while it runs.
//   - without: directly on DATA_DIR through an in-process pool, for when the server is stopped.
// Both paths send the same admin API request to the same app (over HTTP, or in-process), so they
// validate and answer alike.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, readSettings } from "./config.ts";
import { dataDirAdminClient, httpAdminClient } from "./admin-client.ts";
import type { Args } from "./cli-args.ts";
import { allowedOptions, argsOf, UsageError } from "./cli-args.ts";
import { operationOf, passwordOfStdin, runOperation } from "./cli-admin.ts";
import type { Settings } from "./config.ts";
import { VERSION } from "./version.ts";
import { withSecretFiles } from "./secret-files.ts";
import { REPLAY_HELP, runReplay } from "./cli-replay.ts";
import { backupCommand, restoreCommand } from "./cli-backup.ts";
import { runSimulate, SIMULATE_HELP } from "./cli-simulate.ts";
import { repairCommand } from "./cli-repair.ts";
import { IMPORT_HELP, importCommand, ImportUsageError } from "./import/cli-import.ts";
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
    const answer = await runOperation(op, url ? httpAdminClient(url, adminTokenOf(args, settings)) : await dataDirAdminClient(settings));
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
