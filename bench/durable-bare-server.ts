// The durable baseline: bare node:http that makes each request durable before it answers, the least
// any server that acknowledges a ping only once it is on disk must do. Each request's record (its time,
// method, path, address, user agent and body, about 200 bytes with a 35-byte body) is framed with its
// length and a CRC-32; the records of one event-loop turn go to disk in one write to a file opened with
// O_DSYNC, in the HTTP thread, and each request is answered "OK" when that write returns. No parsing,
// no state, no other thread. The file starts again from its beginning past 64 MiB, so a long run keeps
// one bounded file (the write then overwrites pages the file already holds). Prints
// "durable bare: listening on <url>". DATA_DIR: where the file goes (required).
import { closeSync, constants, openSync, rmSync, writeSync } from "node:fs";
import { createServer } from "node:http";
import type { ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { crc32 } from "node:zlib";
import { answerOk, readRecord } from "./request-record.ts";

const WRAP_BYTES = 64 * 1024 * 1024;
const dataDir = process.env.DATA_DIR;
if (dataDir === undefined) throw new Error("DATA_DIR is required");
const file = join(dataDir, "durable-bare.log");
const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_DSYNC, 0o600);
let end = 0;

let group: { frame: Buffer; res: ServerResponse }[] = [];
let scheduled = false;

/** Writes the turn's records in one synced write, then answers their requests. */
function writeGroup(): void {
  scheduled = false;
  const answering = group;
  group = [];
  const bytes = Buffer.concat(answering.map((g) => g.frame));
  if (end + bytes.length > WRAP_BYTES) end = 0;
  for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done, end + done);
  end += bytes.length;
  for (const { res } of answering) {
    answerOk(res);
  }
}

const server = createServer((req, res) => {
  readRecord(req, (record) => {
    const frame = Buffer.allocUnsafe(8 + record.length);
    frame.writeUInt32LE(record.length, 0);
    frame.writeUInt32LE(crc32(record), 4);
    record.copy(frame, 8);
    group.push({ frame, res });
    if (!scheduled) {
      scheduled = true;
      setImmediate(writeGroup);
    }
  });
});
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  console.log(`durable bare: listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.on("SIGTERM", () => {
  closeSync(fd);
  rmSync(file, { force: true });
  process.exit(0);
});
