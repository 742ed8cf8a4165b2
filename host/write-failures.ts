// Store write failures (a full disk, EIO) as episodes: the first failure is logged, the requests refused
// meanwhile are not (a ping a second would otherwise log a line a second), and the first success after
// it ends the episode with one more line. While an episode lasts, the status endpoint answers 500.
// Writes are tried again only when the file system has room for them (and, for other causes such as
// EIO, after a delay that doubles up to 30 s): LMDB prints every failed write to stderr itself.
import { statfsSync } from "node:fs";
import { log } from "./log.ts";

const FIRST_RETRY_MS = 1_000;
const LAST_RETRY_MS = 30_000;
const SPARE_BYTES = 1024 * 1024; // room beyond the write itself: LMDB writes pages, and the tables grow too

/** A request refused because the store does not accept writes; the front end answers 500 without logging it. */
export class StoreUnavailableError extends Error {
  override readonly name = "StoreUnavailableError";
}

/** True for a StoreUnavailableError, also after it crossed a worker boundary (which keeps only name and message). */
export function isStoreUnavailable(error: unknown): boolean {
  return error instanceof Error && error.name === "StoreUnavailableError";
}

/** What failed: the commit to the log (changes refused) or a checkpoint (applying the log to the tables). */
export type WriteKind = "commit" | "checkpoint";

export class WriteFailures {
  readonly #label: string;
  readonly #dir: string;
  readonly #log: (line: string) => void;
  #retryMs = FIRST_RETRY_MS;
  #retryAt = 0;
  #failing = new Set<WriteKind>(); // kinds whose last attempt failed
  #since = 0;
  #refused = 0;

  /** `dir`: the data directory, whose file system is asked for free space before a write is tried again. */
  constructor(label: string, dir: string, write: (line: string) => void = (line) => log.error(line)) {
    this.#label = label;
    this.#dir = dir;
    this.#log = write;
  }

  /** True while an episode lasts: some kind of write failed and has not succeeded since. */
  get failing(): boolean {
    return this.#failing.size > 0;
  }

  /** True unless an episode lasts and a write of `bytes` should not be tried yet (no room, or too soon after the last failure). */
  mayTry(bytes: number): boolean {
    if (this.#failing.size === 0) return true;
    if (Date.now() < this.#retryAt) return false;
    try {
      const fs = statfsSync(this.#dir);
      return fs.bavail * fs.bsize >= bytes + SPARE_BYTES;
    } catch {
      return true; // no answer: let the write tell
    }
  }

  /** Records a failed write; logs only the first of an episode. */
  failed(kind: WriteKind, error: unknown): void {
    if (this.#failing.size === 0) {
      this.#since = Date.now();
      this.#refused = 0;
      this.#retryMs = FIRST_RETRY_MS;
    } else {
      this.#retryMs = Math.min(LAST_RETRY_MS, this.#retryMs * 2);
    }
    this.#retryAt = Date.now() + this.#retryMs;
    if (this.#failing.size === 0) {
      this.#log(`${this.#label}: the store refuses writes (${describe(error)}); changes are refused until it accepts them again`);
    }
    this.#failing.add(kind);
  }

  /** Counts a request refused during the episode (reported when it ends). */
  refused(): void {
    this.#refused++;
  }

  /** Records a successful write; ends the episode once every kind that failed has succeeded again. */
  succeeded(kind: WriteKind): void {
    if (!this.#failing.delete(kind) || this.#failing.size > 0) return;
    const seconds = ((Date.now() - this.#since) / 1000).toFixed(1);
    this.#log(`${this.#label}: the store accepts writes again after ${seconds} s (${this.#refused} changes refused meanwhile)`);
  }

  /** The error to refuse a change with while the episode lasts. */
  error(): StoreUnavailableError {
    return new StoreUnavailableError("store unavailable: writes are failing");
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return code !== undefined && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}
