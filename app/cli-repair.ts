// `hcd repair --data-dir DIR`: on a stopped DATA_DIR (refused while in use), moves the log files that
// keep hcd from starting (a segment damaged in the middle, a file that does not read) into DIR/damaged/,
// and prints exactly what was lost: file, offset, bytes, records that could not be read.
import { lockDataDir } from "../persistence/data-dir-lock.ts";
import { repairDamage } from "../persistence/log-repair.ts";

/** Repairs `dataDir`; prints what was moved aside. Returns the exit status. */
export async function repairCommand(dataDir: string): Promise<number> {
  let lock;
  try {
    lock = lockDataDir(dataDir);
  } catch (error) {
    console.error(`hcd: repair refused: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  try {
    const moved = await repairDamage(dataDir, new Date());
    console.log(
      JSON.stringify(
        {
          data_dir: dataDir,
          damaged: moved.map((m) => ({
            file: m.file,
            offset: m.offset,
            bytes: m.bytes,
            records_lost: m.recordsLost,
            reason: m.reason,
            moved_to: m.movedTo,
            records_kept: m.recordsKept,
          })),
        },
        null,
        2,
      ),
    );
    return 0;
  } catch (error) {
    console.error(`hcd: repair failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    lock.release();
  }
}
