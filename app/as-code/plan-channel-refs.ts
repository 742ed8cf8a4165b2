// How a project's entries in an apply file name its channels (by name, or by id), resolved against the
// file's channels or, for a section the file does not manage, the channels here; and the escalation
// policies built on them: a check's own (plan-entries.ts) and its project's, planned here.
import { call } from "../admin-client.ts";
import type { FileChannel, FileEscalationStep } from "./document.ts";
import type { LiveEscalationStep } from "./live-state.ts";
import { idsOf } from "./live-state.ts";
import type { Change, Ids, ProjectContext } from "./plan-model.ts";
import { PHASE } from "./plan-model.ts";
import type { ResolvedSteps } from "./requests.ts";
import { stepsBody } from "./requests.ts";

/** Where a file names a channel: its entry in the file (a managed section), or a channel here by id (not managed). */
export type ChannelTarget = { readonly entry: FileChannel } | { readonly id: string };

/** Resolves a check's or group's channel reference (a name, or an id); null after recording a problem. */
export function channelTarget(context: ProjectContext, ref: string, where: string): ChannelTarget | null {
  const { file, live } = context;
  if (file.channels !== undefined) {
    const entry =
      file.channels.find((c) => c.id === undefined && c.name === ref) ??
      file.channels.find((c) => c.id === ref) ??
      file.channels.find((c) => c.name === ref);
    if (entry !== undefined) return { entry };
  } else {
    const byName = (live?.channels ?? []).filter((c) => c.name === ref);
    const byId = (live?.channels ?? []).find((c) => c.id === ref);
    if (byId !== undefined) return { id: byId.id };
    if (byName.length === 1) return { id: byName[0].id };
    if (byName.length > 1) {
      context.problems.push(`${where}: ${byName.length} channels of ${context.label} are named ${JSON.stringify(ref)}; name it by its id`);
      return null;
    }
  }
  context.problems.push(`${where}: ${context.label} has no channel ${JSON.stringify(ref)}`);
  return null;
}

/** The key a target is compared by (its id here, or "new:" and its place in the file), and its id once applied. */
export function channelKey(context: ProjectContext, target: ChannelTarget): string {
  if ("id" in target) return target.id;
  return context.ids.channels.get(target.entry) ?? `new:${context.file.channels?.indexOf(target.entry)}`;
}
export function channelIdAtRun(ids: Ids, target: ChannelTarget): string {
  if ("id" in target) return target.id;
  const id = ids.channels.get(target.entry);
  if (id === undefined) throw new Error(`channel ${JSON.stringify(target.entry.name)} was not created`);
  return id;
}

/** An escalation policy's steps with each channel reference resolved (problems recorded, unresolved ones left out). */
export type StepTargets = readonly { readonly after: number; readonly channels: readonly ChannelTarget[] }[];

export function escalationTargets(context: ProjectContext, steps: readonly FileEscalationStep[], where: string): StepTargets {
  return steps.map((step, i) => ({
    after: step.after,
    channels: step.channels
      .map((ref) => channelTarget(context, ref, `${where}, step ${i + 1}`))
      .filter((t): t is ChannelTarget => t !== null),
  }));
}

export function stepIdsAtRun(ids: Ids, steps: StepTargets): ResolvedSteps {
  return steps.map((step) => ({ after: step.after, channels: step.channels.map((t) => channelIdAtRun(ids, t)) }));
}

/** Whether the wanted steps (null: the project's policy) are the ones here: the same `after`s, each with the same channels. */
export function sameSteps(context: ProjectContext, want: StepTargets | null, have: readonly LiveEscalationStep[] | null): boolean {
  if (want === null || have === null) return want === have;
  return (
    want.length === have.length &&
    want.every(
      (step, i) =>
        step.after === have[i].after &&
        sameSet(
          step.channels.map((t) => channelKey(context, t)),
          idsOf(have[i].channels),
        ),
    )
  );
}

export function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return JSON.stringify([...new Set(a)].sort()) === JSON.stringify([...new Set(b)].sort());
}

/** The project's escalation policy, when the file says it: set once the channels it names exist. */
export function projectEscalationChanges(context: ProjectContext): Change[] {
  const { file, live, label } = context;
  if (file.escalation === undefined) return [];
  const steps = escalationTargets(context, file.escalation, `${label}, escalation`);
  if (sameSteps(context, steps, live?.escalation ?? [])) return [];
  return [
    {
      verb: "update",
      what: "project",
      label,
      details: ["escalation"],
      phase: PHASE.escalation,
      run: async (client, runIds) => {
        await call(client, "PUT", `/admin/v1/projects/${encodeURIComponent(context.projectId())}/escalation`, {
          escalation: stepsBody(stepIdsAtRun(runIds, steps)),
        });
        return `updated the escalation policy of ${label}`;
      },
    },
  ];
}
