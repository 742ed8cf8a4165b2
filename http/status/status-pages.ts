// The status pages of every project, as the directory has them: which page a slug names, and adding and
// removing one through the pool with the rule the shards cannot judge (a slug is unique over all projects).
import type { Millis, Project, StatusPage } from "../../engine/model.ts";
import type { Outcome } from "../../engine/outcome.ts";
import { invalid } from "../../engine/outcome.ts";
import type { Pool } from "../../host/pool-api.ts";
import { isoSeconds } from "../../lib/iso-dates.ts";

/** The page a slug names, with its project; null when none does. */
export function statusPageOf(pool: Pool, slug: string): { project: Project; page: StatusPage } | null {
  for (const project of pool.listProjects()) {
    const page = project.statusPages?.find((p) => p.slug === slug);
    if (page !== undefined) return { project, page };
  }
  return null;
}

/** The failure's text when a slug is taken: the admin API answers it with 409. */
export const SLUG_TAKEN = "is already taken";

/** Adds a status page to a project; invalid("slug", SLUG_TAKEN) when any project has the slug. */
export async function addStatusPage(pool: Pool, projectId: string, page: StatusPage, at: Millis): Promise<Outcome<Project>> {
  await pool.catchUp(); // cluster mode: a page another node just added is seen
  if (statusPageOf(pool, page.slug) !== null) return invalid("slug", SLUG_TAKEN);
  return pool.changeProject(projectId, { kind: "addStatusPage", page }, at);
}

/** Gives the page of `page.slug` a new title, list of checks and (when given) description, logo and groups; not_found when the project has no such page. */
export function updateStatusPage(pool: Pool, projectId: string, page: StatusPage, at: Millis): Promise<Outcome<Project>> {
  return pool.changeProject(projectId, { kind: "updateStatusPage", page }, at);
}

export function removeStatusPage(pool: Pool, projectId: string, slug: string, at: Millis): Promise<Outcome<Project>> {
  return pool.changeProject(projectId, { kind: "removeStatusPage", slug }, at);
}

/** A page as the admin API lists it (CONTRACT "Status pages"): its fields and where it is shown. */
export function presentStatusPage(page: StatusPage, siteRoot: string): Record<string, unknown> {
  return {
    slug: page.slug,
    title: page.title,
    ...(page.description ? { description: page.description } : {}), // only when the page has one
    ...(page.logo ? { logo: page.logo } : {}),
    checks: [...page.checks],
    ...(page.groups?.length ? { groups: page.groups.map((g) => ({ name: g.name, checks: [...g.checks] })) } : {}), // only when it has some
    url: `${siteRoot}/status/${page.slug}`,
    created: isoSeconds(page.createdAt),
  };
}
