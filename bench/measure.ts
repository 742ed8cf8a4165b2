// What the benches measure with: medians and percentiles, CPU time and memory of a process from /proc,
// store size on disk, and the progress line on stderr. Benches may read real time (STYLE.md).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux this runs on (getconf CLK_TCK)

/** Returns the median of `values` (NaN when empty). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** Returns the p-th percentile (0-100, nearest rank) of already sorted values (NaN when empty). */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** Returns milliseconds elapsed since `startedNs` (a process.hrtime.bigint() reading). */
export function msSince(startedNs: bigint): number {
  return Number(process.hrtime.bigint() - startedNs) / 1e6;
}

/** Returns the CPU seconds (user + system, all threads) process `pid` has used, or null when it is gone. */
export function cpuSecondsOf(pid: number): number | null {
  return ticksOf(`/proc/${pid}/stat`);
}

/** The messages every NATS server has taken in and sent out so far (its /varz monitor counts clients' and routes' both). */
export async function natsMessages(monitorUrls: readonly string[]): Promise<{ in: number; out: number }> {
  const counts = await Promise.all(
    monitorUrls.map(async (url) => (await (await fetch(`${url}/varz`)).json()) as { in_msgs: number; out_msgs: number }),
  );
  return { in: counts.reduce((sum, c) => sum + c.in_msgs, 0), out: counts.reduce((sum, c) => sum + c.out_msgs, 0) };
}

/** Returns CPU seconds of process `pid` split into its main thread and all its other threads, or null. */
export function threadCpuOf(pid: number): { main: number; others: number } | null {
  try {
    let main = 0,
      others = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const seconds = ticksOf(`/proc/${pid}/task/${tid}/stat`) ?? 0;
      if (Number(tid) === pid) main += seconds;
      else others += seconds;
    }
    return { main, others };
  } catch {
    return null;
  }
}

function ticksOf(statFile: string): number | null {
  try {
    const text = readFileSync(statFile, "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" "); // fields after "(comm)": state is fields[0]
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND; // utime, stime (fields 14, 15)
  } catch {
    return null;
  }
}

/** Resident memory of a process in bytes: total, anonymous (heaps, native allocations) and file-backed (mmapped store). */
export type Memory = { readonly rss: number; readonly anon: number; readonly file: number };

/** Returns the resident memory of process `pid` (default: this one) from /proc/<pid>/status. */
export function memoryOf(pid: number | "self" = "self"): Memory {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: kib("VmRSS"), anon: kib("RssAnon"), file: kib("RssFile") + kib("RssShmem") };
}

/** Returns the bytes a directory's files occupy on disk, as du counts them (allocated blocks, not apparent size). */
export function diskBytesOf(dir: string): number {
  let bytes = 0;
  for (const name of readdirSync(dir)) {
    const stat = statSync(join(dir, name));
    bytes += stat.isDirectory() ? diskBytesOf(join(dir, name)) : stat.blocks * 512;
  }
  return bytes;
}

/** Runs the garbage collector when the process was started with --expose-gc (twice: weak refs need a second pass). */
export function collectGarbage(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return false;
  gc();
  gc();
  return true;
}

/**
 * The progress line: `hcd bench: <scenario> <n>/<total> <detail>` on stderr, rewritten in place on a
 * terminal (at most 10 times a second); elsewhere a new line at most every 10 s, so logs stay short.
 */
export class Progress {
  readonly #scenario: string;
  readonly #tty = process.stderr.isTTY === true;
  #lastNs = 0n;
  #shown = false;

  constructor(scenario: string) {
    this.#scenario = scenario;
  }

  /** Shows step `n` of `total`; `force` shows it even if the last update was very recent. */
  update(n: number, total: number, detail = "", force = false): void {
    const now = process.hrtime.bigint();
    const minGapNs = this.#tty ? 100_000_000n : 10_000_000_000n;
    if (!force && this.#shown && now - this.#lastNs < minGapNs) return;
    this.#lastNs = now;
    this.#shown = true;
    const line = `hcd bench: ${this.#scenario} ${n}/${total} ${detail}`.trimEnd();
    process.stderr.write(this.#tty ? `\r${line.slice(0, (process.stderr.columns ?? 120) - 1)}\x1b[K` : `${line}\n`);
  }

  /** Clears the line (on a terminal) so that the next output starts clean. */
  done(): void {
    if (this.#tty && this.#shown) process.stderr.write("\r\x1b[K");
    this.#shown = false;
  }
}

/** Returns a promise that resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Returns the bytes process `pid` (all its threads) has caused to be written to storage, from /proc/<pid>/io; null when unreadable. */
export function writeBytesOf(pid: number | "self" = "self"): number | null {
  try {
    const match = /^write_bytes:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, "utf8"));
    return match === null ? null : Number(match[1]);
  } catch {
    return null;
  }
}

/**
 * Returns the bytes written so far to the block device that holds `path` (its sectors written, from
 * /sys/dev/block/<major>:<minor>/stat), or null when unknown. This is what reached the disk from every
 * process, the file system's journal included, rather than what one process dirtied in the page cache.
 */
export function deviceBytesWritten(path: string): number | null {
  try {
    const dev = statSync(path).dev;
    const major = (dev >> 8) & 0xfff,
      minor = (dev & 0xff) | ((dev >> 12) & 0xfff00);
    const fields = readFileSync(`/sys/dev/block/${major}:${minor}/stat`, "utf8").trim().split(/\s+/);
    const sectors = Number(fields[6]); // sectors written, 512 bytes each whatever the device's own size
    return Number.isFinite(sectors) ? sectors * 512 : null;
  } catch {
    return null;
  }
}

/**
 * Waits until process `pid` has written nothing for `quietMs` (the store's checkpoints and syncs are
 * done), at least `minMs` and at most `maxMs`; returns its write_bytes then.
 */
export async function settledWriteBytes(pid: number | "self", options: { minMs: number; quietMs: number; maxMs: number }): Promise<number> {
  const started = process.hrtime.bigint();
  let last = writeBytesOf(pid) ?? Number.NaN,
    quietSince = msSince(started);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = writeBytesOf(pid) ?? Number.NaN,
      elapsed = msSince(started);
    if (now !== last) {
      last = now;
      quietSince = elapsed;
    }
    if (elapsed >= options.maxMs || (elapsed >= options.minMs && elapsed - quietSince >= options.quietMs)) return last;
  }
}
