// A backup as a stream of the archive format (host/backup-archive.ts): the pool writes a consistent, compacted
// copy of the store (copyStore) into a temporary directory beside the data, which is streamed and then removed.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import type { Pool } from "./pool-api.ts";
import { AUDIT_FILE, BADGE_SECRET_FILE, packArchive, storeFiles } from "./backup-archive.ts";
import type { AuditTrail } from "./audit.ts";
import type { ShardHandle } from "./shard-requests.ts";
import { ACCOUNTS_FILE } from "../persistence/accounts-file.ts";
import { UNKNOWN_TIME_FILE } from "../persistence/unknown-time.ts";

/**
 * Returns the archive of a fresh copy of the store, made in a temporary directory under `scratchParent`
 * (on the data's file system: the copy may be large), with DATA_DIR's badge secret, users and unknown time when there
 * are, and a copy of the audit log when given;
 * the directory goes when the stream closes.
 */
export async function backupStream(
  pool: Pool,
  opts: { dataDir: string; scratchParent: string; at: Date; audit?: AuditTrail },
): Promise<Readable> {
  const scratch = mkdtempSync(join(opts.scratchParent, ".backup-"));
  const remove = () => rmSync(scratch, { recursive: true, force: true });
  try {
    await pool.backup(scratch);
    const files = storeFiles(scratch);
    if (opts.audit !== undefined) {
      await opts.audit.copyTo(join(scratch, dirname(AUDIT_FILE)));
      files.push(AUDIT_FILE);
    }
    // DATA_DIR's own small files, when there: each is replaced whole by a rename, so a copy is one version of it
    for (const name of [BADGE_SECRET_FILE, ACCOUNTS_FILE, UNKNOWN_TIME_FILE]) {
      if (!existsSync(join(opts.dataDir, name))) continue;
      copyFileSync(join(opts.dataDir, name), join(scratch, name));
      files.push(name);
    }
    const stream = packArchive(scratch, files, opts.at);
    stream.once("close", remove);
    return stream;
  } catch (error) {
    remove();
    throw error;
  }
}

/**
 * Copies the shards' store into `dir` as one consistent copy: every shard stops checkpointing (pings still
 * commit to its log) while the first copies the files; each that stopped starts again, whatever happened.
 */
export async function copyStore(shards: readonly ShardHandle[], dir: string): Promise<void> {
  const held = shards.map(() => false);
  try {
    await Promise.all(
      shards.map(async (s, i) => {
        await s.apply({ kind: "holdCheckpoints" });
        held[i] = true;
      }),
    );
    await shards[0].apply({ kind: "copyStore", dir });
  } finally {
    await Promise.all(shards.filter((_, i) => held[i]).map((s) => s.apply({ kind: "releaseCheckpoints" })));
  }
}
