// `hcd apply`: the plan (plan.ts) shown whole, then (unless a dry run) carried out one change after another
// through the admin API, each printed once it is made. The first change the server refuses stops the run:
// what was applied and what was not is said, and a run again plans only what is still missing.
import type { AdminClient } from "../admin-client.ts";
import type { HcdFile } from "./document.ts";
import { makePlan } from "./plan.ts";
import type { Change, Plan } from "./plan-model.ts";

const SIGN = { create: "+", update: "~", delete: "-" } as const;

/** The plan as lines: one per change, then the counts, then what is kept for want of --prune. */
export function planLines(plan: Plan): string[] {
  const lines = plan.changes.map((c) => `  ${SIGN[c.verb]} ${c.verb} ${c.label}${c.details.length > 0 ? `: ${c.details.join("; ")}` : ""}`);
  const count = (verb: Change["verb"]) => plan.changes.filter((c) => c.verb === verb).length;
  lines.push(
    plan.changes.length === 0
      ? "No changes: hcd matches the file."
      : `Plan: ${count("create")} to create, ${count("update")} to change, ${count("delete")} to delete.`,
  );
  if (plan.unmanaged.length > 0) {
    lines.push(`Not in the file, kept (--prune deletes them): ${plan.unmanaged.length}`);
    for (const label of plan.unmanaged) lines.push(`  = ${label}`);
  }
  return lines;
}

export type ApplyResult = { readonly applied: number; readonly planned: number; readonly failed: string | null };

/** Plans, prints the plan, and unless `dryRun` applies it, printing each change made. */
export async function applyFile(
  client: AdminClient,
  file: HcdFile,
  options: { dryRun: boolean; prune: boolean; print: (line: string) => void },
): Promise<ApplyResult> {
  const { plan, ids } = await makePlan(client, file, { prune: options.prune });
  for (const line of planLines(plan)) options.print(line);
  if (options.dryRun) {
    options.print("Dry run: nothing was changed.");
    return { applied: 0, planned: plan.changes.length, failed: null };
  }
  let applied = 0;
  for (const change of plan.changes) {
    try {
      options.print(await change.run(client, ids));
      applied += 1;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      options.print(`failed: ${change.verb} ${change.label}: ${reason}`);
      options.print(`Applied ${applied} of ${plan.changes.length} changes; not applied:`);
      for (const left of plan.changes.slice(applied)) options.print(`  ${SIGN[left.verb]} ${left.verb} ${left.label}`);
      options.print("Nothing applied was undone: fix the cause and run apply again to complete it.");
      return { applied, planned: plan.changes.length, failed: reason };
    }
  }
  if (plan.changes.length > 0) options.print(`Applied ${applied} changes.`);
  return { applied, planned: plan.changes.length, failed: null };
}
