// The stretches of time hcd was not running (DATA_DIR/unknown-time; CONTRACT "Alerting, third part"): each
// start that finds the previous run's clock mark behind records the stretch from it to the start, synced
// before any request is served, so status pages, uptime figures and the downtime table can show that time
// as unknown instead of up or down. Fixed records of two float64 (from, to), big-endian; a torn last
// record is dropped, and spans older than KEEP_MS are let go when the file is written anew.
import { closeSync, existsSync, fdatasyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Downtime, Millis } from "../engine/model.ts";
import { DAY } from "../engine/model.ts";

/** The file's name in DATA_DIR (backups carry it). */
export const UNKNOWN_TIME_FILE = "unknown-time";
const RECORD = 16;
/** How long spans are kept: a report or a downtime table reaches back at most a year and a month. */
export const KEEP_MS = 400 * DAY;
/** At most this many spans are kept (the newest). */
const MAX_SPANS = 1_000;

export class UnknownTimeFile {
  readonly #path: string;
  #spans: Downtime[];

  private constructor(path: string, spans: Downtime[]) {
    this.#path = path;
    this.#spans = spans;
  }

  /** Opens the file of `dataDir` (none yet: no spans). */
  static open(dataDir: string): UnknownTimeFile {
    const path = join(dataDir, UNKNOWN_TIME_FILE);
    const bytes = existsSync(path) ? readFileSync(path) : Buffer.alloc(0);
    const spans = decode(bytes);
    if (bytes.length % RECORD !== 0) rewrite(path, spans); // a torn record: the next append starts on a record's boundary
    return new UnknownTimeFile(path, spans);
  }

  /** Every span recorded, oldest first. */
  spans(): readonly Downtime[] {
    return this.#spans;
  }

  /**
   * Records a span (on disk, synced, before it returns); spans older than KEEP_MS before its end are let go,
   * and the file is written anew (a temporary file, synced, renamed) when they were.
   */
  record(span: Downtime): void {
    if (span.toAt <= span.fromAt) return;
    const kept = mergeSpans([...this.#spans, span])
      .filter((s) => s.toAt > span.toAt - KEEP_MS)
      .slice(-MAX_SPANS);
    if (kept.length === this.#spans.length + 1 && kept.at(-1) === span) append(this.#path, span);
    else rewrite(this.#path, kept);
    this.#spans = kept;
  }
}

/**
 * The spans in time order with overlapping ones joined (a retried takeover records its span again); spans
 * that only touch stay apart: hcd ran at that instant (a start stopped at once leaves no judged time between).
 */
export function mergeSpans(spans: readonly Downtime[]): Downtime[] {
  const sorted = [...spans].sort((a, b) => a.fromAt - b.fromAt);
  const merged: Downtime[] = [];
  for (const span of sorted) {
    const last = merged.at(-1);
    if (last !== undefined && span.fromAt < last.toAt) {
      if (span.toAt > last.toAt) merged[merged.length - 1] = { fromAt: last.fromAt, toAt: span.toAt };
    } else merged.push(span);
  }
  return merged;
}

function encode(spans: readonly Downtime[]): Buffer {
  const buffer = Buffer.alloc(spans.length * RECORD);
  spans.forEach((span, i) => {
    buffer.writeDoubleBE(span.fromAt, i * RECORD);
    buffer.writeDoubleBE(span.toAt, i * RECORD + 8);
  });
  return buffer;
}

function decode(bytes: Buffer): Downtime[] {
  const spans: Downtime[] = [];
  for (let at = 0; at + RECORD <= bytes.length; at += RECORD) {
    // a torn last record is left out
    const fromAt: Millis = bytes.readDoubleBE(at),
      toAt: Millis = bytes.readDoubleBE(at + 8);
    if (Number.isFinite(fromAt) && Number.isFinite(toAt) && toAt > fromAt) spans.push({ fromAt, toAt });
  }
  return mergeSpans(spans);
}

function append(path: string, span: Downtime): void {
  const fd = openSync(path, "a", 0o600);
  try {
    writeSync(fd, encode([span]));
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function rewrite(path: string, spans: readonly Downtime[]): void {
  const temporary = `${path}.tmp`;
  const fd = openSync(temporary, "w", 0o600);
  try {
    writeSync(fd, encode(spans));
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
}
