// What a bare bench server keeps of a request, the same in each: its time, method, URL, address, user agent
// and body (up to MAX_BODY_BYTES) as one JSON text, and the answer once it is kept.
import type { IncomingMessage, ServerResponse } from "node:http";

const MAX_BODY_BYTES = 100_000;

/** Reads the request's body and hands its record (JSON) to `kept`. */
export function readRecord(req: IncomingMessage, kept: (record: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on("data", (chunk: Buffer) => {
    if (size < MAX_BODY_BYTES) chunks.push(chunk.subarray(0, MAX_BODY_BYTES - size));
    size += chunk.length;
  });
  req.on("end", () =>
    kept(
      Buffer.from(
        JSON.stringify({
          at: Date.now(),
          method: req.method,
          url: req.url,
          addr: req.socket.remoteAddress,
          ua: req.headers["user-agent"] ?? "",
          body: Buffer.concat(chunks).toString("latin1"),
        }),
      ),
    ),
  );
}

/** Answers a kept request as hcd answers a ping: 200 "OK". */
export function answerOk(res: ServerResponse): void {
  if (!res.destroyed) res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "content-length": "2" }).end("OK");
}
