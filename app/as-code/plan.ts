// What `hcd apply` will do: the file (document.ts) compared with what hcd holds (live-state.ts), as a list of
// changes in the order they are carried out, each with what it shows and the admin request it makes.
// Entries are matched by id (uuid for checks) where the file has one that exists here, else by name (slug
// for checks); a section the file leaves out is not managed. Deletions only with `prune`. Nothing here
// changes anything: the plan is shown whole before the first change (apply.ts).
import type { FileProject, HcdFile } from "./document.ts";
import type { AdminClient } from "../admin-client.ts";
import { call } from "../admin-client.ts";
import type { LiveProject, LiveProjectState, LiveStatusPage } from "./live-state.ts";
import { listProjects, readProject } from "./live-state.ts";
import { checkChanges, maintenanceChanges } from "./plan-entries.ts";
import { channelChanges } from "./plan-channels.ts";
import { statusPageChanges } from "./plan-status-pages.ts";
import { projectEscalationChanges } from "./plan-channel-refs.ts";
import type { Change, Ids, Plan, ProjectContext } from "./plan-model.ts";
import { PHASE, PlanError } from "./plan-model.ts";

/** Reads what hcd holds of the file's projects and compares; throws PlanError when the file cannot be applied. */
export async function makePlan(client: AdminClient, file: HcdFile, options: { prune: boolean }): Promise<{ plan: Plan; ids: Ids }> {
  const live = await listProjects(client);
  const problems: string[] = [];
  const matched = matchProjects(file.projects, live, problems);
  const states = new Map<FileProject, LiveProjectState>();
  const slugs = new Map<string, string>();
  for (const project of live) {
    const pages = (
      (await call(client, "GET", `/admin/v1/projects/${encodeURIComponent(project.id)}/status-pages`)) as { status_pages: LiveStatusPage[] }
    ).status_pages;
    for (const page of pages) slugs.set(page.slug, project.id);
  }
  for (const [fileProject, liveProject] of matched)
    if (liveProject !== null) states.set(fileProject, await readProject(client, liveProject));
  const ids: Ids = { projects: new Map(), channels: new Map(), checks: new Map() };
  const changes: Change[] = [];
  const unmanaged: string[] = [];
  for (const fileProject of file.projects) {
    const state = states.get(fileProject) ?? null;
    if (state !== null) ids.projects.set(fileProject, state.project.id);
    const context: ProjectContext = {
      file: fileProject,
      live: state,
      label: `project ${JSON.stringify(fileProject.name)}`,
      prune: options.prune,
      ids,
      slugs,
      problems,
      unmanaged,
      projectId: () => {
        const id = ids.projects.get(fileProject);
        if (id === undefined) throw new Error(`${fileProject.name}: the project was not created`);
        return id;
      },
    };
    changes.push(
      ...projectChanges(context),
      ...channelChanges(context),
      ...projectEscalationChanges(context),
      ...checkChanges(context),
      ...statusPageChanges(context),
      ...maintenanceChanges(context),
    );
  }
  if (problems.length > 0) throw new PlanError(problems);
  const ordered = changes
    .map((change, i) => ({ change, i }))
    .sort((a, b) => a.change.phase - b.change.phase || a.i - b.i)
    .map((x) => x.change);
  return { plan: { changes: ordered, unmanaged }, ids };
}

/** Each file project's project here: its id's, else the one project of its name, else none (it is created). */
function matchProjects(
  projects: readonly FileProject[],
  live: readonly LiveProject[],
  problems: string[],
): Map<FileProject, LiveProject | null> {
  const matched = new Map<FileProject, LiveProject | null>();
  const taken = new Set<string>();
  for (const project of projects) {
    const byId = project.id === undefined ? undefined : live.find((p) => p.id === project.id);
    if (byId !== undefined) {
      matched.set(project, byId);
      taken.add(byId.id);
    }
  }
  for (const project of projects) {
    if (matched.has(project)) continue;
    const byName = live.filter((p) => p.name === project.name && !taken.has(p.id));
    if (byName.length > 1)
      problems.push(
        `project ${JSON.stringify(project.name)}: ${byName.length} projects here have this name; give the file's entry the id of one (${byName.map((p) => p.id).join(", ")})`,
      );
    matched.set(project, byName.length === 1 ? byName[0] : null);
    if (byName.length === 1) taken.add(byName[0].id);
  }
  return matched;
}

const LIMITS = ["check_limit", "ping_log_limit", "ping_body_limit"] as const;

function projectChanges(context: ProjectContext): Change[] {
  const { file, live, label, ids } = context;
  if (live === null) {
    // made with the file's id when it has one: the next run (here or on the hcd it came from) matches it by id
    const body: Record<string, unknown> = file.id === undefined ? { name: file.name } : { name: file.name, id: file.id };
    for (const limit of LIMITS) if (file[limit] !== undefined) body[limit] = file[limit];
    return [
      {
        verb: "create",
        what: "project",
        label,
        details: LIMITS.filter((l) => file[l] !== undefined).map((l) => `${l} ${file[l]}`),
        phase: PHASE.project,
        run: async (client) => {
          const made = (await call(client, "POST", "/admin/v1/projects", body)) as { id: string };
          ids.projects.set(file, made.id);
          return `created ${label} (id ${made.id})`;
        },
      },
    ];
  }
  const details: string[] = [];
  const body: Record<string, unknown> = { name: file.name };
  if (file.name !== live.project.name) details.push(`name ${JSON.stringify(live.project.name)} → ${JSON.stringify(file.name)}`);
  for (const limit of LIMITS) {
    const wanted = file[limit];
    if (wanted === undefined) continue;
    body[limit] = wanted;
    if (wanted !== live.project[limit]) details.push(`${limit} ${live.project[limit]} → ${wanted}`);
  }
  if (details.length === 0) return [];
  return [
    {
      verb: "update",
      what: "project",
      label,
      details,
      phase: PHASE.project,
      run: async (client) => {
        const changed = (await call(client, "PUT", `/admin/v1/projects/${encodeURIComponent(live.project.id)}`, body)) as Record<
          string,
          unknown
        >;
        const ignored = LIMITS.filter((l) => body[l] !== undefined && changed[l] !== body[l]);
        if (ignored.length > 0)
          throw new Error(`PUT /admin/v1/projects/${live.project.id}: this server did not change ${ignored.join(", ")}`);
        return `updated ${label}`;
      },
    },
  ];
}
