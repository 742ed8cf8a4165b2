// The backup file: a small archive of the store's files with a header and a checksum, written as a
// stream (the server sends it while it reads the files) and checked whole before anything is trusted.
//
//   "HCDBACKUP1\n"                     11 bytes, the format and its version
//   header length                      4 bytes, big-endian
//   header                             JSON: {"created": ISO 8601, "files": [{"path", "size"}, ...]}
//   the files' bytes, in header order
//   SHA-256 of every byte above        32 bytes
import { createHash } from "node:crypto";
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  closeSync,
  rmSync,
  statSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { Readable, Transform } from "node:stream";
import { isSegmentName } from "../persistence/file-log.ts";
import { ACCOUNTS_FILE } from "../persistence/accounts-file.ts";
import { UNKNOWN_TIME_FILE } from "../persistence/unknown-time.ts";

const MAGIC = Buffer.from("HCDBACKUP1\n", "ascii");
const DIGEST_BYTES = 32;
const MAX_HEADER_BYTES = 64 * 1024;
/** The tables' LMDB data file, in every archive. */
export const TABLES_FILE = "data.mdb";
/** The store's command logs, beside the tables (and, in archives of older stores, their journal env). */
const LEGACY_JOURNAL_FILE = "journal/data.mdb";
/** Returns true for a command log's segment under log/ (a plain name: no other directory, no ".."). */
const isLogFile = (path: string) => path.startsWith("log/") && isSegmentName(path.slice(4));

/** Returns the store's files in `dir` (paths relative to it) as an archive lists them: the logs, then the tables. */
export function storeFiles(dir: string): string[] {
  const logs = existsSync(join(dir, "log"))
    ? readdirSync(join(dir, "log"))
        .filter(isSegmentName)
        .map((name) => `log/${name}`)
    : [];
  return [...logs.sort(), TABLES_FILE];
}
/** The audit log's LMDB data file (persistence/audit-log.ts, DATA_DIR/audit): in archives made since it exists. */
export const AUDIT_FILE = "audit/data.mdb";
/** The server's badge secret: in an archive when DATA_DIR had one, so published badge URLs survive a restore. */
export const BADGE_SECRET_FILE = "badge-secret";

/** A backup file that cannot be used, with the reason in words. */
export class ArchiveError extends Error {}

type Header = { readonly created: string; readonly files: readonly { readonly path: string; readonly size: number }[] };

/**
 * Returns the archive of `files` (paths relative to `dir`) as a stream of bytes; the checksum comes last.
 * A file whose size changes while it is read fails the stream.
 */
export function packArchive(dir: string, files: readonly string[], created: Date): Readable {
  const header: Header = { created: created.toISOString(), files: files.map((path) => ({ path, size: statSync(join(dir, path)).size })) };
  const headerBytes = Buffer.from(JSON.stringify(header), "utf8");
  const length = Buffer.alloc(4);
  length.writeUInt32BE(headerBytes.length);
  async function* chunks(): AsyncGenerator<Buffer> {
    const hash = createHash("sha256");
    const emit = (chunk: Buffer) => {
      hash.update(chunk);
      return chunk;
    };
    yield emit(MAGIC);
    yield emit(length);
    yield emit(headerBytes);
    for (const file of header.files) {
      let read = 0;
      for await (const chunk of createReadStream(join(dir, file.path))) {
        read += (chunk as Buffer).length;
        yield emit(chunk as Buffer);
      }
      if (read !== file.size) throw new ArchiveError(`${file.path} changed size while it was read`);
    }
    yield hash.digest();
  }
  return Readable.from(chunks(), { objectMode: false });
}

/** Reads and checks an archive's header and length; throws ArchiveError naming what is wrong. */
export function readArchiveHeader(file: string): { header: Header; dataStart: number; total: number } {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw new ArchiveError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const fd = openSync(file, "r");
  try {
    const head = Buffer.alloc(MAGIC.length + 4);
    if (readSync(fd, head, 0, head.length, 0) < head.length || !head.subarray(0, MAGIC.length).equals(MAGIC)) {
      throw new ArchiveError(`${file} is not an hcd backup (it does not start with the backup format's mark)`);
    }
    const headerLength = head.readUInt32BE(MAGIC.length);
    if (headerLength > MAX_HEADER_BYTES) throw new ArchiveError(`${file} is corrupt: header length ${headerLength}`);
    const headerBytes = Buffer.alloc(headerLength);
    if (readSync(fd, headerBytes, 0, headerLength, head.length) < headerLength)
      throw new ArchiveError(`${file} is truncated: it ends inside its header`);
    const header = parseHeader(headerBytes, file);
    const dataStart = head.length + headerLength;
    const total = dataStart + header.files.reduce((sum, f) => sum + f.size, 0) + DIGEST_BYTES;
    if (size < total) throw new ArchiveError(`${file} is truncated: ${size} of ${total} bytes`);
    if (size > total) throw new ArchiveError(`${file} is corrupt: ${size - total} bytes more than its header announces`);
    return { header, dataStart, total };
  } finally {
    closeSync(fd);
  }
}

