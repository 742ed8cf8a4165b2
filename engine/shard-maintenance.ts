// A shard's project mutes: a project muted until an instant, and its recurring maintenance windows, each
// start armed in the wheel; a change of either, or a window starting, re-plans the project's down checks' notices.
import type { MaintenanceWindow, Millis, Project } from "./model.ts";
import type { Outcome } from "./outcome.ts";
import { fail, ok } from "./outcome.ts";
import type { ShardCore } from "./shard-core.ts";

/**
 * Sets a project's mute (maintenance window) at `at`: until `untilAt` no check of the project notifies,
 * as if each check's own muted_until were the later of the two; null ends it. Deadlines due before `at`
 * are applied first, under the mute that was in effect then.
 */
export function muteProject(shard: ShardCore, projectId: string, untilAt: Millis | null, at: Millis): Outcome<Project> {
  const project = shard.state.project(projectId);
  if (!project) return fail({ code: "not_found", what: "project" });
  return ok(shard.changeProject({ ...project, mutedUntilAt: untilAt }, at));
}

/**
 * Adds a recurring maintenance window to a project (CONTRACT "Alerting, second part"): each time its
 * schedule fires, the project is muted for its duration, as by a project mute. A window with the id of
 * one the project has replaces it in place (an edit).
 */
export function addMaintenance(shard: ShardCore, projectId: string, window: MaintenanceWindow, at: Millis): Outcome<Project> {
  const project = shard.state.project(projectId);
  if (!project) return fail({ code: "not_found", what: "project" });
  const windows = project.maintenance ?? [];
  const replaced = windows.some((w) => w.id === window.id) ? windows.map((w) => (w.id === window.id ? window : w)) : [...windows, window];
  return ok(shard.changeProject({ ...project, maintenance: replaced }, at));
}

/** Removes a maintenance window; a check its mute held is notified at once (not_found: no such project or window). */
export function removeMaintenance(shard: ShardCore, projectId: string, windowId: string, at: Millis): Outcome<Project> {
  const project = shard.state.project(projectId);
  if (!project) return fail({ code: "not_found", what: "project" });
  const left = (project.maintenance ?? []).filter((window) => window.id !== windowId);
  if (left.length === (project.maintenance ?? []).length) return fail({ code: "not_found", what: "maintenance window" });
  return ok(shard.changeProject({ ...project, maintenance: left.length === 0 ? undefined : left }, at));
}

/** The wheel's entry of a project's next maintenance window is due by `now`: the window starts at its own instant. */
export function maintenanceDue(shard: ShardCore, projectId: string, now: Millis): void {
  const startAt = shard.maintenance.due(projectId, now);
  if (startAt === null) return;
  // applied at its instant, or (found late, after a command stamped later) at that command's: never back in time
  startMaintenance(shard, projectId, Math.max(startAt, shard.lastAt));
}

/** A maintenance window of the project starts at `at`: its down checks' notices wait for the window's end. */
function startMaintenance(shard: ShardCore, projectId: string, at: Millis): void {
  const project = shard.state.project(projectId);
  if (project === undefined) return;
  for (const uuid of shard.state.checkUuids(projectId)) {
    const check = shard.state.check(uuid);
    if (check !== undefined) shard.replan(shard.catchUp(check, at), at);
  }
  shard.maintenance.arm(project, at);
}
