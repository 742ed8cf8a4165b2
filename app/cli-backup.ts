// `hcd backup --out FILE` and `hcd restore --in FILE --data-dir DIR` (CONTRACT.md "Backup").
// backup: with --url through the running server's admin API (POST /admin/v1/backup), else directly on
// a stopped DATA_DIR (opened as every offline command opens it: app/in-process-admin.ts). The file is
// written beside FILE, checked whole, then renamed into place, so FILE is either a complete backup or untouched. restore: checks the file's length, header and checksum and
// unpacks it into a new or empty directory; a truncated or corrupt file is refused and leaves nothing.
import { createWriteStream, renameSync, rmSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { openStoppedDataDir } from "./in-process-admin.ts";
import { ArchiveError, unpackArchive, verifyArchive } from "../host/backup-archive.ts";
import { backupStream } from "../host/backup.ts";
import { INSTANCE_LOG, recordChange } from "../host/audit.ts";
import { assertDataDirFree } from "../persistence/data-dir-lock.ts";
import type { Settings } from "./config.ts";

/** Writes a backup to `out`; prints what was written. Returns the exit status. */
export async function backupCommand(out: string, settings: Settings, remote: { url: string; token: () => string } | null): Promise<number> {
  const partial = `${out}.partial-${process.pid}`;
  try {
    if (remote !== null) {
      const res = await fetch(new URL("admin/v1/backup", remote.url.endsWith("/") ? remote.url : remote.url + "/"), {
        method: "POST",
        headers: { authorization: `Bearer ${remote.token()}` },
      });
      if (res.status !== 200 || res.body === null) {
        console.error(`hcd: backup refused by the server: ${res.status} ${await res.text()}`);
        return 1;
      }
      await pipeline(Readable.fromWeb(res.body as never), createWriteStream(partial, { flags: "wx", mode: 0o600 }));
    } else {
      // the server is stopped (its lock says so): DATA_DIR opened here, without applying deadlines or sending anything
      const stopped = await openStoppedDataDir(settings);
      try {
        await pipeline(
          await backupStream(stopped.pool, {
            dataDir: settings.dataDir,
            scratchParent: dirname(resolve(out)),
            at: new Date(),
            audit: stopped.audit,
          }),
          createWriteStream(partial, { flags: "wx", mode: 0o600 }),
        );
        // recorded in the instance's log of the directory it was taken from (as the server records its own)
        await recordChange(stopped.audit, {
          projectId: INSTANCE_LOG,
          actor: { kind: "system", name: "hcd backup" },
          action: "backup.created",
          target: "the whole store (stopped DATA_DIR)",
          at: Date.now(),
        });
      } finally {
        await stopped.close();
      }
    }
    const header = await verifyArchive(partial); // a connection cut mid-way shows here, not at restore time
    renameSync(partial, out);
    console.log(JSON.stringify({ backup: out, bytes: statSync(out).size, created: header.created, files: header.files }, null, 2));
    return 0;
  } catch (error) {
    rmSync(partial, { force: true });
    console.error(`hcd: backup failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

/** Unpacks the backup `file` into `dataDir` (missing or empty). Returns the exit status. */
export async function restoreCommand(file: string, dataDir: string): Promise<number> {
  try {
    assertDataDirFree(dataDir); // a directory a server holds is in use, whatever else is in it
    const header = await unpackArchive(file, dataDir);
    console.log(JSON.stringify({ restored: file, data_dir: dataDir, created: header.created, files: header.files }, null, 2));
    return 0;
  } catch (error) {
    const reason = error instanceof ArchiveError || error instanceof Error ? error.message : String(error);
    console.error(`hcd: restore refused: ${reason}`);
    return 1;
  }
}
