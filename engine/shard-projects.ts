// A shard's commands on projects and their channels: a project added or changed (its escalation policy
// re-plans its down checks), a channel added, updated, or removed from every check and policy naming it.
import type { Channel, EscalationSpecStep, EscalationStep, Millis, Project } from "./model.ts";
import { checkWith } from "./model.ts";
import type { Outcome } from "./outcome.ts";
import { fail, invalid, ok } from "./outcome.ts";
import type { ProjectChange } from "./project-changes.ts";
import { applyProjectChange } from "./project-changes.ts";
import type { ShardCore } from "./shard-core.ts";

/** Adds a new project (ids and keys chosen by the caller). */
export function createProject(shard: ShardCore, project: Project): Project {
  shard.state.putProject(project);
  shard.changes.gathered.projects.push(project);
  return project;
}

/** Changes the project record alone (engine/project-changes.ts): no check's state or notice moves. */
export function changeProject(shard: ShardCore, projectId: string, change: ProjectChange, at: Millis): Outcome<Project> {
  const project = shard.state.project(projectId);
  if (!project) return fail({ code: "not_found", what: "project" });
  if (change.kind === "setEscalation") return setEscalation(shard, project, change.steps, at);
  const changed = applyProjectChange(project, change, (uuid) => shard.state.check(uuid)?.projectId === projectId);
  if (!changed.ok) return changed;
  shard.state.putProject(changed.value);
  shard.changes.gathered.projects.push(changed.value);
  if (changed.value.maintenance !== project.maintenance) shard.maintenance.arm(changed.value, at); // a deleted project's windows go
  return changed;
}

/**
 * Sets the project's escalation policy (its channels resolved as a check's): the down checks that follow
 * it plan their next step again from `at`.
 */
function setEscalation(shard: ShardCore, project: Project, steps: readonly EscalationSpecStep[], at: Millis): Outcome<Project> {
  if (project.deletedAt !== undefined) return fail({ code: "not_found", what: "project" });
  const resolved = shard.state.resolveEscalation(project.id, steps);
  if (!resolved.ok) return resolved;
  const { escalation: _before, ...rest } = project;
  const policy = resolved.value ?? [];
  return ok(shard.changeProject(policy.length === 0 ? rest : { ...rest, escalation: policy }, at));
}

/** Adds a channel to a project. */
export function addChannel(shard: ShardCore, channel: Channel): Outcome<Channel> {
  if (!shard.state.addChannel(channel)) return fail({ code: "not_found", what: "project" });
  shard.changes.gathered.channels.push(channel);
  return ok(channel);
}

/**
 * Removes a channel from a project: every check of the project stops notifying it, and the store drops
 * its notifications still waiting in the outbox. Deadlines already due are left to fire afterwards (the
 * timer's next tick, or the next command on the check): nothing reaches a removed channel after `at`.
 */
export function removeChannel(shard: ShardCore, projectId: string, channelId: string): Outcome<Channel> {
  if (!shard.state.project(projectId)) return fail({ code: "not_found", what: "project" });
  const removed = shard.state.removeChannel(projectId, channelId);
  if (removed === undefined) return fail({ code: "not_found", what: "channel" });
  for (const uuid of shard.state.checkUuids(projectId)) {
    const check = shard.state.check(uuid);
    if (check === undefined) continue;
    const escalation = check.escalation === undefined ? undefined : withoutChannel(check.escalation, channelId);
    if (check.channels.includes(channelId) || escalation !== check.escalation) {
      shard.store(checkWith(check, { channels: check.channels.filter((id) => id !== channelId), escalation }));
    }
  }
  const project = shard.state.project(projectId);
  const policy = project?.escalation === undefined ? undefined : withoutChannel(project.escalation, channelId);
  if (project !== undefined && policy !== project.escalation) {
    const { escalation: _before, ...rest } = project;
    const changed = policy === undefined || policy.length === 0 ? rest : { ...rest, escalation: policy };
    shard.state.putProject(changed);
    shard.changes.gathered.projects.push(changed);
  }
  shard.changes.gathered.deletedChannels.push({ projectId, id: channelId });
  return ok(removed);
}

/**
 * Replaces a channel's name and value, keeping its id, kind and creation time: checks keep notifying it,
 * and notifications already in the outbox keep the channel as it was when they were queued.
 */
export function updateChannel(
  shard: ShardCore,
  projectId: string,
  channelId: string,
  change: Pick<Channel, "name" | "value" | "newChecks" | "everyFailure">,
): Outcome<Channel> {
  if (!shard.state.project(projectId)) return fail({ code: "not_found", what: "project" });
  const known = shard.state.channels(projectId).find((c) => c.id === channelId);
  if (known === undefined) return fail({ code: "not_found", what: "channel" });
  if (change.value.kind !== known.kind) return invalid("kind", `cannot change (the integration is ${known.kind})`);
  const newChecks = change.newChecks ?? known.newChecks; // absent: unchanged
  const everyFailure = change.everyFailure ?? known.everyFailure;
  const { needsSettings: _given, newChecks: _was, everyFailure: _before, ...settled } = known; // a stub given its settings is one no more
  const updated: Channel = {
    ...settled,
    name: change.name,
    value: change.value,
    ...(newChecks === false ? { newChecks } : {}),
    ...(everyFailure === true ? { everyFailure } : {}),
  };
  shard.state.replaceChannel(updated);
  shard.changes.gathered.channels.push(updated);
  return ok(updated);
}

/** Returns the policy without channel `id` (a step left with none is dropped), or the same policy when it never names it. */
function withoutChannel(policy: readonly EscalationStep[], id: string): readonly EscalationStep[] {
  if (!policy.some((step) => step.channels.includes(id))) return policy;
  return policy
    .map((step) => ({ afterMs: step.afterMs, channels: step.channels.filter((c) => c !== id) }))
    .filter((step) => step.channels.length > 0);
}
