// The Pinging API: /ping/<uuid>[/start|/fail|/log|/<exit-status>] and /ping/<ping-key>/<slug>[/...]
// (spec §4.4; the reference's routing and pipeline: fact sheet §1-2). This is the hot path: one clock
// read, one directory lookup, the body read only up to the project's limit, one pool call.
import type { H3, H3Event } from "h3";
import { HTTPError, HTTPResponse } from "h3";
import type { Failure } from "../../engine/outcome.ts";
import type { Millis, PingSignal, Project } from "../../engine/model.ts";
import { LIMITS } from "../../engine/model.ts";
import type { PingTarget, Pool } from "../../engine/host/pool-api.ts";
import type { AppDeps } from "../app.ts";

/** What a ping URL names: its check (by uuid or ping key + slug), the signal and the exit status (not yet range-checked). */
export type PingPath =
  | { readonly by: "uuid"; readonly uuid: string; readonly signal: PingSignal; readonly exitStatus: number | null }
  | { readonly by: "slug"; readonly pingKey: string; readonly slug: string; readonly signal: PingSignal; readonly exitStatus: number | null };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/; // Django's uuid converter: lower case only
const RID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SLUG = /^[-a-zA-Z0-9_]+$/; // Django's slug converter, for ping keys and slugs
const DIGITS = /^[0-9]+$/;
const UPPER = /[A-Z]/;

const TEXT = "text/plain; charset=utf-8";
const NEVER_CACHE = "max-age=0, no-cache, no-store, must-revalidate, private"; // the reference's @never_cache

/**
 * Returns what a ping path names, or null when no ping route matches (→ 404). Mirrors the reference's URL
 * patterns: uuid routes first; anything else after a uuid falls through to the slug route.
 */
export function parsePingPath(pathname: string): PingPath | null {
  const parts = pathname.split("/"); // ["", "ping", a, b?, c?]
  if (parts[1] !== "ping" || parts.length < 3 || parts.length > 5) return null;
  const [, , first, second, third] = parts;
  if (parts.length === 3) return UUID.test(first) ? { by: "uuid", uuid: first, signal: "success", exitStatus: null } : null;
  if (parts.length === 4 && UUID.test(first)) {
    if (second === "") return { by: "uuid", uuid: first, signal: "success", exitStatus: null }; // the trailing-slash form
    const suffix = parseSuffix(second);
    if (suffix !== null) return { by: "uuid", uuid: first, ...suffix };
  }
  if (!SLUG.test(first) || !SLUG.test(second)) return null;
  if (parts.length === 4) return { by: "slug", pingKey: first, slug: second, signal: "success", exitStatus: null };
  const suffix = parseSuffix(third);
  return suffix === null ? null : { by: "slug", pingKey: first, slug: second, ...suffix };
}

function parseSuffix(segment: string): { signal: PingSignal; exitStatus: number | null } | null {
  if (segment === "start" || segment === "fail" || segment === "log") return { signal: segment, exitStatus: null };
  // any run of digits is a route; > 255 is refused later, after the check is found (fact sheet §2 step 3)
  return DIGITS.test(segment) ? { signal: "success", exitStatus: Number(segment) } : null;
}

/** The query parameters a ping reads: rid (undefined = absent, null = present but not a uuid) and create. */
export type PingQuery = { readonly rid: string | null | undefined; readonly create: boolean };

const NO_QUERY: PingQuery = { rid: undefined, create: false };

/** Returns rid (lower-cased) and create from a URL's search string; like Django's QueryDict.get, the last value wins. */
export function parsePingQuery(search: string): PingQuery {
  if (search.length <= 1) return NO_QUERY;
  const params = new URLSearchParams(search);
  const rids = params.getAll("rid");
  const creates = params.getAll("create");
  const rid = rids.length === 0 ? undefined : RID.test(rids[rids.length - 1]) ? rids[rids.length - 1].toLowerCase() : null;
  return { rid, create: creates.length > 0 && creates[creates.length - 1] === "1" };
}

/**
 * Returns the client address: the first item of X-Forwarded-For when the header is present, else the socket
 * address; an IPv4 address with a port loses the port (reference views.ping).
 */
export function remoteAddress(forwardedFor: string | undefined, socketAddress: string | undefined): string {
  let address = forwardedFor !== undefined ? forwardedFor.split(",")[0] : socketAddress ?? "";
  if (forwardedFor === undefined && address.startsWith("::ffff:")) address = address.slice(7); // IPv4-mapped socket address
  if (address.includes(".") && address.includes(":")) address = address.split(":")[0];
  return address;
}

/** Ping failures as statuses; ping answers are text like the reference's, not the API's JSON. */
const FAILURE_ANSWERS = {
  not_found: [404, "not found"],
  ambiguous_slug: [409, "ambiguous slug"],
  invalid: [400, "invalid url format"],
  check_limit: [404, "not found"], // reference: auto-provisioning past twice the limit answers 404
  // cannot happen on the ping path; answered as an unknown check
  unauthorized: [404, "not found"],
  forbidden: [404, "not found"],
  not_paused: [404, "not found"],
} as const satisfies Record<Failure["code"], readonly [number, string]>;

/** Registers the ping routes on `app`; every HTTP method is a ping, as in the reference. */
export function pingRoutes(app: H3, deps: AppDeps): void {
  const { pool, clock } = deps;
  const answers = pingAnswers();
  app.all("/ping/**", (event) => handlePing(event, { pool, at: clock.now(), answers }));
}