function parseHeader(bytes: Buffer, file: string): Header {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new ArchiveError(`${file} is corrupt: its header is not JSON`);
  }
  const header = parsed as { created?: unknown; files?: unknown } | null;
  const files: unknown = header?.files;
  // the only paths an archive may hold, each once: the tables, the badge secret, the users, the audit log, logs (or an older store's journal)
  const seen = new Set<string>();
  const allowedOnce = (path: string) => {
    if (
      !(
        path === TABLES_FILE ||
        path === BADGE_SECRET_FILE ||
        path === ACCOUNTS_FILE ||
        path === AUDIT_FILE ||
        path === UNKNOWN_TIME_FILE ||
        path === LEGACY_JOURNAL_FILE ||
        isLogFile(path)
      ) ||
      seen.has(path)
    )
      return false;
    seen.add(path);
    return true;
  };
  const isEntry = (f: unknown): f is Header["files"][number] => {
    const { path, size } = (typeof f === "object" && f !== null ? f : {}) as { path?: unknown; size?: unknown };
    return typeof path === "string" && typeof size === "number" && Number.isSafeInteger(size) && size >= 0;
  };
  const entries: readonly unknown[] = Array.isArray(files) ? files : [];
  const valid =
    typeof header?.created === "string" &&
    Array.isArray(files) &&
    entries.some((f) => isEntry(f) && f.path === TABLES_FILE) &&
    entries.every((f) => isEntry(f) && allowedOnce(f.path));
  if (!valid) throw new ArchiveError(`${file} is corrupt: its header lists unexpected files`);
  return header as Header;
}

/**
 * Unpacks the archive `file` into `dir`, which must be missing or empty; checks the length first and the
 * checksum while writing, and removes what it wrote when the checksum does not match. Returns the header.
 */
export async function unpackArchive(file: string, dir: string): Promise<Header> {
  const { header, dataStart, total } = readArchiveHeader(file);
  if (existsSync(dir) && readdirSync(dir).length > 0)
    throw new ArchiveError(`${dir} is not empty: restore only into a new or empty directory`);
  mkdirSync(dir, { recursive: true });
  const hash = createHash("sha256");
  hash.update(readAt(file, dataStart, 0));
  try {
    let offset = dataStart;
    for (const entry of header.files) {
      const target = join(dir, entry.path);
      mkdirSync(dirname(target), { recursive: true });
      if (entry.size > 0) {
        const hashing = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            hash.update(chunk);
            done(null, chunk);
          },
        });
        await pipeline(
          createReadStream(file, { start: offset, end: offset + entry.size - 1 }),
          hashing,
          createWriteStream(target, { flags: "wx", mode: 0o600 }),
        );
      } else {
        await pipeline(Readable.from([]), createWriteStream(target, { flags: "wx", mode: 0o600 }));
      }
      offset += entry.size;
    }
    if (!hash.digest().equals(readAt(file, DIGEST_BYTES, total - DIGEST_BYTES)))
      throw new ArchiveError(`${file} is corrupt: its checksum does not match its contents`);
    return header;
  } catch (error) {
    for (const name of readdirSync(dir)) rmSync(join(dir, name), { recursive: true, force: true }); // leave it empty, as found
    throw error;
  }
}

/** Checks a whole archive (length, header, checksum) without unpacking it; throws ArchiveError. Returns the header. */
export async function verifyArchive(file: string): Promise<Header> {
  const { header, total } = readArchiveHeader(file);
  const hash = createHash("sha256");
  if (total > DIGEST_BYTES) {
    for await (const chunk of createReadStream(file, { start: 0, end: total - DIGEST_BYTES - 1 })) hash.update(chunk as Buffer);
  }
  if (!hash.digest().equals(readAt(file, DIGEST_BYTES, total - DIGEST_BYTES)))
    throw new ArchiveError(`${file} is corrupt: its checksum does not match its contents`);
  return header;
}

/** Returns `length` bytes of `file` from `position` (the header's prefix, the checksum trailer). */
function readAt(file: string, length: number, position: number): Buffer {
  const bytes = Buffer.alloc(length);
  const fd = openSync(file, "r");
  try {
    readSync(fd, bytes, 0, length, position);
  } finally {
    closeSync(fd);
  }
  return bytes;
}
