// Which process wrote a log file, and whether it still runs. A file's name carries its writer's process
// identity; a file whose process is gone was left by a crash and may go once it is replayed, while a
// running writer's file must stay (it still appends to it). A pid alone is not enough: pids are reused,
// by the next boot most of all, so the identity also holds the process's start time and the boot's id.
// Liveness by pid is blind across PID namespaces (two containers on one volume): what keeps a second
// process off a DATA_DIR in use is its lock (data-dir-lock.ts), taken before any log is read. Behind that
// lock every other identity's files are a dead run's; this check stays as a second guard for the opens
// that take no lock (a pool inside a test) and names each run's files apart.
import { existsSync, readFileSync } from "node:fs";

/** Returns this process's identity: `<pid>-<start time in clock ticks since boot>-<boot id>` (the same in every thread). */
export function ownIdentity(): string {
  return identityOf(process.pid) ?? `${process.pid}-0-${bootId()}`;
}

/** Returns true when the process that `identity` names is running now. */
export function isRunning(identity: string): boolean {
  const [pid, start, boot] = identity.split("-");
  if (boot !== bootId()) return false; // written before this boot
  const now = identityOf(Number(pid));
  if (now !== null) return now === `${pid}-${start}-${boot}`;
  if (existsSync("/proc/self/stat")) return false; // /proc works, and has no such process
  try {
    process.kill(Number(pid), 0); // without /proc: the pid alone
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Returns the identity of process `pid` from /proc, or null when it has none (gone, or no /proc). */
function identityOf(pid: number): string | null {
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // the command name (field 2) may hold spaces and parentheses: count fields after its last ")"
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return `${pid}-${fields[19]}-${bootId()}`; // field 22, starttime
  } catch {
    return null;
  }
}

let cachedBootId: string | undefined;
/** Returns an id of this boot (eight hex digits of the kernel's boot id; "0" without /proc). */
function bootId(): string {
  if (cachedBootId !== undefined) return cachedBootId;
  try {
    cachedBootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8")
      .replace(/[^0-9a-f]/g, "")
      .slice(0, 8);
  } catch {
    cachedBootId = "0";
  }
  return cachedBootId;
}
