// DATA_DIR holds password hashes, TOTP secrets, API and ping keys and integration secrets: it is the
// owner's alone. The process creates everything with the owner-only umask (directories 0700, files 0600,
// LMDB's included), and a directory left wider by an older version or by hand is tightened at start.
import { chmodSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { makeDir } from "./open.ts";

/** The umask that makes every new directory 0700 and every new file 0600, whatever mode the code asks. */
export const OWNER_ONLY_UMASK = 0o077;

/**
 * Creates `dataDir` when missing, then takes the group's and others' permissions off it and everything in it
 * (directories 0700, files 0600; symbolic links are neither followed nor changed). Returns how many paths had wider modes and were tightened.
 */
export function ownerOnlyDataDir(dataDir: string): number {
  makeDir(dataDir);
  let tightened = 0;
  const visit = (path: string): void => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    if ((stat.mode & 0o077) !== 0) {
      // the group's or others' bits: the owner's stay (a file 0644 becomes 0600)
      chmodSync(path, (stat.mode & 0o700) | (stat.isDirectory() ? 0o700 : 0));
      tightened++;
    }
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dataDir);
  return tightened;
}
