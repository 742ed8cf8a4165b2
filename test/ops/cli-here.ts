// The CLI run in the test's own process (app/cli.ts runCli), its stdout dropped and its stderr kept.
import { runCli } from "../../app/cli.ts";

/** Runs the CLI in this process; returns its exit status and what it wrote to stderr. */
export async function hcdHere(args: string[], env: Record<string, string>): Promise<{ status: number; stderr: string }> {
  const errors: string[] = [];
  const [log, error] = [console.log, console.error];
  console.log = () => {};
  console.error = (text: string) => errors.push(text);
  try {
    return { status: await runCli(args, env), stderr: errors.join("\n") };
  } finally {
    [console.log, console.error] = [log, error];
  }
}
