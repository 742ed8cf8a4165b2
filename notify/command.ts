// The only notify code that starts a process: the shell kind's command, run from its argument vector
// with execFile (never through a shell), the check's facts in its environment, within a deadline.
import { execFile } from "node:child_process";
import type { CommandRun } from "./delivery.ts";
import type { SendResult } from "./delivery.ts";

const OUTPUT_MAX_BYTES = 64 * 1024; // what a command may print before it is stopped; nothing reads it

/** Runs the command; ok on exit status 0, else the reference's "Command returned exit code N". */
export function runCommand(run: CommandRun, timeoutMs: number): Promise<SendResult> {
  const [file, ...args] = run.argv;
  // only PATH and the locale of this process: the server's own secrets (ADMIN_TOKEN, tokens) stay out
  const env = { PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin", LANG: process.env.LANG ?? "C.UTF-8", ...run.env };
  return new Promise((resolve) => {
    execFile(file, args, { env, timeout: timeoutMs, maxBuffer: OUTPUT_MAX_BYTES, shell: false, windowsHide: true }, (error) => {
      if (error === null) return resolve({ ok: true, status: null });
      const failed = (text: string, permanent: boolean) => resolve({ ok: false, error: text, permanent, status: null, responseBody: "" });
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return failed(`Command not found: ${file}`, true);
      if (code === "EACCES") return failed(`Command not executable: ${file}`, true);
      if (error.killed) return failed("Command timed out", false);
      return failed(`Command returned exit code ${typeof code === "number" ? code : String(error.signal ?? code)}`, false);
    });
  });
}
