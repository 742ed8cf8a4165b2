// The command log on plain files: each writer (one store, in one thread) appends framed records to its
// own segment files in DATA_DIR/log and makes them durable with one write per group of appends, to a
// file opened with O_DSYNC (the write returns once the data is on disk, as a write and an fdatasync
// would, in one call). Every append of an event-loop turn shares one write. Measured on this machine: a
// synced append writes one 4 kB page, about 400 B a record at 20 records a sync, against 1,400-1,900 B
// for a synced LMDB transaction.
//
// The write is synchronous, in the writer's own thread: a hop to the I/O thread pool and back costs two
// thread wake-ups, which at an everyday rate (each ping its own group) cost more CPU than the write
// (200 pings/s: 1,614 against 1,861 µs of CPU per ping, medians of 6 alternated runs). The thread
// waits for the disk meanwhile (an O_DSYNC write of 400 B: 0.24 ms median, 2.4 ms p99 here); appends
// made meanwhile queue and go together in the next group.
//
// A frame is [length u32][crc32 u32][position f64][record] (persistence/log-frames.ts). A reader stops at
// the first frame that is cut short, fails its checksum, or does not follow its predecessor's position:
// what a crash or a full disk cut off was never acknowledged. A writer never appends to another run's
// files, and writes each group at the end of what was acknowledged, so a failed group is overwritten by
// the next one. A stop with a later record after it, or a file that exists and does not read, is damage:
// opening refuses it (LogDamageError) rather than skip acknowledged records.
//
// A file is named <process identity>_<writer>_<segment>.log. A checkpoint starts a new segment; older
// segments go once the tables hold all of their records.
//
// One of the segments that go is kept as the writer's spare (<identity>_<writer>_spare.log) and becomes
// its next segment: a synced write inside a file's existing size need not commit the file system's
// journal, while one that grows the file must. Measured here: 2,000 O_DSYNC writes of 400 B back to back
// sent the disk 4.7 kB each into written space against 8.6 kB growing the file (and cost 92-113 against
// 145-161 µs of CPU); hcd under 20 connections for 60 s, 1,905-1,994 against 2,572-2,719 bytes a ping.
// With writes 10 ms apart both cost 8.6 kB: each then changes the file's modification time, which
// commits the journal too on this disk. A spare's first page is zeroed before it is renamed, and its
// records are older than any its next use writes, so a reader stops at the spare's old content: at once
// when nothing new was written (a frame of length 0 at position 0), else at the first old frame, whose
// position does not grow.
import { closeSync, constants, openSync, readdirSync, readFileSync, rmSync, fsyncSync, writeSync } from "node:fs";
import { open, rename } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { join } from "node:path";
import type { CommandLog, LogRecord } from "./command-log.ts";
import { frame, readFrames } from "./log-frames.ts";
import { ownIdentity } from "./process-identity.ts";
import { noteDirSynced } from "./sync-notes.ts";
import { FAULTS_ARMED, injectedFault } from "./write-faults.ts";

export { frame, unframe } from "./log-frames.ts";

const NAME = /^([0-9]+-[0-9]+-[0-9a-f]+)_([A-Za-z0-9-]+)_([0-9]{6,})\.log$/;
const SPARE = /^([0-9]+-[0-9]+-[0-9a-f]+)_([A-Za-z0-9-]+)_spare\.log$/;
const PAGE_BYTES = 4096;

/** One segment file of a writer, as found in a log directory. */
export type SegmentFile = { readonly name: string; readonly identity: string; readonly writer: string; readonly segment: number };

/** Returns the file name of a writer's segment. */
export function segmentName(identity: string, writer: string, segment: number): string {
  return `${identity}_${writer}_${String(segment).padStart(6, "0")}.log`;
}

/** Returns true when `name` is a segment file's name. */
export function isSegmentName(name: string): boolean {
  return NAME.test(name);
}

/** Returns the names of the files in `dir`; none when it is missing. */
function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error; // a directory that does not list must not read as an empty log
  }
}

/** Returns the spare files in `dir` (none when it is missing): their names and their writers' process identities. */
export function spareFiles(dir: string): { readonly name: string; readonly identity: string }[] {
  return namesIn(dir).flatMap((name) => {
    const match = SPARE.exec(name);
    return match === null ? [] : [{ name, identity: match[1] }];
  });
}

/** Returns the segment files in `dir` (none when it is missing), by writer, oldest segment first. */
export function segmentFiles(dir: string): SegmentFile[] {
  const files: SegmentFile[] = [];
  for (const name of namesIn(dir)) {
    const match = NAME.exec(name);
    if (match !== null) files.push({ name, identity: match[1], writer: match[2], segment: Number(match[3]) });
  }
  return files.sort((a, b) => (a.writer < b.writer ? -1 : a.writer > b.writer ? 1 : a.segment - b.segment));
}

