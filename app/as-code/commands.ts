// `hcd export`, `hcd apply -f FILE` and `hcd schema` as app/cli.ts runs them: where the data is (--url
// through a running server, else a stopped DATA_DIR), reading the file, and the exit status.
import { readFileSync } from "node:fs";
import type { Settings } from "../config.ts";
import type { AdminClient } from "../admin-client.ts";
import { AdminError, dataDirAdminClient, httpAdminClient } from "../admin-client.ts";
import { applyFile } from "./apply.ts";
import { exportText, ExportError } from "./export.ts";
import { schemaText } from "./file-schema.ts";
import { FileError, readApplyFile } from "./read-file.ts";
import { PlanError } from "./plan-model.ts";

export const AS_CODE_HELP = `  hcd export [--project ID] [--include-secrets]
        prints projects, checks, channels, status pages and maintenance windows as YAML for hcd apply;
        stored secrets are written as \${NAME} placeholders unless --include-secrets
  hcd apply -f FILE [--dry-run] [--prune]
        makes hcd match FILE (- = standard input): shows the plan, then applies it change by change;
        \${NAME} in the file is read from the environment; --prune also deletes what the file leaves out
        of the sections it has; --dry-run stops after the plan
  hcd schema
        prints the JSON Schema of the file (docs/hcd-apply.schema.json)`;

/** Where the admin API is: a running server, or null for the stopped DATA_DIR. */
export type Remote = { readonly url: string; readonly token: () => string } | null;

async function withClient<T>(settings: Settings, remote: Remote, run: (client: AdminClient) => Promise<T>): Promise<T> {
  const client = remote === null ? await dataDirAdminClient(settings) : httpAdminClient(remote.url, remote.token());
  try {
    return await run(client);
  } finally {
    await client.close();
  }
}

export async function exportCommand(
  options: { project?: string; includeSecrets: boolean },
  settings: Settings,
  remote: Remote,
): Promise<number> {
  try {
    const text = await withClient(settings, remote, (client) =>
      exportText(client, { projectId: options.project, includeSecrets: options.includeSecrets, at: new Date() }),
    );
    process.stdout.write(text);
    return 0;
  } catch (error) {
    if (error instanceof ExportError || error instanceof AdminError) {
      console.error(`hcd: export: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

export async function applyCommand(
  options: { file: string; dryRun: boolean; prune: boolean },
  settings: Settings,
  remote: Remote,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  let text: string;
  try {
    text = readFileSync(options.file === "-" ? 0 : options.file, "utf8");
  } catch (error) {
    console.error(`hcd: apply: cannot read ${options.file}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  try {
    const file = readApplyFile(text, options.file === "-" ? "<stdin>" : options.file, env); // before any request: a bad file changes nothing
    const result = await withClient(settings, remote, (client) =>
      applyFile(client, file, { dryRun: options.dryRun, prune: options.prune, print: (line) => console.log(line) }),
    );
    return result.failed === null ? 0 : 1;
  } catch (error) {
    if (error instanceof FileError || error instanceof PlanError || error instanceof AdminError) {
      console.error(
        error instanceof PlanError
          ? `hcd: apply: the file cannot be applied here; nothing was changed:\n${error.message}`
          : `hcd: apply: ${error.message}`,
      );
      return 1;
    }
    throw error;
  }
}

export function schemaCommand(): number {
  process.stdout.write(schemaText());
  return 0;
}
