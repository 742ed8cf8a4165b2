// GET /metrics: hcd's own operational metrics (CONTRACT.md "Metrics"), for the admin token or METRICS_TOKEN.
import type { H3 } from "h3";
import { HTTPResponse } from "h3";
import type { AppDeps } from "../deps.ts";
import { authorizeAdmin } from "../auth.ts";
import { httpError } from "../errors.ts";

/** What the route serves: the exposition, computed at each scrape. */
export type MetricsSource = { exposition(): Promise<{ contentType: string; body: string }> };

/** Registers GET /metrics on `app`. */
export function metricsRoutes(app: H3, deps: AppDeps, source: MetricsSource): void {
  const { adminToken, metricsToken } = deps.config;
  app.all("/metrics", async (event) => {
    if (event.req.method !== "GET" && event.req.method !== "HEAD") throw httpError(405, "method not allowed", { allow: "GET, HEAD" });
    try {
      authorizeAdmin(event.req.headers, adminToken);
    } catch (error) {
      // a scraper's token: it reads metrics and nothing else
      if (metricsToken === null) throw error;
      authorizeAdmin(event.req.headers, metricsToken);
    }
    const { contentType, body } = await source.exposition();
    return new HTTPResponse(body, { status: 200, headers: { "content-type": contentType, "cache-control": "no-store" } });
  });
}
