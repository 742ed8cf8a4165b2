// One process per DATA_DIR: an exclusive flock(2) on DATA_DIR/lock, held for the process's life. The
// kernel drops it when the holder dies however it dies (kill -9 included), and it is seen by every
// process that opens the same file, also from another PID namespace or container on the same host
// (a pid or a unix socket's name is not). fs-ext calls flock itself: Node has no binding of its own.
import { closeSync, constants, existsSync, openSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { makeDir } from "./open.ts";

const { flockSync } = createRequire(import.meta.url)("fs-ext") as { flockSync(fd: number, flags: "exnb" | "un"): void };

/** The lock file's name in a data directory. */
export const LOCK_FILE = "lock";

/** Thrown when another process holds a data directory. */
export class DataDirInUseError extends Error {
  override readonly name = "DataDirInUseError";
}

/** A held lock: released by release(), or by the kernel when the process ends. */
export type DataDirLock = { release(): void };

/**
 * Takes the lock of `dataDir` (created if missing) without waiting; throws DataDirInUseError when another
 * process holds it. Another open of the same file in this process is refused too (flock locks belong to
 * the open file, not to the process).
 */
export function lockDataDir(dataDir: string): DataDirLock {
  makeDir(dataDir);
  const fd = openSync(join(dataDir, LOCK_FILE), constants.O_RDWR | constants.O_CREAT, 0o600);
  try {
    flockSync(fd, "exnb");
  } catch (error) {
    closeSync(fd);
    if ((error as NodeJS.ErrnoException).code === "EWOULDBLOCK" || (error as NodeJS.ErrnoException).code === "EAGAIN") {
      throw new DataDirInUseError(`${dataDir} is in use by another hcd process (it holds ${join(dataDir, LOCK_FILE)})`);
    }
    throw error;
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      closeSync(fd); // closing the only descriptor of the open file drops its lock
    },
  };
}

/** Throws DataDirInUseError when a process holds `dataDir`'s lock; creates nothing (a missing dir or lock file is free). */
export function assertDataDirFree(dataDir: string): void {
  if (!existsSync(join(dataDir, LOCK_FILE))) return;
  lockDataDir(dataDir).release();
}
