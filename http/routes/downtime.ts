// GET /api/v3/downtime.csv (and under v1 and v2) (CONTRACT "Alerting, third part"): the project's downtime
// per check and day, week or month as CSV (http/downtime-export.ts). Read-write and read-only keys; a
// read-only key's rows name the checks by unique_key.
import type { H3, H3Event } from "h3";
import type { Caller } from "../../host/pool-api.ts";
import type { AppDeps } from "../deps.ts";
import type { ErrorReporter } from "../errors.ts";
import { unwrap } from "../errors.ts";
import { endpoint } from "../endpoint.ts";
import type { JsonObject } from "../body.ts";
import { downtimeCsv } from "../downtime-report.ts";
import { downtimeQueryOf, projectDowntimeRows } from "../downtime-export.ts";
import { apiPath, inVersions } from "../versioned-routes.ts";

export function downtimeRoutes(
  app: H3,
  deps: AppDeps,
  opts: {
    readonly report: ErrorReporter;
    readonly callerOf: (event: H3Event, body: JsonObject | null, write: boolean) => Promise<Caller>;
  },
): void {
  const { pool, clock } = deps;
  endpoint(
    app,
    apiPath("/downtime.csv"),
    {
      GET: async (event) => {
        const now = clock.now();
        const { project, readonly } = await opts.callerOf(event, null, false);
        const query = unwrap(downtimeQueryOf(event.url.searchParams, now));
        const rows = await projectDowntimeRows(pool, project, query, now, readonly);
        return { status: 200, body: downtimeCsv(rows, readonly ? "unique_key" : "uuid"), contentType: "text/csv; charset=utf-8" };
      },
    },
    { report: opts.report, cors: true, accepts: inVersions() },
  );
}
