// A backup as a stream of the archive format (host/backup-archive.ts): the pool writes a consistent, compacted
// copy of the store into a temporary directory beside the data, which is streamed and then removed.
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import type { Pool } from "../host/pool-api.ts";
import { packArchive, STORE_FILES } from "../host/backup-archive.ts";

/**
 * Returns the archive of a fresh copy of the store, made in a temporary directory under `scratchParent`
 * (on the data's file system: the copy may be large); the directory goes when the stream closes.
 */
export async function backupStream(pool: Pool, scratchParent: string, at: Date): Promise<Readable> {
  const scratch = mkdtempSync(join(scratchParent, ".backup-"));
  const remove = () => rmSync(scratch, { recursive: true, force: true });
  try {
    await pool.backup(scratch);
    const stream = packArchive(scratch, STORE_FILES, at);
    stream.once("close", remove);
    return stream;
  } catch (error) {
    remove();
    throw error;
  }
}
