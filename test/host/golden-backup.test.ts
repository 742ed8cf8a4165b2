// Golden bytes of the backup archive (host/backup-archive.ts): a fixed pair of files packed on a fixed
// date must give exactly these bytes (mark, header length, JSON header, the files, SHA-256), and these
// bytes must unpack to the files: a backup made by one build is restored by a later one.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { packArchive, unpackArchive } from "../../host/backup-archive.ts";
import { fromHex, toHex } from "../golden-values.ts";
import { tempDir } from "../helpers.ts";

const HEADER = '{"created":"2026-01-01T00:00:00.000Z","files":[{"path":"data.mdb","size":6},{"path":"badge-secret","size":2}]}';
const ARCHIVE = Buffer.concat([
  fromHex("48434442 41434b55 50310a"), // "HCDBACKUP1\n"
  fromHex("0000006e"), // the header's length, 110, big-endian
  Buffer.from(HEADER, "utf8"),
  Buffer.from("tables", "utf8"), // data.mdb
  Buffer.from("s3", "utf8"), // badge-secret
  fromHex("c6225ad375aaa06f130b4eb623c62cf2f07dff3115774cf8ed00476d5f76453d"), // SHA-256 of every byte above
]);

test("a backup archive's bytes: mark, header length, header, files, checksum", async () => {
  const dir = tempDir();
  try {
    writeFileSync(join(dir.path, "data.mdb"), "tables");
    writeFileSync(join(dir.path, "badge-secret"), "s3");
    const chunks: Buffer[] = [];
    for await (const chunk of packArchive(dir.path, ["data.mdb", "badge-secret"], new Date(Date.UTC(2026, 0, 1))))
      chunks.push(chunk as Buffer);
    assert.is(toHex(Buffer.concat(chunks)), toHex(ARCHIVE));
  } finally {
    dir.remove();
  }
});

test("these bytes unpack to the files and their header", async () => {
  const dir = tempDir();
  try {
    const file = join(dir.path, "golden.hcdbackup");
    writeFileSync(file, ARCHIVE);
    const header = await unpackArchive(file, join(dir.path, "restored"));
    assert.equal(header, JSON.parse(HEADER));
    assert.is(readFileSync(join(dir.path, "restored", "data.mdb"), "utf8"), "tables");
    assert.is(readFileSync(join(dir.path, "restored", "badge-secret"), "utf8"), "s3");
  } finally {
    dir.remove();
  }
});

test.run();
