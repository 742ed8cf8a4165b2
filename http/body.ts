// Request bodies: bytes read with a size limit, and JSON objects parsed from them (the same for every API).
import type { Outcome } from "../engine/outcome.ts";
import { invalid, ok } from "../engine/outcome.ts";
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
  if (typeof value !== "object" || value === null || Array.isArray(value)) return invalid("", "json validation error: value is not an object");
  return ok(value as JsonObject);
}

/** A validated create/update request: the spec in engine units and the upsert fields. */
