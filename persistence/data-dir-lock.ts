// One process per DATA_DIR: an exclusive open-file-description lock (fcntl F_OFD_SETLK) on DATA_DIR/lock,
// held for the process's life. The kernel drops it when the holder dies however it dies (kill -9 included),
// and it is seen by every process that opens the same file, also from another PID namespace or container
// on the same host. Node has no binding of its own: fs-native-extensions ships it prebuilt (no compiler).
import { closeSync, constants, existsSync, openSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { makeDir } from "./open.ts";

/** true when the lock was taken, false when another open file holds it (EAGAIN); throws on other errors. */
const { tryLock } = createRequire(import.meta.url)("fs-native-extensions") as { tryLock: (fd: number) => boolean };

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
 * process holds it. Another open of the same file in this process is refused too (the lock belongs to the
 * open file, not to the process).
 */
export function lockDataDir(dataDir: string): DataDirLock {
  makeDir(dataDir);
  const fd = openSync(join(dataDir, LOCK_FILE), constants.O_RDWR | constants.O_CREAT, 0o600);
  let taken: boolean;
  try {
    taken = tryLock(fd);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  if (!taken) {
    closeSync(fd);
    throw new DataDirInUseError(`${dataDir} is in use by another hcd process (it holds ${join(dataDir, LOCK_FILE)})`);
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
