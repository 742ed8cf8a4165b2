// `hcd import ...` run in the test's own process (app/cli.ts runCli): its exit status, the JSON summary it
// printed on stdout, and its progress lines on stderr.
import { runCli } from "../../app/cli.ts";

export type ImportSummary = {
  projects: number;
  checks: number;
  channels: number;
  users: number;
  pings: number;
  flips: number;
  skipped: { kind: string; name: string; reason: string }[];
};

export async function hcdImport(
  args: string[],
  env: Record<string, string>,
): Promise<{ status: number; summary: ImportSummary | null; stderr: string }> {
  const printed: string[] = [],
    errors: string[] = [];
  const [log, error] = [console.log, console.error];
  console.log = (text: string) => printed.push(text);
  console.error = (text: string) => errors.push(text);
  try {
    const status = await runCli(["import", "healthchecks", ...args], env);
    return { status, summary: printed.length === 0 ? null : (JSON.parse(printed.join("\n")) as ImportSummary), stderr: errors.join("\n") };
  } finally {
    [console.log, console.error] = [log, error];
  }
}

/** The counts of a summary, without its skipped list. */
export function counts(summary: ImportSummary | null): Omit<ImportSummary, "skipped"> | null {
  if (summary === null) return null;
  const { skipped: _skipped, ...rest } = summary;
  return rest;
}
