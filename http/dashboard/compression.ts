// Compressed dashboard answers (node:zlib): brotli when the browser takes it, else gzip, for text bodies
// (HTML, JSON, JavaScript, CSS, SVG) of at least MIN_BYTES; a smaller one would gain less than the
// compression costs. A 100-row page of the checks list is some 45 kB of HTML and some 6 kB compressed.
import { promisify } from "node:util";
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from "node:zlib";
import { HTTPResponse } from "h3";

/** Bodies smaller than this go out as they are. */
export const MIN_BYTES = 1024;

export type Encoding = "br" | "gzip";

// Fast settings: on a 100-row page (some 55 kB) brotli's quality 3 takes about a millisecond here and
// gives within 2% of quality 5's size at a quarter of its time (11, the default, is many times slower);
// gzip's level 3 is the fastest kind of deflate, a few percent larger than level 6
const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 3 } };
const GZIP_OPTIONS = { level: 3 };
const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

const COMPRESSIBLE = /^(text\/|application\/json|image\/svg\+xml)/;

/** Returns the encoding to answer in for an Accept-Encoding header: br before gzip; null for none (absent, identity, or q=0). */
export function encodingFor(acceptEncoding: string | null): Encoding | null {
  if (acceptEncoding === null) return null;
  const accepted = new Map<string, number>();
  for (const item of acceptEncoding.split(",")) {
    const [name, ...params] = item.trim().toLowerCase().split(";");
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find((m) => m !== null);
    accepted.set(name.trim(), q === undefined || q === null ? 1 : Number(q[1]));
  }
  const takes = (name: Encoding) => (accepted.get(name) ?? accepted.get("*") ?? 0) > 0;
  return takes("br") ? "br" : takes("gzip") ? "gzip" : null;
}

/** Bodies up to this size are compressed at once; larger ones in zlib's thread pool. */
const AT_ONCE_BYTES = 64 * 1024;

/**
 * Compresses `bytes` in `encoding`: at once up to AT_ONCE_BYTES (a 100-row page takes about a millisecond,
 * a refresh's few changed rows a tenth of that: less than handing them to the thread pool and back),
 * larger bodies off the event loop.
 */
export async function compress(bytes: Uint8Array, encoding: Encoding): Promise<Uint8Array<ArrayBuffer>> {
  if (bytes.byteLength <= AT_ONCE_BYTES) return compressNow(bytes, encoding);
  return arrayView(await (encoding === "br" ? brotliAsync(bytes, BROTLI_OPTIONS) : gzipAsync(bytes, GZIP_OPTIONS)));
}

/** Compresses `bytes` in `encoding` at once: for the static files, compressed once at start. */
export function compressNow(bytes: Uint8Array, encoding: Encoding): Uint8Array<ArrayBuffer> {
  return arrayView(encoding === "br" ? brotliCompressSync(bytes, BROTLI_OPTIONS) : gzipSync(bytes, GZIP_OPTIONS));
}

/** A zlib result as a plain view over its ArrayBuffer (what a response body takes). */
function arrayView(buffer: Buffer): Uint8Array<ArrayBuffer> {
  return new Uint8Array(buffer.buffer as ArrayBuffer, buffer.byteOffset, buffer.byteLength);
}

/**
 * Returns `response` compressed for a request that sent `acceptEncoding`, with Vary: Accept-Encoding on
 * every answer whose body could be compressed; `response` itself when it has no body, is not text, is
 * below MIN_BYTES or is encoded already.
 */
export async function compressedResponse(response: HTTPResponse, acceptEncoding: string | null): Promise<HTTPResponse> {
  const body = response.body;
  const headers = response.headers;
  if (body === null || body === undefined || headers.has("content-encoding")) return response;
  if (!COMPRESSIBLE.test(headers.get("content-type") ?? "")) return response;
  headers.append("vary", "Accept-Encoding");
  const encoding = encodingFor(acceptEncoding);
  if (encoding === null) return response;
  const bytes = await bytesOf(body);
  if (bytes === null) return response;
  if (bytes.byteLength < MIN_BYTES) return new HTTPResponse(bytes, { status: response.status, headers }); // the body was read: sent as read
  const packed = await compress(bytes, encoding);
  const out = new Headers(headers);
  out.set("content-encoding", encoding);
  out.set("content-length", String(packed.byteLength));
  return new HTTPResponse(packed, { status: response.status, headers: out });
}

/** The bytes of a body the dashboard makes (a string, bytes, or a stream of parts); null for any other kind. */
async function bytesOf(body: BodyInit): Promise<Uint8Array<ArrayBuffer> | null> {
  if (typeof body === "string") return new TextEncoder().encode(body);
  if (body instanceof Uint8Array) return body as Uint8Array<ArrayBuffer>; // a BodyInit's view is over an ArrayBuffer
  if (body instanceof ReadableStream) return new Uint8Array(await new Response(body).arrayBuffer());
  return null;
}
