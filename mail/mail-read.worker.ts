// Worker entry of the mail reader: parses messages off the thread that answers pings (see mail-reader.ts).
import { createHash } from "node:crypto";
import { parentPort } from "node:worker_threads";
import { readMail } from "./message.ts";
import type { ReadReply, ReadRequest } from "./mail-reader.ts";

const port = parentPort;
if (port === null) throw new Error("mail-read.worker.ts runs as a worker thread");

port.on("message", ({ id, raw }: ReadRequest) => {
  readMail(raw)
    .then(
      (content): ReadReply => ({ id, ok: true, content, digest: createHash("sha256").update(raw).digest("base64url") }),
      (error: unknown): ReadReply => ({ id, ok: false, message: error instanceof Error ? error.message : String(error) }),
    )
    .then((reply) => port.postMessage(reply))
    .catch((error: unknown) => port.postMessage({ id, ok: false, message: String(error) } satisfies ReadReply));
});
