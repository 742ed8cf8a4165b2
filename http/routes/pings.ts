// The Pinging API: /ping/<uuid>[/start|/fail|/log|/<exit-status>] and /ping/<ping-key>/<slug>[/...]
// (spec §4.4; the reference's routing and pipeline: fact sheet §1-2). This is the hot path: one clock
// read, one directory lookup, the body read only up to the project's limit (at least 10 kB), one pool call.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { H3, H3Event } from "h3";
import { HTTPError, HTTPResponse } from "h3";
import type { Failure } from "../../engine/outcome.ts";
import type { Millis, PingSignal, Project } from "../../engine/model.ts";
import { KEYWORD_BODY_BYTES } from "../../engine/classify.ts";
import { isSlugSegment, isUuid, isUuidAnyCase } from "../../engine/ids.ts";
import type { PingTarget, Pool } from "../../host/pool-api.ts";
import { lookUp } from "../../host/pool-api.ts";
import { isStoreUnavailable } from "../../host/write-failures.ts";
import { isServiceUnavailable } from "../../host/unavailable.ts";
import type { AppDeps } from "../deps.ts";
import { pingFailureOf } from "../errors.ts";
import { readBodyCut, readNodeBodyCut } from "../body.ts";
import { log } from "../../host/log.ts";
import type { AuditTrail } from "../../host/audit.ts";
import { auditTarget, recordChange } from "../../host/audit.ts";

/** What a ping URL names: its check (by uuid or ping key + slug), the signal and the exit status (not yet range-checked). */
export type PingPath =
  | { readonly by: "uuid"; readonly uuid: string; readonly signal: PingSignal; readonly exitStatus: number | null }
  | {
      readonly by: "slug";
      readonly pingKey: string;
      readonly slug: string;
      readonly signal: PingSignal;
      readonly exitStatus: number | null;
    };

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
  if (parts.length === 3) return isUuid(first) ? { by: "uuid", uuid: first, signal: "success", exitStatus: null } : null;
  if (parts.length === 4 && isUuid(first)) {
    if (second === "") return { by: "uuid", uuid: first, signal: "success", exitStatus: null }; // the trailing-slash form
    const suffix = parseSuffix(second);
    if (suffix !== null) return { by: "uuid", uuid: first, ...suffix };
  }
  if (!isSlugSegment(first) || !isSlugSegment(second)) return null;
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
  const rid = rids.length === 0 ? undefined : isUuidAnyCase(rids[rids.length - 1]) ? rids[rids.length - 1].toLowerCase() : null;
  return { rid, create: creates.length > 0 && creates[creates.length - 1] === "1" };
}

/**
 * Returns the client address: the first item of X-Forwarded-For when the header is present, else the socket
 * address; an IPv4 address with a port loses the port (reference views.ping).
 */
export function remoteAddress(forwardedFor: string | undefined, socketAddress: string | undefined): string {
  let address = forwardedFor !== undefined ? forwardedFor.split(",")[0] : (socketAddress ?? "");
  if (forwardedFor === undefined && address.startsWith("::ffff:")) address = address.slice(7); // IPv4-mapped socket address
  if (address.includes(".") && address.includes(":")) address = address.split(":")[0];
  return address;
}

/** What the ping core needs of a request, whichever server delivered it. */
export type PingRequest = {
  readonly pathname: string;
  readonly search: string;
  readonly method: string;
  header(name: "x-forwarded-for" | "x-forwarded-proto" | "user-agent"): string | undefined;
  readonly socketAddress: string | undefined;
  /** Returns the body cut to `limit` bytes (null when empty); rejects with a 400 HTTPError when the client leaves. */
  readBody(limit: number): Promise<Uint8Array | null>;
};

/** A ping's answer: status, text and headers; the objects are shared between requests, never mutated. */
export type PingAnswer = { readonly status: number; readonly text: string; readonly headers: Readonly<Record<string, string>> };

const errorAnswer = (status: number, text: string): PingAnswer => ({
  status,
  text,
  headers: {
    "content-type": TEXT,
    "cache-control": NEVER_CACHE,
    "content-length": String(Buffer.byteLength(text)),
  },
});
const ANSWERS = {
  notFound: errorAnswer(404, "not found"),
  badUrl: errorAnswer(400, "invalid url format"),
  badRid: errorAnswer(400, "invalid uuid format"),
  ambiguous: errorAnswer(409, "ambiguous slug"),
  incomplete: errorAnswer(400, "request body incomplete"),
  internal: errorAnswer(500, "internal error"),
  unavailable: errorAnswer(503, "service unavailable"),
};
const successAnswers = new Map<string, PingAnswer>(); // by status and body limit: a handful per process

function successAnswer(status: 200 | 201, limit: number): PingAnswer {
  const key = `${status}:${limit}`;
  let found = successAnswers.get(key);
  if (found === undefined) {
    const text = status === 200 ? "OK" : "Created";
    found = {
      status,
      text,
      headers: {
        "content-type": TEXT,
        "cache-control": NEVER_CACHE,
        "access-control-allow-origin": "*",
        "ping-body-limit": String(limit),
        "content-length": String(text.length),
      },
    };
    successAnswers.set(key, found);
  }
  return found;
}

function failureAnswer(failure: Failure): PingAnswer {
  if (failure.code === "invalid" && failure.field === "rid") return ANSWERS.badRid;
  const [status, text] = pingFailureOf(failure);
  return errorAnswer(status, text);
}