/** A segment that does not read whole: a file that does not read at all, or one damaged in the middle (log-frames.ts). */
export type SegmentDamage = {
  /** the file's path */
  readonly file: string;
  /** where reading stopped; null when the file does not read at all */
  readonly offset: number | null;
  /** the bytes from there to the file's end (null: unknown) */
  readonly bytes: number | null;
  /** the records that can't be read (log-frames.ts; null: unknown) */
  readonly recordsLost: number | null;
  readonly reason: string;
};

/** A log that can't be read whole: opening refuses it (`hcd repair` moves the damage aside). */
export class LogDamageError extends Error {
  override readonly name = "LogDamageError";
  readonly damage: SegmentDamage;
  constructor(damage: SegmentDamage) {
    super(
      damage.offset === null
        ? `log file ${damage.file} can't be read: ${damage.reason}`
        : `log file ${damage.file} is damaged at offset ${damage.offset}: ${damage.reason}; ${damage.recordsLost} records from there on can't be read`,
    );
    this.damage = damage;
  }
}

/**
 * Returns the records of one writer's segments (read whole, in order), and the damage found on the way
 * (reading goes on past it, as positions only have to grow); records at or below `floor` are applied
 * already, and skipping them is no damage (log-frames.ts). A file gone since the listing reads as empty:
 * another opener replayed and removed it.
 */
export function inspectSegments(
  dir: string,
  segments: readonly SegmentFile[],
  floor = 0,
): { records: LogRecord[]; damages: SegmentDamage[] } {
  const records: LogRecord[] = [];
  const damages: SegmentDamage[] = [];
  for (const segment of segments) {
    const file = join(dir, segment.name);
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      damages.push({ file, offset: null, bytes: null, recordsLost: null, reason: (error as Error).message });
      continue;
    }
    const read = readFrames(bytes, records.at(-1)?.position ?? 0, floor);
    for (const record of read.records) records.push(record);
    if (read.damage !== null)
      damages.push({
        file,
        offset: read.damage.offset,
        bytes: bytes.length - read.damage.offset,
        recordsLost: read.damage.recordsLost,
        reason: read.damage.reason,
      });
  }
  return { records, damages };
}

/** Returns the records of one writer's segments (read whole, in order); throws LogDamageError on damage (above `floor`). */
export function readSegments(dir: string, segments: readonly SegmentFile[], floor = 0): LogRecord[] {
  const { records, damages } = inspectSegments(dir, segments, floor);
  if (damages.length > 0) throw new LogDamageError(damages[0]);
  return records;
}

/** Tests only (persistence/write-faults.ts): when a fault is armed for `dir`, writes half of `bytes` at `at`, then throws it. */
function failAsInjected(dir: string, fd: number, bytes: Buffer, at: number): void {
  const fault = injectedFault(dir);
  if (fault === null) return;
  writeSync(fd, bytes, 0, bytes.length >> 1, at);
  throw fault;
}

/** Makes the directory entries of `dir` durable (a new or removed file survives power loss). */
export function syncDir(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  noteDirSynced(dir);
}

type Segment = { readonly name: string; readonly handle: Promise<FileHandle>; end: number; lastPosition: number; busy: boolean };
type Waiting = {
  readonly frames: Buffer[];
  readonly positions: number[];
  readonly resolve: (positions: number[]) => void;
  readonly reject: (error: unknown) => void;
};

/** One writer's log in `dir`: appends are grouped and written together (with `sync`, durably). */
export class FileLog implements CommandLog {
  readonly #dir: string;
  readonly #writer: string;
  readonly #sync: boolean;
  readonly #poolFrom: number;
  readonly #identity = ownIdentity();
  #segments: Segment[] = []; // oldest first; appends go to the last
  #rollPending = true; // the first append opens the first segment
  #segmentNumber = 0;
  #nextPosition = 1;
  #waiting: Waiting[] = [];
  #spare: string | null = null; // the path of a retired segment, ready to become the next one
  #writing = false;
  #scheduled = false;

  /**
   * `sync`: each group is on disk (O_DSYNC) before its appends resolve; otherwise once written (survives
   * a crash of the process). `poolFrom`: a group of at least this many appends is written by Node's I/O
   * thread pool, so that the writer's thread goes on meanwhile (default: never).
   */
  constructor(dir: string, writer: string, options: { readonly sync: boolean; readonly poolFrom?: number }) {
    this.#dir = dir;
    this.#writer = writer;
    this.#sync = options.sync;
    this.#poolFrom = options.poolFrom ?? Infinity;
  }

