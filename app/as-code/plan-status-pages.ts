// The plan's changes of one project's status pages (plan.ts): each file page against the server's page of
// its slug: its title, checks and, when the file names them, its description, logo and groups (a file
// without them leaves the server's as they are), through the values the server would store.
import { call } from "../admin-client.ts";
import type { Change, Ids, ProjectContext } from "./plan-model.ts";
import { dropped, PHASE } from "./plan-model.ts";
import type { CheckTarget } from "./plan-check-refs.ts";
import { checkKey, checkTarget, checkUuidAtRun } from "./plan-check-refs.ts";
import { statusPageBody } from "./requests.ts";

const enc = encodeURIComponent;

/** A description as the server stores it (line breaks as \n, trimmed). */
const storedDescription = (text: string) => text.replace(/\r\n?/g, "\n").trim();
/** A logo address as the server stores it (as the URL parser writes it; read-file.ts refused one it cannot read). */
const storedLogo = (text: string) => (URL.canParse(text) ? new URL(text).href : text);

export function statusPageChanges(context: ProjectContext): Change[] {
  const { file, live, label: projectLabel } = context;
  if (file.status_pages === undefined) return [];
  const livePages = live?.statusPages ?? [];
  const changes: Change[] = [];
  const named = new Set(file.status_pages.map((p) => p.slug));
  for (const page of livePages.filter((p) => !named.has(p.slug))) {
    changes.push(
      ...dropped(context, "status page", `status page ${JSON.stringify(page.slug)}`, PHASE.pageDelete, `status-pages/${enc(page.slug)}`),
    );
  }
  for (const page of file.status_pages) {
    const label = `status page ${JSON.stringify(page.slug)} in ${projectLabel}`;
    const targetsOf = (refs: readonly string[]) =>
      refs.map((ref) => checkTarget(context, ref, label)).filter((t): t is CheckTarget => t !== null);
    const targets = targetsOf(page.checks);
    const groups = page.groups?.map((group) => ({ name: group.name.trim(), targets: targetsOf(group.checks) }));
    const body = (runIds: Ids) =>
      statusPageBody(
        page,
        targets.map((t) => checkUuidAtRun(runIds, t)),
        groups?.map((g) => ({ name: g.name, checks: g.targets.map((t) => checkUuidAtRun(runIds, t)) })),
      );
    const found = livePages.find((p) => p.slug === page.slug);
    if (found === undefined) {
      const owner = context.slugs.get(page.slug);
      if (owner !== undefined && owner !== live?.project.id)
        context.problems.push(`${label}: the slug is taken by a page of project ${owner}`);
      changes.push({
        verb: "create",
        what: "status page",
        label,
        details: [],
        phase: PHASE.page,
        run: async (client, runIds) => {
          await call(client, "POST", `/admin/v1/projects/${enc(context.projectId())}/status-pages`, body(runIds));
          return `created ${label}`;
        },
      });
      continue;
    }
    const details: string[] = [];
    if (found.title !== page.title.trim()) details.push(`title ${JSON.stringify(found.title)} → ${JSON.stringify(page.title.trim())}`);
    if (JSON.stringify(targets.map((t) => checkKey(context, t))) !== JSON.stringify(found.checks)) details.push("checks");
    if (page.description !== undefined && storedDescription(page.description) !== (found.description ?? "")) details.push("description");
    if (page.logo !== undefined && storedLogo(page.logo) !== (found.logo ?? "")) details.push("logo");
    const groupKeys = groups?.map((g) => ({ name: g.name, checks: g.targets.map((t) => checkKey(context, t)) }));
    if (groupKeys !== undefined && JSON.stringify(groupKeys) !== JSON.stringify(found.groups ?? [])) details.push("groups");
    if (details.length === 0) continue;
    changes.push({
      verb: "update",
      what: "status page",
      label,
      details,
      phase: PHASE.page,
      run: async (client, runIds) => {
        const { slug: _slug, ...edit } = body(runIds);
        await call(client, "PUT", `/admin/v1/projects/${enc(context.projectId())}/status-pages/${enc(page.slug)}`, edit);
        return `updated ${label}`;
      },
    });
  }
  return changes;
}
