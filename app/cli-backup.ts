// `hcd backup --out FILE` and `hcd restore --in FILE --data-dir DIR` (CONTRACT.md "Backup").
// backup: the admin API's POST /admin/v1/backup, of the running server (--url) or served in-process on
// a stopped DATA_DIR. The file is written beside FILE, checked whole, then renamed into place, so FILE
// is either a complete backup or untouched. restore: checks the file's length, header and checksum and
// unpacks it into a new or empty directory; a truncated or corrupt file is refused and leaves nothing.
import { createWriteStream, renameSync, rmSync, statSync } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { openInProcessAdmin } from "./in-process-admin.ts";
import type { InProcessAdmin } from "./in-process-admin.ts";
import { ArchiveError, unpackArchive, verifyArchive } from "../host/backup-archive.ts";
import { assertDataDirFree } from "../persistence/data-dir-lock.ts";
import type { Settings } from "./config.ts";

/**
 * Writes a backup to `out` through the admin API's POST /admin/v1/backup: the running server's (`remote`),
 * or one served in-process on the stopped DATA_DIR (app/in-process-admin.ts, which records it in the
 * instance's log as the server does); prints what was written. Returns the exit status.
 */
export async function backupCommand(out: string, settings: Settings, remote: { url: string; token: () => string } | null): Promise<number> {
  const partial = `${out}.partial-${process.pid}`;
  let admin: InProcessAdmin | null = null;
  try {
    let res: Response;
    if (remote !== null) {
      res = await fetch(new URL("admin/v1/backup", remote.url.endsWith("/") ? remote.url : remote.url + "/"), {
        method: "POST",
        headers: { authorization: `Bearer ${remote.token()}` },
      });
    } else {
      // the server is stopped (its lock says so): DATA_DIR opened here, without applying deadlines or sending anything
      admin = await openInProcessAdmin(settings);
      res = await admin.fetch(
        new Request("http://localhost/admin/v1/backup", { method: "POST", headers: { authorization: `Bearer ${admin.token}` } }),
      );
    }
    if (res.status !== 200 || res.body === null) {
      console.error(`hcd: backup refused by the server: ${res.status} ${await res.text()}`);
      return 1;
    }
    await pipeline(Readable.fromWeb(res.body as never), createWriteStream(partial, { flags: "wx", mode: 0o600 }));
    await admin?.close();
    admin = null;
    const header = await verifyArchive(partial); // a connection cut mid-way shows here, not at restore time
    renameSync(partial, out);
    console.log(JSON.stringify({ backup: out, bytes: statSync(out).size, created: header.created, files: header.files }, null, 2));
    return 0;
  } catch (error) {
    rmSync(partial, { force: true });
    console.error(`hcd: backup failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await admin?.close();
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