  append(records: readonly Uint8Array[]): Promise<number[]> {
    const positions = records.map(() => this.#nextPosition++);
    const frames = records.map((record, i) => frame(positions[i], record));
    return new Promise((resolve, reject) => {
      this.#waiting.push({ frames, positions, resolve, reject });
      this.#schedule();
    });
  }

  async *readFrom(from: number): AsyncIterable<LogRecord> {
    const mine = segmentFiles(this.#dir).filter((s) => s.writer === this.#writer);
    for (const record of readSegments(this.#dir, mine)) if (record.position >= from) yield record;
  }

  /** Starts a new segment with the next group, so that the current one can go once the tables hold it. */
  roll(): void {
    if (this.#segments.at(-1)?.lastPosition !== 0) this.#rollPending = true;
  }

  async truncateBelow(position: number): Promise<void> {
    const current = this.#segments.at(-1);
    const gone = this.#segments.filter((s) => s !== current && !s.busy && s.lastPosition < position);
    if (gone.length === 0) return;
    this.#segments = this.#segments.filter((s) => !gone.includes(s));
    for (const segment of gone) {
      const handle = await segment.handle.catch(() => null);
      const spared = this.#spare === null && handle !== null && (await this.#retire(segment.name, handle));
      await handle?.close().catch(() => {});
      if (!spared) rmSync(join(this.#dir, segment.name), { force: true });
    }
  }

  /**
   * Waits for the appends in flight, closes every segment and removes those whose records are all below
   * `removeBelow`; returns true when none is left.
   */
  async close(removeBelow: number): Promise<boolean> {
    while (this.#writing || this.#scheduled || this.#waiting.length > 0) await new Promise((resolve) => setImmediate(resolve));
    let allGone = true;
    for (const segment of this.#segments) {
      await (await segment.handle.catch(() => null))?.close().catch(() => {});
      if (segment.lastPosition < removeBelow) rmSync(join(this.#dir, segment.name), { force: true });
      else allGone = false;
    }
    this.#segments = [];
    if (this.#spare !== null) rmSync(this.#spare, { force: true });
    this.#spare = null;
    return allGone;
  }

  /**
   * Makes a segment whose records the tables hold the spare: its first page zeroed through its own
   * handle (O_DSYNC with `sync`: on disk before the name says "spare"), then renamed. False when that failed.
   */
  async #retire(name: string, handle: FileHandle): Promise<boolean> {
    const spare = join(this.#dir, `${this.#identity}_${this.#writer}_spare.log`);
    try {
      await handle.write(Buffer.alloc(PAGE_BYTES), 0, PAGE_BYTES, 0);
      await rename(join(this.#dir, name), spare);
      this.#spare = spare;
      return true;
    } catch {
      return false;
    }
  }

  #schedule(): void {
    if (this.#writing || this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      void this.#writeGroup();
    });
  }

  async #writeGroup(): Promise<void> {
    const group = this.#waiting;
    this.#waiting = [];
    if (group.length === 0) return;
    this.#writing = true;
    const segment = this.#current();
    segment.busy = true;
    try {
      const handle = await segment.handle;
      const bytes = Buffer.concat(group.flatMap((w) => w.frames));
      const pooled = group.length >= this.#poolFrom;
      if (FAULTS_ARMED) failAsInjected(this.#dir, handle.fd, bytes, segment.end);
      for (let done = 0; done < bytes.length;) {
        done += pooled
          ? (await handle.write(bytes, done, bytes.length - done, segment.end + done)).bytesWritten
          : writeSync(handle.fd, bytes, done, bytes.length - done, segment.end + done);
      }
      segment.end += bytes.length; // only now: a failed group is overwritten by the next
      segment.lastPosition = group.at(-1)!.positions.at(-1)!;
      for (const w of group) w.resolve(w.positions);
    } catch (error) {
      for (const w of group) w.reject(error);
      if (
        await segment.handle.then(
          () => false,
          () => true,
        )
      ) {
        // never opened: the next group tries a new one
        this.#segments = this.#segments.filter((s) => s !== segment);
        this.#rollPending = true;
      }
    } finally {
      segment.busy = false;
      this.#writing = false;
      if (this.#waiting.length > 0) this.#schedule();
    }
  }

  /** Returns the segment the next group goes to, opening a new one after roll(). */
  #current(): Segment {
    const last = this.#segments.at(-1);
    if (!this.#rollPending && last !== undefined) return last;
    this.#rollPending = false;
    const name = segmentName(this.#identity, this.#writer, ++this.#segmentNumber);
    const path = join(this.#dir, name);
    const spare = this.#spare;
    this.#spare = null;
    const dsync = this.#sync ? constants.O_DSYNC : 0;
    // the spare when there is one (written over from its start), else a new file
    const opened =
      spare !== null
        ? rename(spare, path).then(() => open(path, constants.O_WRONLY | dsync))
        : open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | dsync, 0o600);
    const handle = opened.then((file) => {
      if (this.#sync) syncDir(this.#dir); // the file's name must survive power loss with its records
      return file;
    });
    handle.catch(() => {}); // a failure shows at the group that awaits it
    const segment: Segment = { name, handle, end: 0, lastPosition: 0, busy: false };
    this.#segments.push(segment);
    return segment;
  }
}