/** Answers one ping (spec §4.4, fact sheet §2): route, look up, validate, read the body, one pool call. */
export async function answerPing(request: PingRequest, ctx: { pool: Pool; at: Millis; audit?: AuditTrail }): Promise<PingAnswer> {
  const { pool, at } = ctx;
  const path = parsePingPath(request.pathname);
  if (path === null) return ANSWERS.notFound;
  let project: Project | null;
  let target: PingTarget;
  const query = parsePingQuery(request.search);
  if (path.by === "uuid") {
    project = await lookUp(pool, () => pool.projectOfCheck(path.uuid));
    target = { uuid: path.uuid };
  } else {
    if (UPPER.test(path.slug)) return ANSWERS.badUrl; // fact sheet §2 step 1
    project = await lookUp(pool, () => pool.projectByPingKey(path.pingKey));
    target = { pingKey: path.pingKey, slug: path.slug, create: query.create };
  }
  if (project === null) return ANSWERS.notFound;

  const badExit = path.exitStatus !== null && path.exitStatus > 255;
  if (badExit || query.rid === null) {
    // nothing is recorded; a slug's own 404/409 still comes first (fact sheet §2: lookup, exit status, rid)
    if (path.by === "slug") {
      const matches = await pool.listChecks(project.id, { slug: path.slug, tags: [] });
      if (matches.length > 1) return ANSWERS.ambiguous;
      if (matches.length === 0 && !query.create) return ANSWERS.notFound;
    }
    return badExit ? ANSWERS.badUrl : ANSWERS.badRid;
  }

  const forwardedFor = request.header("x-forwarded-for"),
    ua = request.header("user-agent");
  // filter_http_body searches the first 10 kB whatever ping_body_limit keeps (it may be 0); the shard cuts both
  const body = await request.readBody(Math.max(project.pingBodyLimit, KEYWORD_BODY_BYTES));
  const outcome = await pool.ping(project.id, {
    target,
    signal: path.signal,
    exitStatus: path.exitStatus,
    method: request.method,
    scheme: request.header("x-forwarded-proto") ?? "http",
    remoteAddr: remoteAddress(forwardedFor, request.socketAddress),
    ua: ua ?? "",
    rid: query.rid ?? null,
    body,
    at, // the shard cuts the user agent to LIMITS.uaMaxChars
  });
  if (!outcome.ok) return failureAnswer(outcome.failure);
  if (outcome.value.created && path.by === "slug") {
    // a new check is a change, whoever made it: recorded before the 201
    await recordChange(ctx.audit, {
      projectId: project.id,
      actor: { kind: "system", name: "ping by slug (?create=1)" },
      action: "check.created",
      target: auditTarget.check({ name: path.slug, uuid: outcome.value.checkUuid }),
      at,
    });
  }
  return successAnswer(outcome.value.created ? 201 : 200, project.pingBodyLimit);
}

/** Registers the ping routes on `app` (used by app.request() and as the fallback); every method is a ping. */
export function pingRoutes(app: H3, deps: AppDeps): void {
  const { pool, clock } = deps;
  const responses = new WeakMap<PingAnswer, HTTPResponse>(); // h3 copies a response's headers: share them
  app.all("/ping/**", async (event) => {
    const answer = await answerPing(webPingRequest(event), { pool, at: clock.now(), audit: deps.audit });
    let response = responses.get(answer);
    if (response === undefined) {
      response = new HTTPResponse(answer.text, { status: answer.status, headers: answer.headers });
      responses.set(answer, response);
    }
    return response;
  });
}

/**
 * Returns a node:http listener for pings that answers /ping/… itself (true) and leaves every other
 * request to the caller (false). The hot path skips h3's web Request and Response: measured here,
 * h3 costs about 30% of a bare server's requests/s; the routing and answers are the same code.
 */
export function pingListener(
  deps: Pick<AppDeps, "pool" | "clock" | "audit">,
  observe?: (pathname: string, status: number, seconds: number) => void,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { pool, clock } = deps;
  return (req, res) => {
    const url = req.url ?? "";
    if (!url.startsWith("/ping/")) return false;
    const at = clock.now();
    const arrivedAt = observe === undefined ? 0 : performance.now();
    const queryAt = url.indexOf("?");
    const request: PingRequest = {
      pathname: queryAt === -1 ? url : url.slice(0, queryAt),
      search: queryAt === -1 ? "" : url.slice(queryAt),
      method: req.method ?? "GET",
      header: (name) => headerText(req.headers[name]),
      socketAddress: req.socket.remoteAddress,
      readBody: (limit) => readNodeBodyCut(req, limit),
    };
    answerPing(request, { pool, at, audit: deps.audit })
      .catch((error: unknown) => {
        if (error instanceof HTTPError && error.status === 400) return ANSWERS.incomplete;
        if (isServiceUnavailable(error)) return ANSWERS.unavailable; // cluster mode: not replicated, not acknowledged
        if (!isStoreUnavailable(error)) log.error({ err: error }, "unexpected error on a ping"); // logged once per episode by its shard
        return ANSWERS.internal;
      })
      .then((answer) => {
        if (res.destroyed) return;
        res.writeHead(answer.status, answer.headers);
        res.end(answer.text);
        observe?.(request.pathname, answer.status, (performance.now() - arrivedAt) / 1000);
      })
      .catch((error: unknown) => log.error({ err: error }, "answering a ping failed"));
    return true;
  };
}

/** Builds the ping core's request from an h3 event (the Node request when there is one). */
function webPingRequest(event: H3Event): PingRequest {
  const node = event.runtime?.node?.req;
  return {
    pathname: event.url.pathname,
    search: event.url.search,
    method: event.req.method,
    header: node !== undefined ? (name) => headerText(node.headers[name]) : (name) => event.req.headers.get(name) ?? undefined,
    socketAddress: node !== undefined ? node.socket?.remoteAddress : event.req.ip,
    readBody: (limit) => readBodyCut(event, limit),
  };
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}
