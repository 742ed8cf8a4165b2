// POST /api/v3/checks/<uuid>/simulate (and under v1 and v2, as every API route) (CONTRACT "Simulation and replay"): the check's stored ping log
// replayed with candidate settings (http/simulate-check.ts). Reads only. Read-write and read-only keys.
import type { H3, H3Event } from "h3";
import type { Caller } from "../../host/pool-api.ts";
import type { Simulation } from "../../engine/simulate.ts";
import type { AppDeps } from "../deps.ts";
import type { ErrorReporter } from "../errors.ts";
import { unwrap } from "../errors.ts";
import { endpoint, json } from "../endpoint.ts";
import type { JsonObject } from "../body.ts";
import { isUuid } from "../../engine/ids.ts";
import { parseJsonObject, readBodyBytes } from "../body.ts";
import { isoSeconds } from "../../lib/iso-dates.ts";
import { simulationRequestOf } from "../simulate-input.ts";
import { simulateStoredCheck } from "../simulate-check.ts";
import { apiPath, inVersions } from "../versioned-routes.ts";

export type SimulateRouteOptions = {
  readonly report: ErrorReporter;
  /** The caller of a request, counted against the API rate limit (shared with the other API routes). */
  readonly callerOf: (event: H3Event, body: JsonObject | null, write: boolean) => Promise<Caller>;
};

/** Registers POST /api/v3/checks/<uuid>/simulate. */
export function simulateRoutes(app: H3, deps: AppDeps, opts: SimulateRouteOptions): void {
  const { pool, clock } = deps;
  endpoint(
    app,
    apiPath("/checks/:id/simulate"),
    {
      POST: async (event) => {
        const untilAt = clock.now();
        const uuid = event.context.params?.id ?? "";
        const body = unwrap(parseJsonObject(await readBodyBytes(event.req)));
        const { project } = await opts.callerOf(event, body, false);
        // an unknown or foreign check answers 404 / 403 before a bad body's 400, as update does
        const { check, pings } = unwrap(await pool.listPings(project.id, uuid));
        const request = unwrap(simulationRequestOf(body));
        const result = unwrap(await simulateStoredCheck(deps, project, check, pings, request, untilAt));
        return json(presentSimulation(result));
      },
    },
    { report: opts.report, cors: true, accepts: inVersions((p) => isUuid(p.id ?? "")) },
  );
}

/**
 * Returns the simulation as the API shows it: flips oldest first, downtime in whole seconds, and the
 * notifications an integration would have received under the project's maintenance windows.
 */
export function presentSimulation(result: Simulation): {
  flips: { timestamp: string | null; up: 0 | 1 }[];
  down_count: number;
  downtime_seconds: number;
  notifications: { down: number; up: number; reminders: number; held: number; escalations: number };
} {
  return {
    flips: result.flips.map((flip) => ({ timestamp: isoSeconds(flip.at), up: flip.up })),
    down_count: result.downCount,
    downtime_seconds: Math.round(result.downtimeMs / 1000),
    notifications: { ...result.notifications },
  };
}
