// The reference's Prometheus endpoint (hc/integrations/prometheus/urls.py, views.py), CONTRACT.md "Metrics":
//   /projects/<id>/metrics/<read-only key>, its legacy alias /projects/<id>/checks/metrics/<key>, and
//   /projects/<id>/metrics/ with `Authorization: Bearer <read-only key>` (Grafana Cloud refuses keys in URLs).
// Its answers: no Bearer header 401, a key not 32 characters long 400, an unknown or read-write key 403, all
// with empty bodies; the exposition as `Content-Type: text/plain` exactly.
import type { H3, H3Event } from "h3";
import { HTTPResponse } from "h3";
import type { AppDeps } from "../deps.ts";
import { renderProjectMetrics } from "../project-metrics.ts";
import { lookUp } from "../../host/pool-api.ts";

const PROJECT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/; // Django's <uuid:...>
const KEY_SLUG = /^[-a-zA-Z0-9_]+$/; // Django's <slug:...>
const KEY_LENGTH = 32;

/** Registers the project metrics routes on `app`. */
export function projectMetricsRoutes(app: H3, deps: AppDeps): void {
  const inPath = (event: H3Event) => answer(deps, event.context.params?.id ?? "", event.context.params?.key ?? null, event);
  app.all("/projects/:id/metrics/:key", inPath);
  app.all("/projects/:id/checks/metrics/:key", inPath);
  app.all("/projects/:id/metrics/", (event) => answer(deps, event.context.params?.id ?? "", null, event));
}

async function answer(deps: AppDeps, projectId: string, keyInPath: string | null, event: H3Event): Promise<HTTPResponse> {
  if (!PROJECT_ID.test(projectId) || (keyInPath !== null && !KEY_SLUG.test(keyInPath))) return empty(404);
  let key = keyInPath;
  if (key === null) {
    const header = event.req.headers.get("authorization") ?? "";
    if (!header.startsWith("Bearer ")) return empty(401);
    key = header.slice("Bearer ".length);
  }
  if (key.length !== KEY_LENGTH) return empty(400);
  const caller = await lookUp(deps.pool, () => deps.pool.authenticate(key));
  // Read-only keys only: a read-write key in a scrape config would leak write access to whoever reads it.
  // A key of another project is refused too (the reference serves the key's own project whatever the id says).
  if (caller === null || !caller.readonly || caller.project.id !== projectId) return empty(403);
  const checks = await deps.pool.listChecks(projectId, { tags: [] });
  const body = renderProjectMetrics(checks, deps.clock.now());
  return new HTTPResponse(body, { status: 200, headers: { "content-type": "text/plain" } });
}

function empty(status: number): HTTPResponse {
  return new HTTPResponse(null, { status });
}
