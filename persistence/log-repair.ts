// `hcd repair`: moves aside the damage that makes opening refuse a store (file-log.ts, LogDamageError),
// into DATA_DIR/damaged/<time>/, and deletes nothing. A file that does not read is moved whole. A
// segment damaged in the middle is moved whole, and its records before the damage are written back
// under its name, so that they are still replayed; the records from the damage on are what is lost.
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { inspectSegments, segmentFiles, syncDir } from "./file-log.ts";
import type { SegmentDamage } from "./file-log.ts";
import { INTAKE_DIR } from "./intake.ts";
import { unframe } from "./log-frames.ts";
import { checkpointedSeq } from "./journal.ts";
import { LOG_DIR, makeDir, openTables } from "./open.ts";

/** Where a data directory's damaged files go. */
export const DAMAGED_DIR = "damaged";

/** One damaged file moved aside: where it went, and how many of its records stay in place. */
export type MovedDamage = SegmentDamage & { readonly movedTo: string; readonly recordsKept: number };

/**
 * Returns the damage in the command logs and intake logs of `dataDir`, as opening the store finds it: a
 * command log's records the tables hold already are no loss (persistence/open.ts). Nothing is changed.
 */
export async function findDamage(dataDir: string): Promise<SegmentDamage[]> {
  const checkpointed = await checkpointMarks(dataDir);
  return [join(dataDir, LOG_DIR), join(dataDir, INTAKE_DIR)].flatMap((dir) => {
    const byWriter = new Map<string, ReturnType<typeof segmentFiles>>();
    for (const file of segmentFiles(dir)) byWriter.set(file.writer, [...(byWriter.get(file.writer) ?? []), file]);
    const floorOf = (writer: string) => (dir === join(dataDir, LOG_DIR) ? (checkpointed.get(writer) ?? 0) : 0);
    return [...byWriter].flatMap(([writer, files]) => inspectSegments(dir, files, floorOf(writer)).damages);
  });
}

/** Moves every damaged file of `dataDir` aside into DATA_DIR/damaged/<at>/ (see the top of this file); returns what it moved. */
export async function repairDamage(dataDir: string, at: Date): Promise<MovedDamage[]> {
  const aside = join(dataDir, DAMAGED_DIR, at.toISOString().replace(/[:.]/g, "-"));
  return (await findDamage(dataDir)).map((damage) => {
    const logDir = dirname(damage.file);
    const movedTo = join(aside, basename(logDir), basename(damage.file));
    makeDir(dirname(movedTo));
    let recordsKept = 0;
    if (damage.offset === null) {
      renameSync(damage.file, movedTo);
    } else {
      const kept = readFileSync(damage.file).subarray(0, damage.offset);
      recordsKept = unframe(kept).length;
      const fresh = `${damage.file}.repair`; // not a segment's name: ignored until renamed
      writeDurably(fresh, kept);
      renameSync(damage.file, movedTo);
      renameSync(fresh, damage.file);
    }
    syncDir(dirname(movedTo));
    syncDir(logDir);
    return { ...damage, movedTo, recordsKept };
  });
}

/** Returns how far each command log's writer is in the tables (none without a store). */
async function checkpointMarks(dataDir: string): Promise<Map<string, number>> {
  if (!existsSync(join(dataDir, "data.mdb"))) return new Map();
  const { tables } = await openTables(dataDir, { durability: "commit", readOnly: true });
  try {
    const marks = new Map<string, number>();
    for (const file of segmentFiles(join(dataDir, LOG_DIR))) marks.set(file.writer, checkpointedSeq(tables, file.writer));
    return marks;
  } finally {
    await tables.env.close();
  }
}

/** Writes `bytes` to a new file `path` and syncs it. */
function writeDurably(path: string, bytes: Buffer): void {
  const fd = openSync(path, "wx", 0o600);
  try {
    for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
