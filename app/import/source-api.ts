// A Healthchecks Management API as a source (healthchecks.io, a self-hosted Healthchecks, or another hcd):
// GET requests with the project's key, answers read whole up to a bound, 429 answered by waiting as
// Retry-After says and asking again, a failed connection or a 5xx asked again a few times. Every answer
// is untrusted: what does not read is a SourceError naming the request.

/** A source that cannot be read: refused, unreachable, or answering what its API never answers. */
export class SourceError extends Error {}

export type SourceApiOptions = {
  readonly from: string;
  readonly apiKey: string;
  readonly progress: (line: string) => void;
  /** How long a 429 may make us wait at once, and in all (ms); default 5 min and 1 h. */
  readonly maxWaitMs?: number;
  readonly maxTotalWaitMs?: number;
};

/** Most bytes of a JSON answer, and of a ping body read (the rest of a longer body is cut). */
const MAX_JSON_BYTES = 64 * 1024 * 1024;
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
const REQUEST_MS = 60_000;
const RETRIES = 3;

export type SourceAnswer = { readonly status: number; readonly bytes: Uint8Array; readonly truncated: boolean };

export class SourceApi {
  readonly base: string;
  readonly #options: SourceApiOptions;
  #waitedMs = 0;

  constructor(options: SourceApiOptions) {
    this.#options = options;
    this.base = baseOf(options.from);
  }

  /** GET `path` (from the site root); answers 2xx and 4xx as they are, after waiting out 429s and retrying 5xx. */
  async get(path: string, maxBytes = MAX_JSON_BYTES): Promise<SourceAnswer> {
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.#fetch(`${this.base}${path}`);
      } catch (error) {
        if (error instanceof SourceError) throw error;
        if (attempt < RETRIES) {
          await sleep(1000 * 2 ** attempt);
          continue;
        }
        throw new SourceError(`GET ${this.base}${path} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (res.status === 429) {
        const waitMs = retryAfterMs(res.headers.get("retry-after"), this.#options.maxWaitMs ?? 300_000);
        await res.body?.cancel();
        this.#waitedMs += waitMs;
        if (this.#waitedMs > (this.#options.maxTotalWaitMs ?? 3_600_000))
          throw new SourceError(`GET ${path}: still rate limited (429) after waiting ${Math.round(this.#waitedMs / 1000)} s in all`);
        this.#options.progress(`source rate limit (429): waiting ${Math.ceil(waitMs / 1000)} s before GET ${path} again`);
        await sleep(waitMs);
        attempt = -1; // a wait the source asked for is not a failure
        continue;
      }
      if (res.status >= 500 && attempt < RETRIES) {
        await res.body?.cancel();
        await sleep(1000 * 2 ** attempt);
        continue;
      }
      return { status: res.status, ...(await readBounded(res, maxBytes)) };
    }
  }

  /** One GET, following redirects within the source's origin only: its key is never sent elsewhere. */
  async #fetch(url: string): Promise<Response> {
    let target = new URL(url);
    for (let hops = 0; ; hops++) {
      const res = await fetch(target, {
        headers: { "x-api-key": this.#options.apiKey, accept: "application/json" },
        signal: AbortSignal.timeout(REQUEST_MS),
        redirect: "manual",
      });
      const location = res.headers.get("location");
      if (res.status < 300 || res.status >= 400 || location === null) return res;
      await res.body?.cancel();
      const next = new URL(location, target);
      if (next.origin !== target.origin || hops >= 5)
        throw new SourceError(`GET ${target.pathname} redirects to ${next.origin}${next.pathname}: give that as --from`);
      target = next;
    }
  }

  /** GET `path` as JSON: {status, json} (json undefined when the answer is not JSON). */
  async getJson(path: string): Promise<{ status: number; json: unknown }> {
    const answer = await this.get(path);
    if (answer.truncated) throw new SourceError(`GET ${path}: the answer is larger than ${MAX_JSON_BYTES} bytes`);
    try {
      return { status: answer.status, json: JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(answer.bytes)) };
    } catch {
      return { status: answer.status, json: undefined };
    }
  }
}

/** The site root of a base URL given with or without its API path ("https://hc.example.com/api/v3/" → "https://hc.example.com"). */
export function baseOf(from: string): string {
  let url: URL;
  try {
    url = new URL(from);
  } catch {
    throw new SourceError(`--from ${JSON.stringify(from)} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new SourceError(`--from must be an http(s) URL`);
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "")
    throw new SourceError("--from takes the site's URL only (no credentials, query or fragment)");
  const path = url.pathname.replace(/\/+$/, "").replace(/\/api(\/v[123])?$/, "");
  return `${url.origin}${path}`;
}

/** Milliseconds to wait for a Retry-After value (seconds or an HTTP date); 10 s when absent or unreadable, at most `max`. */
export function retryAfterMs(value: string | null, max: number): number {
  if (value !== null && /^\d{1,9}$/.test(value.trim())) return Math.min(Number(value.trim()) * 1000, max);
  const date = value === null ? NaN : Date.parse(value);
  if (Number.isFinite(date)) return Math.min(Math.max(date - Date.now(), 0), max);
  return Math.min(10_000, max);
}

async function readBounded(res: Response, maxBytes: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (res.body === null) return { bytes: new Uint8Array(0), truncated: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const read = await reader.read();
    if (read.done) break;
    const room = maxBytes - size;
    if (read.value.length > room) {
      if (room > 0) chunks.push(read.value.subarray(0, room));
      await reader.cancel().catch(() => {});
      return { bytes: Buffer.concat(chunks, maxBytes), truncated: true };
    }
    chunks.push(read.value);
    size += read.value.length;
  }
  return { bytes: Buffer.concat(chunks, size), truncated: false };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
