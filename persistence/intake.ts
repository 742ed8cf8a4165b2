// The intake log: the front end's own command log of pings by check uuid, in DATA_DIR/intake. The front
// end acknowledges such a ping once it is here (one write and sync for every ping of an event-loop turn,
// whichever shard owns it), then hands it to its shard, which applies it in memory and writes its changes
// with its next commit, lazily, naming how far the intake log it reaches (an IntakeMark). A restart
// replays into each shard the intake records past its marks, then lets the files go.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Packr } from "msgpackr";
import type { PingCommand } from "../engine/commands.ts";
import { makeDir } from "./open.ts";
import { isRunning, ownIdentity } from "./process-identity.ts";
import { FileLog, readSegments, segmentFiles, spareFiles, syncDir } from "./file-log.ts";

export const INTAKE_DIR = "intake";

// A group of this many pings or more is written by the I/O thread pool: the thread that answers pings
// parses the next ones while the disk works. A smaller group (an everyday rate) is written in the
// thread, which costs less CPU than the two thread hops (persistence/file-log.ts).
const POOLED_GROUP = 8;

// self-describing records (nothing shared between runs), bodies copied out of the files' buffers
const intakePackr = new Packr({ copyBuffers: true, useRecords: false });

/** One ping of the intake log: the shard it went to ("<index>/<count>"), its project, and the ping as received. */
export type IntakeEntry = { readonly shard: string; readonly projectId: string; readonly command: PingCommand };

/** An intake record as read back: its position and entry. */
export type IntakeRecord = { readonly position: number; readonly entry: IntakeEntry };

/** Returns the shard name an intake entry and a mark use: "<index>/<count>". */
export function intakeShard(index: number, count: number): string {
  return `${index}/${count}`;
}

/** Opens writer `writer`'s intake log in `dataDir` (with `sync`, each group is on disk before its appends resolve). */
export function openIntakeLog(dataDir: string, writer: string, sync: boolean): FileLog {
  makeDir(join(dataDir, INTAKE_DIR));
  return new FileLog(join(dataDir, INTAKE_DIR), writer, { sync, poolFrom: POOLED_GROUP });
}

/** Returns the bytes of an intake record. */
export function encodeIntake(entry: IntakeEntry): Uint8Array {
  return intakePackr.pack([entry.shard, entry.projectId, entry.command]);
}

/** Returns the entry of an intake record's bytes. */
export function decodeIntake(bytes: Uint8Array): IntakeEntry {
  const [shard, projectId, command] = intakePackr.unpack(bytes) as [string, string, PingCommand];
  return { shard, projectId, command };
}

/**
 * Returns the writers that have intake files in `dataDir` and may be running: those of this process
 * (`own`: its caller knows which of them still write), and none of another process that still runs (a
 * server the CLI was pointed at): only a writer whose process is gone left its log to replay.
 */
export function intakeWriters(dataDir: string): { readonly writer: string; readonly own: boolean }[] {
  const self = ownIdentity();
  const writers = new Map<string, boolean>();
  for (const file of segmentFiles(join(dataDir, INTAKE_DIR))) {
    if (file.identity === self) writers.set(file.writer, true);
    else if (!isRunning(file.identity)) writers.set(file.writer, false);
  }
  return [...writers].sort(([a], [b]) => (a < b ? -1 : 1)).map(([writer, own]) => ({ writer, own }));
}

/** Returns the records of intake log `writer` in `dataDir`, in order, up to the first torn or corrupt one. */
export function readIntake(dataDir: string, writer: string): IntakeRecord[] {
  const dir = join(dataDir, INTAKE_DIR);
  const files = segmentFiles(dir).filter((file) => file.writer === writer);
  // an empty record is a probe's (host/ping-intake.ts): a write that tells whether the disk takes writes again
  return readSegments(dir, files).flatMap((record) =>
    record.bytes.length === 0 ? [] : [{ position: record.position, entry: decodeIntake(record.bytes) }],
  );
}

/** Removes the files of intake logs `writers` (their records are in the shards' commits), and spares no writer uses. */
export function removeIntake(dataDir: string, writers: readonly string[]): void {
  if (writers.length === 0) return;
  const dir = join(dataDir, INTAKE_DIR);
  const gone = new Set(writers);
  for (const file of segmentFiles(dir)) if (gone.has(file.writer)) rmSync(join(dir, file.name), { force: true });
  for (const spare of spareFiles(dir))
    if (writers.some((writer) => spare.name.includes(`_${writer}_`))) rmSync(join(dir, spare.name), { force: true });
  syncDir(dir);
}
