// GET /status/<slug> (HTML) and /status/<slug>.json: a project's public status page, without sign-in
// (CONTRACT "Status pages"). Each worked-out view is rendered once and served from memory while it is kept.
import { gzipSync } from "node:zlib";
import type { H3 } from "h3";
import { HTTPResponse } from "h3";
import type { AppDeps } from "../deps.ts";
import { jsonResponse } from "../response.ts";
import type { ErrorReporter } from "../errors.ts";
import { statusPageCsp, statusPageHtml } from "./status-html.ts";
import { statusPageOf } from "./status-pages.ts";
import type { StatusView } from "./status-view.ts";
import { STATUS_CACHE_MS, StatusViews, statusJson } from "./status-view.ts";
import { isStatusSlug } from "./status-page-input.ts";

const UTF8 = new TextEncoder();

export function statusPageRoutes(app: H3, deps: AppDeps, opts: { report: ErrorReporter }): void {
  const views = new StatusViews(deps.pool, deps.clock);
  // each view's bodies, plain and gzipped (a page of 50 checks is some 200 kB of bars, 10 kB gzipped), made once
  type Bodies = { readonly plain: Uint8Array; readonly gzip: Uint8Array };
  const rendered = new WeakMap<StatusView, { html: Bodies; json: Bodies; csp: string }>();
  const bodiesOf = (text: string): Bodies => {
    const plain = UTF8.encode(text);
    return { plain, gzip: gzipSync(plain) };
  };
  const bytesOf = (view: StatusView) => {
    let bytes = rendered.get(view);
    if (bytes === undefined) {
      bytes = { html: bodiesOf(statusPageHtml(view)), json: bodiesOf(JSON.stringify(statusJson(view))), csp: statusPageCsp(view) };
      rendered.set(view, bytes);
    }
    return bytes;
  };
  const cache = `public, max-age=${STATUS_CACHE_MS / 1000}`;

  app.get("/status/:slug", async (event) => {
    const name = event.context.params?.slug ?? "";
    const asJson = name.endsWith(".json");
    const slug = asJson ? name.slice(0, -".json".length) : name;
    const found = isStatusSlug(slug) ? statusPageOf(deps.pool, slug) : null;
    if (found === null) {
      return asJson
        ? jsonResponse({ error: "status page not found" }, 404)
        : new HTTPResponse("<!doctype html>\n<title>Not found</title><h1>No such status page</h1>", {
            status: 404,
            headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": "default-src 'none'" },
          });
    }
    try {
      const bytes = bytesOf(await views.viewOf(found.project, found.page));
      const gzip = /\bgzip\b/.test(event.req.headers.get("accept-encoding") ?? "");
      const bodies = asJson ? bytes.json : bytes.html;
      const headers: Record<string, string> = {
        "cache-control": cache,
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
        vary: "accept-encoding",
      };
      if (gzip) headers["content-encoding"] = "gzip";
      const kind: Record<string, string> = asJson
        ? { "content-type": "application/json", "access-control-allow-origin": "*" }
        : { "content-type": "text/html; charset=utf-8", "content-security-policy": bytes.csp };
      return new HTTPResponse((gzip ? bodies.gzip : bodies.plain) as BodyInit, { headers: { ...headers, ...kind } });
    } catch (error) {
      opts.report(error);
      return new HTTPResponse("status page unavailable, try again", {
        status: 503,
        headers: { "content-type": "text/plain; charset=utf-8", "retry-after": "5" },
      });
    }
  });
}
