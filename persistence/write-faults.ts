// Store writes that fail on demand, for the tests of what a full or failing disk does to a commit (a
// shard's command log, the intake log) and to a checkpoint (the tables): only in a process started with
// NODE_ENV=test. Anywhere else FAULTS_ARMED is false and a write pays one test of that constant.
//
// A test arms a fault by putting a file named FAULT_FILE in the directory written to (DATA_DIR/log,
// DATA_DIR/intake, or DATA_DIR for the tables), holding an errno code ("ENOSPC", "EIO"); until the file
// is removed, every group a log writes there fails with that error after writing half its bytes (as a
// disk that fills up mid-write does), and every checkpoint fails before its transactions. A file and not
// a call: the writers may be in worker threads or in another process (a real server), each with its own
// copy of this module, and the next write sees the file at once, so a test knows which writes fail
// without waiting for a message to cross.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const FAULTS_ARMED = process.env.NODE_ENV === "test";
export const FAULT_FILE = "write-fault";

export type FaultCode = "ENOSPC" | "EIO";

const MESSAGES: Record<FaultCode, string> = { ENOSPC: "no space left on device", EIO: "i/o error" };

/** Returns the error a write into `dir` must fail with now, or null (always null unless FAULTS_ARMED). */
export function injectedFault(dir: string): NodeJS.ErrnoException | null {
  if (!FAULTS_ARMED) return null;
  let code: string;
  try {
    code = readFileSync(join(dir, FAULT_FILE), "utf8").trim();
  } catch {
    return null;
  }
  const known = code === "ENOSPC" || code === "EIO" ? code : "EIO";
  const error: NodeJS.ErrnoException = new Error(`${known}: ${MESSAGES[known]}, write (injected)`);
  error.code = known;
  error.syscall = "write";
  return error;
}

/** Throws the fault armed for `dir`, if any (a no-op unless FAULTS_ARMED). */
export function failIfInjected(dir: string): void {
  const fault = injectedFault(dir);
  if (fault !== null) throw fault;
}

/** Makes every write into `dir` fail with `code` from now on; null ends it (tests only: see FAULTS_ARMED). */
export function setWriteFault(dir: string, code: FaultCode | null): void {
  if (code === null) rmSync(join(dir, FAULT_FILE), { force: true });
  else writeFileSync(join(dir, FAULT_FILE), code);
}
