// A shard's commands on checks: create (or update the unique match), update, import, pause, resume,
// acknowledge, delete; a settings change re-plans what it moves (notices, escalation, holds by dependencies).
import type { Check, CheckSpec, Millis, UniqueField } from "./model.ts";
import { checkWith } from "./model.ts";
import type { Outcome } from "./outcome.ts";
import { fail, invalid, ok } from "./outcome.ts";
import { acknowledge, replanNotices } from "./alerting.ts";
import { planEscalation } from "./escalation.ts";
import { dependencyProblem } from "./dependencies.ts";
import type { CheckImport, ImportResult } from "./check-import.ts";
import { importedCheckOf, importResultOf } from "./check-import.ts";
import type { ShardCore } from "./shard-core.ts";
import { applySpec, onPause, onResume } from "./transition.ts";

/**
 * Creates a check, or with `unique` updates the first check matching on those fields. `uuid`: the new
 * check's own (a check moved from another host keeps its ping URL); invalid when a check has it.
 */
export function createCheck(
  shard: ShardCore,
  projectId: string,
  spec: CheckSpec,
  unique: readonly UniqueField[],
  at: Millis,
  uuid?: string,
): Outcome<{ check: Check; created: boolean }> {
  const project = shard.state.project(projectId);
  if (!project) return fail({ code: "not_found", what: "project" });
  if (uuid !== undefined && shard.state.check(uuid) !== undefined) return invalid("uuid", "is taken by another check");
  const channels = shard.state.resolveChannels(projectId, spec.channels);
  if (!channels.ok) return channels;
  const escalation = shard.state.resolveEscalation(projectId, spec.escalation);
  if (!escalation.ok) return escalation;
  const resolved = { channelIds: channels.value, escalation: escalation.value };
  const match = shard.state.findUnique(projectId, spec, unique);
  const dependencies = validDependencies(shard, projectId, match?.uuid ?? null, spec);
  if (!dependencies.ok) return dependencies;
  if (match) {
    const due = shard.catchUp(match, at);
    return ok({ check: shard.dueAfterChange(storeUpdate(shard, due, applySpec(due, spec, resolved), spec, at), at), created: false });
  }
  if (shard.state.checkCountOf(projectId) >= project.checkLimit) return fail({ code: "check_limit" });
  const made = shard.newCheck(projectId, at); // its two ids drawn either way: a replay draws the same
  const fresh = uuid === undefined ? made : checkWith(made, { uuid });
  const check = storeUpdate(shard, fresh, applySpec(fresh, spec, resolved), spec, at);
  return ok({ check, created: true });
}

/** Updates the given fields of a check; status and pings are never changed by an update. */
export function updateCheck(shard: ShardCore, projectId: string, uuid: string, spec: CheckSpec, at: Millis): Outcome<Check> {
  const found = shard.dueCheck(projectId, uuid, at);
  if (!found.ok) return found;
  const channels = shard.state.resolveChannels(projectId, spec.channels);
  if (!channels.ok) return channels;
  const escalation = shard.state.resolveEscalation(projectId, spec.escalation);
  if (!escalation.ok) return escalation;
  const dependencies = validDependencies(shard, projectId, uuid, spec);
  if (!dependencies.ok) return dependencies;
  const resolved = { channelIds: channels.value, escalation: escalation.value };
  return ok(shard.dueAfterChange(storeUpdate(shard, found.value, applySpec(found.value, spec, resolved), spec, at), at));
}

/**
 * Brings a check over (engine/check-import.ts): a new one is made whole with its uuid, state and flips
 * (within the project's check limit); one already in the project takes the imported settings when they
 * differ, and keeps its state and history; another project's is forbidden.
 */
export function importCheck(
  shard: ShardCore,
  projectId: string,
  imported: CheckImport,
  at: Millis,
): Outcome<{ check: Check; result: ImportResult }> {
  const project = shard.state.project(projectId);
  if (!project) return fail({ code: "not_found", what: "project" });
  const existing = shard.state.check(imported.uuid);
  if (existing !== undefined && existing.projectId !== projectId) return fail({ code: "forbidden" });
  const channels = shard.state.resolveChannels(projectId, imported.spec.channels);
  if (!channels.ok) return channels;
  const result = importResultOf(existing ?? null, imported, channels.value);
  if (existing !== undefined) {
    if (result === "unchanged") return ok({ check: existing, result });
    const updated = updateCheck(shard, projectId, imported.uuid, { ...imported.spec, dependsOn: undefined }, at);
    return updated.ok ? ok({ check: updated.value, result }) : updated;
  }
  if (shard.state.checkCountOf(projectId) >= project.checkLimit) return fail({ code: "check_limit" });
  const made = importedCheckOf(projectId, imported, channels.value);
  for (const flip of made.flips) shard.changes.gathered.flips.push(flip);
  return ok({ check: shard.store(made.check), result });
}

