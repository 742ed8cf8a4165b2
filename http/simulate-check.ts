// The what-if of a stored check (CONTRACT "Simulation and replay"): its ping log (and its pauses and
// resumes, from its flips) replayed with candidate settings through the pure engine (engine/simulate.ts).
// One home for the API's POST /api/v3/checks/<uuid>/simulate and the dashboard's schedule editor.
// Reads only: no command reaches a shard, so nothing the check owns changes.
import type { Check, Millis, PingRecord, Project } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import { ok } from "../engine/outcome.ts";
import type { LoggedPing, Simulation } from "../engine/simulate.ts";
import { simulate } from "../engine/simulate.ts";
import type { AppDeps } from "./deps.ts";
import type { SimulationRequest } from "./simulate-input.ts";

/** Simulates `check` over its logged `pings` (from pool.listPings) from the request's since (or the oldest ping) to `untilAt`. */
export async function simulateStoredCheck(
  deps: Pick<AppDeps, "pool" | "readMail">,
  project: Project,
  check: Check,
  pings: readonly PingRecord[],
  request: SimulationRequest,
  untilAt: Millis,
): Promise<Outcome<Simulation & { readonly sinceAt: Millis }>> {
  const oldest = oldestAt(pings);
  const sinceAt = request.sinceAt ?? oldest ?? untilAt;
  const inWindow = pings.filter((p) => p.at >= sinceAt && p.at <= untilAt); // no body is read for the others
  const logged = await loggedPings(deps, project.id, check, inWindow);
  // before the oldest logged ping the simulated check is new, and pausing a new check changes nothing:
  // the flips read start there, so their number stays near the log's
  let pauses: { at: Millis; paused: boolean }[] = [];
  if (oldest !== null) {
    const flips = await deps.pool.listFlips(project.id, { uuid: check.uuid }, { fromAt: Math.max(sinceAt, oldest) });
    if (!flips.ok) return flips;
    pauses = flips.value.filter((f) => f.to === "paused" || f.from === "paused").map((f) => ({ at: f.at, paused: f.to === "paused" }));
  }
  const result = simulate({ check, project, pings: logged, pauses, settings: request.settings, sinceAt, untilAt });
  return result.ok ? ok({ ...result.value, sinceAt }) : result;
}

function oldestAt(pings: readonly PingRecord[]): Millis | null {
  return pings.reduce<Millis | null>((oldest, p) => (oldest === null || p.at < oldest ? p.at : oldest), null);
}

/** Returns the log entries with the bodies the check's keyword rules read (only those: each is a store read). */
async function loggedPings(
  { pool, readMail }: Pick<AppDeps, "pool" | "readMail">,
  projectId: string,
  check: Check,
  pings: readonly PingRecord[],
): Promise<LoggedPing[]> {
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
