// The dashboard's HTTP plumbing: security headers on every answer, the session cookie (h3's cookie helpers), HTML answers and
// redirects, form bodies, the cross-site check, the sign-in failure counter and the static assets.
import { existsSync, readFileSync } from "node:fs";
import type { H3Event } from "h3";
import { deleteCookie, getCookie, HTTPResponse, setCookie } from "h3";
import type { Millis } from "../../engine/model.ts";
import { httpError } from "../errors.ts";
import { readBodyBytes } from "../body.ts";
import { MinuteCounts } from "../../lib/minute-counts.ts";

export const COOKIE = "hcd_session";
/** Failed sign-ins allowed per client address per minute. */
export const SIGN_IN_FAILURES_PER_MINUTE = 10;

export const SECURITY_HEADERS = {
  "content-security-policy": "default-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
};

/** Thrown by a handler when the request has no valid session. */
export class SignInNeeded extends Error {}
/**
 * Refuses a POST that a browser marked as coming from another site (Origin is neither SITE_ROOT's origin
 * nor the Host it was sent to): with the SameSite cookie and the CSRF token this also covers the sign-in
 * form, which has no session yet.
 */
export function refuseCrossSite(headers: Headers, siteOrigin: string): void {
  const origin = headers.get("origin");
  if (origin === null || origin === siteOrigin) return; // not a browser form post, or an old browser: the CSRF token still applies
  let host: string | null = null;
  try {
    host = new URL(origin).host;
  } catch {
    /* "null" or garbage: refused below */
  }
  if (host === null || host !== headers.get("host")) throw httpError(403, "cross-site request refused");
}

export function param(event: H3Event, name: string): string {
  return event.context.params?.[name] ?? "";
}

export async function formOf(event: H3Event): Promise<URLSearchParams> {
  return new URLSearchParams(new TextDecoder().decode(await readBodyBytes(event.req)));
}

/** The session cookie's attributes: the whole site, never read by scripts nor sent with another site's request; Secure under an https:// SITE_ROOT. */
function sessionCookieAttributes(secure: boolean) {
  return { path: "/", httpOnly: true, sameSite: "strict", secure } as const;
}

/** The session id the request's cookie names, or null. */
export function sessionIdOf(event: H3Event): string | null {
  return getCookie(event, COOKIE) ?? null;
}

/** Sets the answer's session cookie to session `id`, kept by the browser for `maxAgeMs`. */
export function setSessionCookie(event: H3Event, id: string, opts: { maxAgeMs: Millis; secure: boolean }): void {
  setCookie(event, COOKIE, id, { ...sessionCookieAttributes(opts.secure), maxAge: Math.floor(opts.maxAgeMs / 1000) });
}

/** Has the browser drop its session cookie (a sign-out). */
export function endSessionCookie(event: H3Event, secure: boolean): void {
  deleteCookie(event, COOKIE, sessionCookieAttributes(secure));
}

const UTF8 = new TextEncoder();

export function htmlResponse(body: string, status = 200, headers: Record<string, string> = {}): HTTPResponse {
  // encoded once here: given a string, the response would measure its UTF-8 length and then encode it,
  // two passes over a body that reaches hundreds of kB (a 1,000-row table). TextEncoder rather than
  // Buffer.from, which sizes its buffer for the worst case first (3 bytes a character) and costs several
  // times more at this size.
  return new HTTPResponse(UTF8.encode(body), {
    status,
    headers: { ...SECURITY_HEADERS, "content-type": "text/html; charset=utf-8", ...headers },
  });
}

/**
 * An HTML response sent in parts, each encoded on its own: a body of hundreds of kB is never one string
 * or one buffer (allocating either at that size costs more than the small ones do together).
 */
export function htmlPartsResponse(parts: readonly Uint8Array[], status = 200, headers: Record<string, string> = {}): HTTPResponse {
  let length = 0;
  for (const part of parts) length += part.byteLength;
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < parts.length) controller.enqueue(parts[next++]);
      else controller.close();
    },
  });
  return new HTTPResponse(body, {
    status,
    headers: { ...SECURITY_HEADERS, "content-type": "text/html; charset=utf-8", "content-length": String(length), ...headers },
  });
}

/** Encodes parts of a page for htmlPartsResponse. */
export function encodeParts(parts: readonly string[]): Uint8Array[] {
  return parts.map((part) => UTF8.encode(part));
}

/** 304 Not Modified for a conditional request whose ETag still holds (sent back as the response's ETag). */
export function notModified(etag: string): HTTPResponse {
  return new HTTPResponse(null, { status: 304, headers: { ...SECURITY_HEADERS, etag } });
}

/**
 * Where a sign-in goes on: the `next` page it was sent from when that is a path of this site (never
 * another host: no "//", no backslash, no scheme), else the first page.
 */
export function nextPage(next: string | null | undefined): string {
  return typeof next === "string" && /^\/(?![/\\])[^\s\\]*$/.test(next) && next.length <= 2000 ? next : "/";
}

/** The sign-in page's address that comes back to `path` once signed in. */
export function signInFor(path: string): string {
  return path === "/" ? "/" : `/?next=${encodeURIComponent(path)}`;
}

export function redirect(location: string, headers: Record<string, string> = {}): HTTPResponse {
  return new HTTPResponse(null, { status: 303, headers: { ...SECURITY_HEADERS, ...headers, location } });
}

/** Failed sign-ins per client address in fixed one-minute windows; a new minute forgets every address. */
export class FailureCounter {
  readonly #limit: number;
  readonly #counts = new MinuteCounts();
  constructor(limit: number) {
    this.#limit = limit;
  }
  isBlocked(address: string, at: Millis): boolean {
    return this.#counts.count(address, at) >= this.#limit;
  }
  count(address: string, at: Millis): void {
    this.#counts.add(address, at);
  }
}

export type Asset = { readonly body: string | Uint8Array<ArrayBuffer>; readonly type: string };

/** Reads the stylesheet, script and icon once: from the sources next to this file, or from the repository when running from dist/. */
export function loadAssets(): Record<string, Asset> {
  const candidates = [new URL("./static/", import.meta.url), new URL("../../../http/dashboard/static/", import.meta.url)];
  const dir = candidates.find((url) => existsSync(new URL("dashboard.js", url))) ?? candidates[0];
  return {
    "dashboard.js": { body: readFileSync(new URL("dashboard.js", dir), "utf8"), type: "text/javascript; charset=utf-8" },
    "check-form.js": { body: readFileSync(new URL("check-form.js", dir), "utf8"), type: "text/javascript; charset=utf-8" },
    "dashboard.css": { body: readFileSync(new URL("dashboard.css", dir), "utf8"), type: "text/css; charset=utf-8" },
    "favicon.svg": { body: readFileSync(new URL("favicon.svg", dir), "utf8"), type: "image/svg+xml" },
    // the icon Slack and Discord show beside a notification (their icon_url takes no SVG)
    "img/logo.png": { body: new Uint8Array(readFileSync(new URL("img/logo.png", dir))), type: "image/png" },
  };
}