type PingAnswers = ReturnType<typeof pingAnswers>;

// Answers are immutable and shared between requests: h3 copies their headers into each response it sends.
function pingAnswers() {
  const errorHeaders = { "content-type": TEXT, "cache-control": NEVER_CACHE };
  const error = (status: number, text: string) => new HTTPResponse(text, { status, headers: errorHeaders });
  const success = new Map<number, HTTPResponse>();
  const created = new Map<number, HTTPResponse>();
  const answer = (cache: Map<number, HTTPResponse>, status: number, text: string, limit: number) => {
    let found = cache.get(limit);
    if (found === undefined) {
      found = new HTTPResponse(text, { status, headers: {
        "content-type": TEXT, "cache-control": NEVER_CACHE, "access-control-allow-origin": "*", "ping-body-limit": String(limit),
      } });
      cache.set(limit, found);
    }
    return found;
  };
  return {
    notFound: error(404, "not found"),
    badUrl: error(400, "invalid url format"),
    badRid: error(400, "invalid uuid format"),
    ambiguous: error(409, "ambiguous slug"),
    failure: (failure: Failure) => failure.code === "invalid" && failure.field === "rid" ? error(400, "invalid uuid format")
      : error(FAILURE_ANSWERS[failure.code][0], FAILURE_ANSWERS[failure.code][1]),
    ok: (limit: number) => answer(success, 200, "OK", limit),
    created: (limit: number) => answer(created, 201, "Created", limit),
  };
}

async function handlePing(event: H3Event, ctx: { pool: Pool; at: Millis; answers: PingAnswers }): Promise<HTTPResponse> {
  const { pool, at, answers } = ctx;
  const path = parsePingPath(event.url.pathname);
  if (path === null) return answers.notFound;
  let project: Project | null;
  let target: PingTarget;
  const query = parsePingQuery(event.url.search);
  if (path.by === "uuid") {
    project = pool.projectOfCheck(path.uuid);
    target = { uuid: path.uuid };
  } else {
    if (UPPER.test(path.slug)) return answers.badUrl; // fact sheet §2 step 1
    project = pool.projectByPingKey(path.pingKey);
    target = { pingKey: path.pingKey, slug: path.slug, create: query.create };
  }
  if (project === null) return answers.notFound;

  const badExit = path.exitStatus !== null && path.exitStatus > 255;
  if (badExit || query.rid === null) {
    // nothing is recorded; a slug's own 404/409 still comes first (fact sheet §2: lookup, exit status, rid)
    if (path.by === "slug") {
      const matches = await pool.listChecks(project.id, { slug: path.slug, tags: [] });
      if (matches.length > 1) return answers.ambiguous;
      if (matches.length === 0 && !query.create) return answers.notFound;
    }
    return badExit ? answers.badUrl : answers.badRid;
  }

  const request = requestFacts(event);
  const body = await readBody(event, project.pingBodyLimit);
  const outcome = await pool.ping({
    target, signal: path.signal, exitStatus: path.exitStatus, method: request.method, scheme: request.scheme,
    remoteAddr: request.remoteAddr, ua: request.ua, rid: query.rid ?? null, body, at,
  });
  if (!outcome.ok) return answers.failure(outcome.failure);
  return outcome.value.created ? answers.created(project.pingBodyLimit) : answers.ok(project.pingBodyLimit);
}

/** The request facts a ping records; read from the Node request when there is one (no web Headers built). */
function requestFacts(event: H3Event): { method: string; scheme: string; remoteAddr: string; ua: string } {
  const node = event.runtime?.node?.req;
  let forwardedFor: string | undefined, proto: string | undefined, ua: string | undefined, socketAddress: string | undefined;
  if (node !== undefined) {
    const headers = node.headers;
    forwardedFor = headerText(headers["x-forwarded-for"]);
    proto = headerText(headers["x-forwarded-proto"]);
    ua = headerText(headers["user-agent"]);
    socketAddress = node.socket?.remoteAddress;
  } else {
    const headers = event.req.headers;
    forwardedFor = headers.get("x-forwarded-for") ?? undefined;
    proto = headers.get("x-forwarded-proto") ?? undefined;
    ua = headers.get("user-agent") ?? undefined;
    socketAddress = event.req.ip;
  }
  return {
    method: event.req.method,
    scheme: proto ?? "http",
    remoteAddr: remoteAddress(forwardedFor, socketAddress),
    ua: ua === undefined ? "" : ua.length > LIMITS.uaMaxChars ? ua.slice(0, LIMITS.uaMaxChars) : ua,
  };
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}

/**
 * Returns the request body cut to `limit` bytes, or null when there is none. The whole body is consumed,
 * but bytes past the limit are dropped as they arrive: a body far over the limit is accepted, never buffered.
 */
export async function readBody(event: H3Event, limit: number): Promise<Uint8Array | null> {
  const node = event.runtime?.node?.req;
  if (node !== undefined) {
    const headers = node.headers;
    const length = headers["content-length"];
    if (headers["transfer-encoding"] === undefined && (length === undefined || length === "0")) return null;
    return collect(node, limit);
  }
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
    source.on("end", () => { ended = true; resolve(kept.result()); });
    // the client went away mid-body: a 400 nobody reads, not a server error
    const incomplete = () => reject(new HTTPError({ status: 400, message: "request body incomplete" }));
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
