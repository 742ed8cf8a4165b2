// Request bodies: the API's, read whole up to a limit (larger → 413) and parsed as JSON objects; and ping
// bodies, cut to a limit (the rest read and dropped, never buffered).
import type { Outcome } from "../engine/outcome.ts";
import { invalid, ok } from "../engine/outcome.ts";
import type { H3Event } from "h3";
import { httpError } from "./errors.ts";

/** Largest API request body accepted, in bytes (larger → 413). */
export const MAX_BODY_BYTES = 64 * 1024;

export type JsonObject = { readonly [key: string]: unknown };

/** Returns the request body bytes; throws 413 when it exceeds `limit` bytes. */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;

export async function readBodyBytes(req: Request, limit: number = MAX_BODY_BYTES): Promise<Uint8Array> {
  const tooLarge = () => httpError(413, `request body larger than ${limit} bytes`);
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > DRAIN_MAX_BYTES) throw tooLarge();
  if (req.body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    let read: ReadableStreamReadResult<Uint8Array>;
    try {
      read = await reader.read();
    } catch {
      throw httpError(400, "request body incomplete"); // the client went away mid-body: not our error
    }
    if (read.done) break;
    size += read.value.byteLength;
    // Past the limit, keep reading (and dropping) up to DRAIN_MAX_BYTES: a client still uploading
    // then gets to read the 413 instead of a connection reset.
    if (size > DRAIN_MAX_BYTES) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    if (size <= limit) chunks.push(read.value);
  }
  if (size > limit) throw tooLarge();
  return Buffer.concat(chunks, size);
}

/** Returns the body as a JSON object whatever the Content-Type (curl --data); empty → {}. Outcome failures are 400s. */
export function parseJsonObject(bytes: Uint8Array, opts: { nullAsEmpty: boolean } = { nullAsEmpty: false }): Outcome<JsonObject> {
  if (bytes.byteLength === 0) return ok({});
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return invalid("", "could not parse request body");
  }
  // project decision: pause/resume take a JSON null as an empty body (the Ansible collection sends it)
  if (value === null && opts.nullAsEmpty) return ok({});
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return invalid("", "json validation error: value is not an object");
  return ok(value as JsonObject);
}

/** A validated create/update request: the spec in engine units and the upsert fields. */

/** Returns a Node request's body cut to `limit` bytes, or null when there is none. */
export function readNodeBodyCut(
  req: NodeJS.EventEmitter & { readonly headers: Readonly<Record<string, string | string[] | undefined>> },
  limit: number,
): Promise<Uint8Array | null> {
  const headers = req.headers;
  const length = headers["content-length"];
  if (headers["transfer-encoding"] === undefined && (length === undefined || length === "0")) return Promise.resolve(null);
  return collect(req, limit);
}

/**
 * Returns the request body cut to `limit` bytes, or null when there is none. The whole body is consumed,
 * but bytes past the limit are dropped as they arrive: a body far over the limit is accepted, never buffered.
 */
export async function readBodyCut(event: H3Event, limit: number): Promise<Uint8Array | null> {
  const node = event.runtime?.node?.req;
  if (node !== undefined) return readNodeBodyCut(node, limit);
  const stream = event.req.body;
  if (stream === null) return null;
  const kept = keeper(limit);
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return kept.result();
    kept.add(value);
  }
}

function collect(source: NodeJS.EventEmitter, limit: number): Promise<Uint8Array | null> {
  const kept = keeper(limit);
  return new Promise((resolve, reject) => {
    let ended = false;
    source.on("data", (chunk: Buffer) => kept.add(chunk));
    source.on("end", () => {
      ended = true;
      resolve(kept.result());
    });
    // the client went away mid-body: a 400 nobody reads, not a server error
    const incomplete = () => reject(httpError(400, "request body incomplete"));
    source.on("error", incomplete);
    source.on("close", () => {
      if (!ended) incomplete();
    });
  });
}

/** Keeps the first `limit` bytes of the chunks it is given. */
function keeper(limit: number): { add(chunk: Uint8Array): void; result(): Uint8Array | null } {
  const chunks: Uint8Array[] = [];
  let size = 0;
  return {
    add(chunk) {
      if (size >= limit) return;
      const take = Math.min(chunk.byteLength, limit - size);
      chunks.push(take === chunk.byteLength ? chunk : chunk.subarray(0, take));
      size += take;
    },
    result() {
      if (size === 0) return null;
      // always a compact copy: a chunk may be a view into a larger socket buffer, which a worker hop would clone whole
      const body = new Uint8Array(size);
      let offset = 0;
      for (const chunk of chunks) {
        body.set(chunk, offset);
        offset += chunk.byteLength;
      }
      return body;
    },
  };
}
