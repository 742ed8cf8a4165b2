// `hcd repair`: moves aside the damage that makes opening refuse a store (file-log.ts, LogDamageError),
// into DATA_DIR/damaged/<time>/, and deletes nothing. A file that does not read is moved whole. A
// segment damaged in the middle is moved whole, and its records before the damage are written back
// under its name, so that they are still replayed; the records from the damage on are what is lost.
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { inspectSegments, segmentFiles, syncDir } from "./file-log.ts";
import type { SegmentDamage } from "./file-log.ts";
import { INTAKE_DIR } from "./intake.ts";
import { unframe } from "./log-frames.ts";
import { LOG_DIR, makeDir } from "./open.ts";

/** Where a data directory's damaged files go. */
export const DAMAGED_DIR = "damaged";

/** One damaged file moved aside: where it went, and how many of its records stay in place. */
export type MovedDamage = SegmentDamage & { readonly movedTo: string; readonly recordsKept: number };

/** Returns the damage in the command logs and intake logs of `dataDir` (nothing is changed). */
export function findDamage(dataDir: string): SegmentDamage[] {
  return logDirs(dataDir).flatMap((dir) => {
    const byWriter = new Map<string, ReturnType<typeof segmentFiles>>();
    for (const file of segmentFiles(dir)) byWriter.set(file.writer, [...(byWriter.get(file.writer) ?? []), file]);
    return [...byWriter.values()].flatMap((files) => inspectSegments(dir, files).damages);
  });
}

/** Moves every damaged file of `dataDir` aside into DATA_DIR/damaged/<at>/ (see the top of this file); returns what it moved. */
export function repairDamage(dataDir: string, at: Date): MovedDamage[] {
  const aside = join(dataDir, DAMAGED_DIR, at.toISOString().replace(/[:.]/g, "-"));
  return findDamage(dataDir).map((damage) => {
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

function logDirs(dataDir: string): string[] {
  return [join(dataDir, LOG_DIR), join(dataDir, INTAKE_DIR)];
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
