// The dashboard's own 404 page for a path no route knows, instead of the bare text answer that pings,
// badges and metrics keep (their clients are programs).
import { HTTPResponse } from "h3";
import { errorPage } from "./pages.ts";
import { SECURITY_HEADERS } from "./responses.ts";

/** Returns true for a path a person's browser may ask for: not the APIs, pings, badges or metrics. */
export function isDashboardPath(pathname: string): boolean {
  return !/^\/(api|admin|ping|badge|metrics)(\/|$)/.test(pathname) && !/^\/projects\/[^/]+\/metrics(\/|$)/.test(pathname);
}

/** The dashboard's error page saying that nothing is at this address, with a way back. */
export function notFoundPage(): HTTPResponse {
  return new HTTPResponse(errorPage(null, 404, "There is no page at this address."), {
    status: 404,
    headers: { ...SECURITY_HEADERS, "content-type": "text/html; charset=utf-8" },
  });
}
