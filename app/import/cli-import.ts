// `hcd import healthchecks`: from a Healthchecks API (--from, --api-key) or database (--db), through the
// admin API of a running server (--url) or of a stopped DATA_DIR; progress on stderr, the summary as JSON
// on stdout (CONTRACT "Moving in"). Exit status: 0 done (skipped items are listed), 1 failed, 2 usage.
import type { Settings } from "../config.ts";
import type { AdminClient } from "../admin-client.ts";
import { dataDirAdminClient, httpAdminClient } from "../admin-client.ts";
import { applySource, ImportError } from "./apply.ts";
import { readApi } from "./healthchecks-api.ts";
import { readDatabase } from "./healthchecks-db.ts";
import type { Source } from "./model.ts";
import { openReferenceDb } from "./reference-db.ts";
import { RowError } from "./reference-values.ts";
import { SourceError } from "./source-api.ts";

export const IMPORT_HELP = `  hcd import healthchecks --from URL --api-key KEY [--ping-key KEY] [--project ID] [--history] [--dry-run]
        copies a Healthchecks project through its API (v1-v3; healthchecks.io or self-hosted, or another hcd)
        into a new hcd project (or --project): checks keep their uuids (ping URLs), integrations come as
        stubs needing their settings; --ping-key keeps slug URLs; --history brings pings and flips
  hcd import healthchecks --db FILE|postgres://... [--secret-key KEY] [--dry-run]
        copies a whole Healthchecks instance from its database (SQLite file or PostgreSQL): projects and
        their keys, checks, integrations with their settings, users and roles, pings and flips;
        --secret-key (its SECRET_KEY) keeps its hashed API keys working
        (the keys may also come from HEALTHCHECKS_API_KEY and HEALTHCHECKS_SECRET_KEY, kept out of ps)
        Both print progress on stderr and {"projects", "checks", "channels", "users", "pings", "flips",
        "skipped"} on stdout; a second run creates nothing new; --dry-run changes nothing`;

export const IMPORT_OPTIONS = ["from", "api-key", "ping-key", "project", "history", "dry-run", "db", "secret-key"] as const;
export const IMPORT_FLAGS = ["history", "dry-run"] as const;

/** A usage mistake: the CLI prints it with the help, exit status 2. */
export class ImportUsageError extends Error {}

export type ImportTarget = { readonly url: string | null; readonly token: () => string; readonly settings: () => Settings };

/** Runs `hcd import healthchecks` with its options; returns the exit status. */
export async function importCommand(
  words: readonly string[],
  options: Readonly<Record<string, string | undefined>>,
  env: Readonly<Record<string, string | undefined>>,
  target: ImportTarget,
): Promise<number> {
  if (words[0] !== "healthchecks")
    throw new ImportUsageError(
      words.length === 0 ? "import needs a source: import healthchecks ..." : `cannot import from ${words[0]} (only: healthchecks)`,
    );
  if (words.length > 1) throw new ImportUsageError(`unexpected argument: ${words[1]}`);
  const fromApi = options.from !== undefined,
    fromDb = options.db !== undefined;
  if (fromApi === fromDb) throw new ImportUsageError("import healthchecks needs one of --from URL (with --api-key) or --db FILE|URL");
  const only = (allowed: readonly string[]) => {
    for (const name of IMPORT_OPTIONS)
      if (options[name] !== undefined && !allowed.includes(name))
        throw new ImportUsageError(`--${name} does not go with --${fromApi ? "from" : "db"}`);
  };
  const progress = (line: string) => console.error(`hcd import: ${line}`);
  const dryRun = options["dry-run"] !== undefined;
  let read: () => Promise<Source>;
  let close = async () => {};
  if (fromApi) {
    only(["from", "api-key", "ping-key", "project", "history", "dry-run"]);
    const apiKey = options["api-key"] ?? env.HEALTHCHECKS_API_KEY;
    if (apiKey === undefined || apiKey === "")
      throw new ImportUsageError("--from needs --api-key (the project's read-write key), or HEALTHCHECKS_API_KEY");
    read = () =>
      readApi({
        from: options.from!,
        apiKey,
        pingKey: options["ping-key"] ?? null,
        project: options.project ?? null,
        history: options.history !== undefined,
        progress,
      });
  } else {
    only(["db", "secret-key", "dry-run"]);
    const secretKey = options["secret-key"] ?? env.HEALTHCHECKS_SECRET_KEY ?? null;
    read = async () => {
      const db = await openReferenceDb(options.db!);
      close = () => db.close();
      progress(`reading ${db.label}`);
      return readDatabase(db, { secretKey: secretKey === "" ? null : secretKey, progress });
    };
  }
  let admin: AdminClient | null = null;
  try {
    const source = await read();
    admin = target.url !== null ? httpAdminClient(target.url, target.token()) : await dataDirAdminClient(target.settings());
    const summary = await applySource(source, admin, { dryRun, progress });
    console.log(JSON.stringify(summary, null, 2));
    progress(
      `${dryRun ? "dry run, nothing changed: " : ""}${summary.projects} projects, ${summary.checks} checks, ${summary.channels} integrations, ${summary.users} users, ${summary.pings} pings, ${summary.flips} flips; ${summary.skipped.length} skipped`,
    );
    return 0;
  } catch (error) {
    if (error instanceof SourceError || error instanceof ImportError || error instanceof RowError) {
      console.error(`hcd import: ${error.message}`);
      return 1;
    }
    throw error;
  } finally {
    await admin?.close();
    await close();
  }
}
