// POST /api/v3/checks/<uuid>/simulate (CONTRACT "Simulation and replay"): the check's stored ping log
// (and its pauses and resumes, from its flips) replayed with candidate settings through the pure engine (engine/simulate.ts). Reads only: no command
// reaches a shard, so nothing the check owns changes. Read-write and read-only keys.
import type { H3, H3Event } from "h3";
import type { Check, Millis, PingRecord } from "../../engine/model.ts";
import type { Caller, Pool } from "../../host/pool-api.ts";
import type { LoggedPing, Simulation } from "../../engine/simulate.ts";
import { simulate } from "../../engine/simulate.ts";
import type { AppDeps } from "../deps.ts";
import type { ErrorReporter } from "../errors.ts";
import { unwrap } from "../errors.ts";
import { endpoint, json } from "../endpoint.ts";
import type { JsonObject } from "../body.ts";
import { isUuid } from "../../engine/ids.ts";
import { parseJsonObject, readBodyBytes } from "../body.ts";
import { isoSeconds } from "../../lib/iso-dates.ts";
import { simulationRequestOf } from "../simulate-input.ts";

export type SimulateRouteOptions = {
  readonly report: ErrorReporter;
  /** The caller of a request, counted against the API rate limit (shared with the other /api/v3 routes). */
  readonly callerOf: (event: H3Event, body: JsonObject | null, write: boolean) => Caller;
};

/** Registers POST /api/v3/checks/<uuid>/simulate. */
export function simulateRoutes(app: H3, deps: AppDeps, opts: SimulateRouteOptions): void {
  const { pool, clock } = deps;
  endpoint(app, "/api/v3/checks/:id/simulate", {
    POST: async (event) => {
      const untilAt = clock.now();
      const uuid = event.context.params?.id ?? "";
      const body = unwrap(parseJsonObject(await readBodyBytes(event.req)));
      const { project } = opts.callerOf(event, body, false);
      // an unknown or foreign check answers 404 / 403 before a bad body's 400, as update does
      const { check, pings } = unwrap(await pool.listPings(project.id, uuid));
      const request = unwrap(simulationRequestOf(body));
      const oldest = oldestAt(pings);
      const sinceAt = request.sinceAt ?? oldest ?? untilAt;
      const inWindow = pings.filter((p) => p.at >= sinceAt && p.at <= untilAt); // no body is read for the others
      const logged = await loggedPings(deps, project.id, check, inWindow);
      // before the oldest logged ping the simulated check is new, and pausing a new check changes nothing:
      // the flips read start there, so their number stays near the log's
      const flips = oldest === null ? [] : unwrap(await pool.listFlips(project.id, { uuid }, { fromAt: Math.max(sinceAt, oldest) }));
      const pauses = flips.filter((f) => f.to === "paused" || f.from === "paused").map((f) => ({ at: f.at, paused: f.to === "paused" }));
      const result = unwrap(simulate({ check, project, pings: logged, pauses, settings: request.settings, sinceAt, untilAt }));
      return json(presentSimulation(result));
    },
  }, { report: opts.report, cors: true, accepts: (p) => isUuid(p.id ?? "") });
}

/** Returns the simulation as the API shows it: flips oldest first, downtime in whole seconds. */
export function presentSimulation(result: Simulation): { flips: { timestamp: string | null; up: 0 | 1 }[]; down_count: number; downtime_seconds: number } {
  return {
    flips: result.flips.map((flip) => ({ timestamp: isoSeconds(flip.at), up: flip.up })),
    down_count: result.downCount,
    downtime_seconds: Math.round(result.downtimeMs / 1000),
  };
}

function oldestAt(pings: readonly PingRecord[]): Millis | null {
  return pings.reduce<Millis | null>((oldest, p) => (oldest === null || p.at < oldest ? p.at : oldest), null);
}

/** Returns the log entries with the bodies the check's keyword rules read (only those: each is a store read). */
async function loggedPings({ pool, readMail }: Pick<AppDeps, "pool" | "readMail">, projectId: string, check: Check, pings: readonly PingRecord[]): Promise<LoggedPing[]> {
  const emailRules = check.filterSubject || check.filterBody;
  const out: LoggedPing[] = [];
  for (const ping of pings) {
    const isEmail = ping.scheme === "email";
    const wanted = ping.bodySize > 0 && (isEmail ? emailRules : check.filterHttpBody);
    const stored = wanted ? await pool.pingBody(projectId, check.uuid, ping.n) : null;
    const body = stored?.ok ? stored.value : null;
    const base = { at: ping.at, kind: ping.kind, scheme: ping.scheme, method: ping.method, rid: ping.rid, exitStatus: ping.exitStatus };
    if (!isEmail) {
      out.push({ ...base, body });
      continue;
    }
    // email pings are classified by the email rules (classifyEmail), from the decoded subject and text
    const email = body === null ? { subject: "", text: "" } : await readMail(body).catch(() => ({ subject: "", text: "" }));
    out.push({ ...base, body: null, email });
  }
  return out;
}
