// The answer to a page that refreshes itself (dashboard.js polls the page's own URL and swaps its
// elements marked data-live): an ETag of the page's bytes, and 304 with no body while the client holds
// those bytes already, so an open page that shows nothing new costs a small answer.
import { createHash } from "node:crypto";
import type { H3Event, HTTPResponse } from "h3";
import { escapeHtml } from "./html.ts";
import { htmlResponse, notModified } from "./responses.ts";

/**
 * The page as a 200 with its ETag, or a 304 when the request's If-None-Match names that ETag. The ETag
 * is also written into the page's head (a meta element, added after hashing), so that the page's first
 * refresh can already be a 304.
 */
export function livePageResponse(event: H3Event, page: string): HTTPResponse {
  const etag = `W/"${createHash("sha1").update(page).digest("base64url")}"`;
  if (event.req.headers.get("if-none-match") === etag) return notModified(etag);
  return htmlResponse(page.replace("<head>", `<head><meta name="etag" content="${escapeHtml(etag)}">`), 200, { etag });
}
