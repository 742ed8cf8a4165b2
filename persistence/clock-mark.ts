// The instant hcd has judged every deadline up to, in DATA_DIR/clock: after a stop or a crash it tells
// since when hcd was not running (CONTRACT "hcd's own downtime and clock"), and a virtual clock resumes
// from it. Written in place about once a second without a sync: after a power loss it may be a little
// old, which only makes the downtime it reports start a little earlier.
import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Millis } from "../engine/model.ts";

const FILE = "clock";
// "hcdr" for a real clock's mark, "hcdv" for a virtual one's: a run ignores the other kind's (a virtual
// clock moved a year ahead must not hold a real one back for a year)
const MAGIC = { real: 0x68636472, virtual: 0x68636476 } as const;
const SIZE = 12; // magic, then the instant as a float64, both big-endian

export class ClockMark {
  readonly #fd: number;
  readonly #buffer = Buffer.alloc(SIZE);
  #lastAt: Millis | null;

  private constructor(fd: number, magic: number, lastAt: Millis | null) {
    this.#fd = fd;
    this.#lastAt = lastAt;
    this.#buffer.writeUInt32BE(magic, 0);
  }

  /** Opens (or creates) the mark of `dataDir` for a clock of `kind`; `lastAt` is what the previous run of that kind reached, or null. */
  static open(dataDir: string, kind: "real" | "virtual"): ClockMark {
    const fd = openSync(join(dataDir, FILE), "a+"); // created if missing, never truncated
    closeSync(fd);
    const rw = openSync(join(dataDir, FILE), "r+");
    return new ClockMark(rw, MAGIC[kind], readMark(rw, MAGIC[kind]));
  }

  /** The latest instant recorded (by this run or, before its first record, by the previous one); null = none. */
  get lastAt(): Millis | null {
    return this.#lastAt;
  }

  /** Records that every deadline up to `at` was judged; an earlier instant than the one recorded is ignored. */
  record(at: Millis): void {
    if (this.#lastAt !== null && at <= this.#lastAt) return;
    this.#lastAt = at;
    this.#buffer.writeDoubleBE(at, 4);
    writeSync(this.#fd, this.#buffer, 0, SIZE, 0);
  }

  close(): void {
    closeSync(this.#fd);
  }
}

/** Reads a mark of the clock kind `magic` names, or null when the file is new, cut short, of the other kind or not a mark. */
function readMark(fd: number, magic: number): Millis | null {
  const buffer = Buffer.alloc(SIZE);
  if (readSync(fd, buffer, 0, SIZE, 0) !== SIZE || buffer.readUInt32BE(0) !== magic) return null;
  const at = buffer.readDoubleBE(4);
  return Number.isFinite(at) ? at : null;
}
