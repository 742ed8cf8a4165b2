// How the file names a check (depends_on, a status page's checks): its entry in the file when the file
// manages the project's checks, else a check here by uuid or slug; and its uuid once the plan runs.
import type { FileCheck } from "./document.ts";
import type { Ids, ProjectContext } from "./plan-model.ts";

/** Where a file names a check: its entry in the file, or a check here (a section not managed). */
export type CheckTarget = { readonly entry: FileCheck } | { readonly uuid: string };

/** The check `ref` (a uuid or a slug) names, or null with a problem noted (`where`: the entry that names it). */
export function checkTarget(context: ProjectContext, ref: string, where: string): CheckTarget | null {
  const { file, live } = context;
  if (file.checks !== undefined) {
    const entry = file.checks.find((c) => c.uuid === ref) ?? file.checks.find((c) => c.slug === ref && c.slug !== "");
    if (entry !== undefined) return { entry };
  } else {
    const byUuid = (live?.checks ?? []).find((c) => c.uuid === ref);
    if (byUuid !== undefined) return { uuid: byUuid.uuid };
    const bySlug = (live?.checks ?? []).filter((c) => c.slug === ref && ref !== "");
    if (bySlug.length === 1) return { uuid: bySlug[0].uuid };
    if (bySlug.length > 1) {
      context.problems.push(
        `${where}: ${bySlug.length} checks of ${context.label} have the slug ${JSON.stringify(ref)}; name it by its uuid`,
      );
      return null;
    }
  }
  context.problems.push(`${where}: ${context.label} has no check ${JSON.stringify(ref)}`);
  return null;
}

/** The key the plan compares a named check by: its uuid, else its entry's. */
export function checkKey(context: ProjectContext, target: CheckTarget): string {
  if ("uuid" in target) return target.uuid;
  return context.ids.checks.get(target.entry) ?? target.entry.uuid ?? `new:${context.file.checks?.indexOf(target.entry)}`;
}
/** The named check's uuid while the plan runs (a check the run created: the uuid it got). */
export function checkUuidAtRun(ids: Ids, target: CheckTarget): string {
  if ("uuid" in target) return target.uuid;
  const uuid = ids.checks.get(target.entry);
  if (uuid === undefined) throw new Error(`check ${JSON.stringify(target.entry.slug ?? "")} was not created`);
  return uuid;
}
