// Tests only: every directory sync (file-log.ts syncDir) noted in the file HCD_SYNC_NOTES names, in a process
// started with NODE_ENV=test, so a test sees a running server sync a log's directory. Elsewhere a no-op.
import { appendFileSync } from "node:fs";

const NOTES = process.env.NODE_ENV === "test" ? (process.env.HCD_SYNC_NOTES ?? null) : null;

/** Notes that `dir` was synced, once the sync returned (a no-op unless armed). */
export function noteDirSynced(dir: string): void {
  if (NOTES !== null) appendFileSync(NOTES, `${dir}\n`);
}