/** Pauses a check (a no-op when already paused). */
export function pauseCheck(shard: ShardCore, projectId: string, uuid: string, at: Millis): Outcome<Check> {
  const found = shard.dueCheck(projectId, uuid, at);
  if (!found.ok) return found;
  return ok(shard.apply(onPause(found.value, at), null));
}

/** Resumes a paused check; not_paused otherwise. */
export function resumeCheck(shard: ShardCore, projectId: string, uuid: string, at: Millis): Outcome<Check> {
  const found = shard.dueCheck(projectId, uuid, at);
  if (!found.ok) return found;
  const step = onResume(found.value, at);
  if (!step.ok) return step;
  return ok(shard.apply(step.value, null));
}

/** Acknowledges a down check's outage: its reminders stop until it ends; not_down when it is not down (by `at`). */
export function acknowledgeCheck(shard: ShardCore, projectId: string, uuid: string, by: string, at: Millis): Outcome<Check> {
  const found = shard.dueCheck(projectId, uuid, at);
  if (!found.ok) return found;
  const acknowledged = acknowledge(found.value, { at, by });
  if (acknowledged === null) return fail({ code: "not_down" });
  return ok(acknowledged === found.value ? acknowledged : shard.store(acknowledged));
}

/** Deletes a check; returns it as it was, with no channels (the reference's answer). */
export function deleteCheck(shard: ShardCore, projectId: string, uuid: string, at: Millis): Outcome<Check> {
  const found = shard.dueCheck(projectId, uuid, at);
  if (!found.ok) return found;
  shard.state.deleteCheck(projectId, uuid);
  shard.wheel.delete(uuid);
  shard.changes.gathered.deletedChecks.push({ projectId, uuid });
  shard.dependents.replace(uuid, found.value.dependsOn, undefined);
  // the checks that depended on it depend on it no more (and are released if it held them)
  for (const dependent of shard.dependents.of(uuid)) {
    const check = shard.state.check(dependent);
    if (check === undefined) continue;
    const left = (check.dependsOn ?? []).filter((id) => id !== uuid);
    storeUpdate(shard, check, checkWith(check, { dependsOn: left.length === 0 ? undefined : left }), { dependsOn: left }, at);
  }
  return ok({ ...found.value, channels: [] });
}

/** Stores an updated check; a changed escalation policy plans the outage's next step again from `at`. */
function storeUpdate(shard: ShardCore, before: Check, after: Check, spec: CheckSpec, at: Millis): Check {
  const stored = storeSettings(shard, before, after, spec, at);
  if (spec.escalation === undefined) return stored;
  const planned = planEscalation(stored, shard.policyOf(stored), at);
  return planned === stored ? stored : shard.store(planned);
}

/** Stores an updated check; a changed mute or reminder interval re-plans its outage's notices from `at`. */
function storeSettings(shard: ShardCore, before: Check, after: Check, spec: CheckSpec, at: Millis): Check {
  if (spec.dependsOn !== undefined) {
    shard.dependents.replace(after.uuid, before.dependsOn, after.dependsOn);
    // new dependencies: held if one of them is down, released if none is
    const held = shard.heldByDependencies(after, at);
    const stored = shard.store(held.check);
    if (held.notice !== null) shard.notices.notice(stored, held.notice);
    return spec.mutedUntilAt === undefined && spec.reminderIntervalMs === undefined
      ? stored
      : storeSettings(shard, before, stored, { ...spec, dependsOn: undefined }, at);
  }
  if (spec.mutedUntilAt === undefined && spec.reminderIntervalMs === undefined) return shard.store(after);
  const planned = replanNotices(before, after, at, shard.muteOf(after, at));
  const stored = shard.store(planned.check);
  if (planned.notice !== null) shard.notices.notice(stored, planned.notice);
  return stored;
}

/** Checks a spec's depends_on for check `uuid` (null: one being created) of the project: invalid when it names another project's check or makes a cycle. */
function validDependencies(shard: ShardCore, projectId: string, uuid: string | null, spec: CheckSpec): Outcome<null> {
  if (spec.dependsOn === undefined) return ok(null);
  const problem = dependencyProblem({ uuid, projectId, dependsOn: spec.dependsOn, checkOf: (id) => shard.state.check(id) });
  return problem === null ? ok(null) : fail({ code: "invalid", field: "depends_on", reason: problem });
}
