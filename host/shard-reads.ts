// The reads a shard host answers from its Shard, one home for both hosts: a single node's (shard-host.ts,
// over its store) and a cluster partition's (cluster/partition-host.ts, over its history). Where a read
// also needs the ping log, flips or bodies, each host reads them from its own store; the rules around
// them (which check, how many pings, which bodies still exist) are here.
import type { Check, Millis } from "../engine/model.ts";
import { LIMITS } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import { fail } from "../engine/outcome.ts";
import type { Shard } from "../engine/shard.ts";
import { statusAt } from "../engine/status.ts";
import type { ChecksSince, CheckRef } from "./pool-api.ts";
import type { ProjectVersions } from "./project-versions.ts";
import type { AlertingFigures } from "./shard-stats.ts";
import { addAlertingFigures } from "./shard-stats.ts";
import { uniqueKeyOf } from "./unique-key.ts";

/** The checks of a project changed since version `since` (all of them when that version is not known here), and those removed. */
export function checksSince(shard: Shard, versions: ProjectVersions, projectId: string, since: string | null): ChecksSince {
  const { version, uuids } = versions.changedSince(projectId, since);
  if (uuids === null) return { version, whole: true, checks: shard.listChecks(projectId, { tags: [] }), removed: [] };
  const checks: Check[] = [],
    removed: string[] = [];
  for (const uuid of uuids) {
    const found = shard.getCheck(projectId, uuid);
    if (found.ok) checks.push(found.value);
    else removed.push(uuid);
  }
  return { version, whole: false, checks, removed };
}

/** A check of the project by uuid or unique_key; unique_key is looked up among the project's own checks only (reference: a foreign one is not_found). */
export function checkByRef(shard: Shard, projectId: string, ref: CheckRef): Outcome<Check> {
  if ("uuid" in ref) return shard.getCheck(projectId, ref.uuid);
  const uuid = shard.checkUuids(projectId).find((u) => uniqueKeyOf(u) === ref.uniqueKey);
  return uuid === undefined ? fail({ code: "not_found", what: "check" }) : shard.getCheck(projectId, uuid);
}

/** How many of a check's newest pings a list shows. */
export function pingsListed(pingLogLimit: number): number {
  return Math.min(pingLogLimit, LIMITS.maxPingsListed);
}

/** Whether ping `n` of `check` is still inside its log, so may have a body (reference: n <= n_pings - ping_log_limit → 404). */
export function pingKept(check: Check, n: number, pingLogLimit: number): boolean {
  return n >= 1 && n > check.nPings - pingLogLimit;
}

/**
 * The shard's checks by the status they show at `at`, and what alerting holds back then (for /metrics),
 * letting other work through every 50 projects.
 */
export async function figuresAt(shard: Shard, at: Millis): Promise<{ checks: Record<string, number>; alerting: AlertingFigures }> {
  const checks: Record<string, number> = { new: 0, up: 0, grace: 0, down: 0, paused: 0 };
  const alerting = { acknowledged: 0, held: 0, projectsInMaintenance: 0 };
  let sinceYield = 0;
  for (const project of shard.projects()) {
    const projectChecks = shard.listChecks(project.id, { tags: [] });
    for (const check of projectChecks) checks[statusAt(check, at)]++;
    addAlertingFigures(alerting, project, projectChecks, at);
    // a million checks take a few hundred ms: let the shard's pings through every 50 projects
    if (++sinceYield >= 50) {
      sinceYield = 0;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return { checks, alerting };
}
