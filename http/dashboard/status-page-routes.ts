// The dashboard's status pages of a project: list, create and edit (title, description, a checkbox and a
// group per check) and delete with a confirmation, through the admin API's rules and texts (http/status/) and the same pool calls.
import type { Project, StatusGroup } from "../../engine/model.ts";
import { httpError, sentenceOf, unwrap } from "../errors.ts";
import { statusPageInputOf } from "../status/status-page-input.ts";
import { addStatusPage, removeStatusPage, updateStatusPage } from "../status/status-pages.ts";
import type { Access, DashboardContext } from "./context.ts";
import { recordDashboardChange } from "./audit-routes.ts";
import { auditTarget } from "../../host/audit.ts";
import type { StatusPageForm } from "./status-page-views.ts";
import { EMPTY_STATUS_PAGE_FORM, formOfPage, statusPageDeletePage, statusPageEditPage, statusPagesPage } from "./status-page-views.ts";
import { allows, permit } from "./permits.ts";
import { htmlResponse, param, redirect } from "./responses.ts";

/** The form's fields as typed (the slug: the one typed, or on an edit the page's own). */
function typedOf(form: URLSearchParams, slug: string) {
  const checks = form.getAll("check");
  // every check's typed group, ticked or not (a refused form shows them again); only the ticked ones count
  const groups = Object.fromEntries(
    [...form.entries()].filter(([name]) => name.startsWith("group-")).map(([name, value]) => [name.slice("group-".length), value.trim()]),
  );
  const text = (name: string) => form.get(name) ?? "";
  return { slug, title: text("title"), description: text("description"), logo: text("logo").trim(), checks, groups };
}

/**
 * The groups of the typed form as the admin API takes them: each group typed beside ticked checks, in the
 * page's order of its groups (`held`), new ones after in the form's order; a group's checks likewise.
 */
function groupsOfForm(typed: { checks: readonly string[]; groups: Readonly<Record<string, string>> }, held: readonly StatusGroup[]) {
  const rank = <T>(list: readonly T[], item: T) => (list.includes(item) ? list.indexOf(item) : list.length);
  const names = [...new Set(typed.checks.map((uuid) => typed.groups[uuid]).filter((name) => name !== undefined && name !== ""))];
  const heldNames = held.map((g) => g.name);
  return names
    .map((name, i) => ({ name, i }))
    .sort((a, b) => rank(heldNames, a.name) - rank(heldNames, b.name) || a.i - b.i)
    .map(({ name }) => {
      const heldChecks = held.find((g) => g.name === name)?.checks ?? [];
      const checks = typed.checks.filter((uuid) => typed.groups[uuid] === name);
      return {
        name,
        checks: checks
          .map((uuid, i) => ({ uuid, i }))
          .sort((a, b) => rank(heldChecks, a.uuid) - rank(heldChecks, b.uuid) || a.i - b.i)
          .map((c) => c.uuid),
      };
    });
}

/** The admin API's body for the typed form. */
const bodyOf = (typed: ReturnType<typeof typedOf>, held: readonly StatusGroup[]) => ({
  slug: typed.slug,
  title: typed.title,
  description: typed.description,
  logo: typed.logo,
  checks: typed.checks,
  groups: groupsOfForm(typed, held),
});

export function statusPageRoutes(ctx: DashboardContext): void {
  const { deps, route, requireAccess, writeForm, projectFor } = ctx;
  const { pool, clock } = deps;
  const REFUSAL = "only the admin token, or a project's manager or owner, changes status pages";
  const mayChange = (access: Access) => permit(access, "statusPages.change", { keys: false, refusal: REFUSAL });
  const current = (project: Project) => pool.listProjects().find((p) => p.id === project.id) ?? project;
  const pageHtml = async (access: Access, project: Project, form: StatusPageForm, notice: string | null = null) =>
    statusPagesPage(access.viewer, {
      project: current(project),
      checks: await pool.listChecks(project.id, { tags: [] }),
      form,
      canChange: allows(access, "statusPages.change", { keys: false }),
      notice,
    });

  route("GET", "/projects/:project/status-pages", async (event) => {
    const access = requireAccess(event);
    const notice = event.url.searchParams.get("done") === "saved" ? "Status page saved." : null;
    return htmlResponse(await pageHtml(access, projectFor(access, param(event, "project")), EMPTY_STATUS_PAGE_FORM, notice));
  });

  route("POST", "/projects/:project/status-pages", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const form = await writeForm(event, access); // refuses read-only viewers and stale forms
    mayChange(access);
    const typed = typedOf(form, (form.get("slug") ?? "").trim());
    const at = clock.now();
    const input = statusPageInputOf(bodyOf(typed, []), at);
    const added = input.ok ? await addStatusPage(pool, project.id, input.value, at) : input;
    if (!added.ok) return htmlResponse(await pageHtml(access, project, { ...typed, error: sentenceOf(added.failure) }), 400);
    await recordDashboardChange(ctx, access, {
      projectId: project.id,
      action: "status_page.created",
      target: auditTarget.statusPage(typed.slug),
      at,
    });
    return redirect(`/projects/${project.id}/status-pages`);
  });

  const pageFor = (project: Project, slug: string) => {
    const page = current(project).statusPages?.find((p) => p.slug === slug);
    if (page === undefined) throw httpError(404, "status page not found");
    return { project: current(project), page };
  };

  route("GET", "/projects/:project/status-pages/:slug/edit", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    mayChange(access);
    const found = pageFor(project, param(event, "slug"));
    const checks = await pool.listChecks(project.id, { tags: [] });
    return htmlResponse(statusPageEditPage(access.viewer, { ...found, checks, form: formOfPage(found.page) }));
  });

  // an edit: the title, the description, the checks and their groups, through the admin API's rules; the address stays
  route("POST", "/projects/:project/status-pages/:slug/edit", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const form = await writeForm(event, access);
    mayChange(access);
    const found = pageFor(project, param(event, "slug"));
    const typed = typedOf(form, found.page.slug);
    const at = clock.now();
    const input = statusPageInputOf(bodyOf(typed, found.page.groups ?? []), at);
    const saved = input.ok ? await updateStatusPage(pool, project.id, input.value, at) : input;
    if (!saved.ok) {
      const checks = await pool.listChecks(project.id, { tags: [] });
      return htmlResponse(
        statusPageEditPage(access.viewer, { ...found, checks, form: { ...typed, error: sentenceOf(saved.failure) } }),
        400,
      );
    }
    await recordDashboardChange(ctx, access, {
      projectId: project.id,
      action: "status_page.updated",
      target: auditTarget.statusPage(typed.slug),
      at,
    });
    return redirect(`/projects/${project.id}/status-pages?done=saved`);
  });

  route("GET", "/projects/:project/status-pages/:slug/delete", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    mayChange(access);
    return htmlResponse(statusPageDeletePage(access.viewer, pageFor(project, param(event, "slug"))));
  });

  route("POST", "/projects/:project/status-pages/:slug/delete", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    await writeForm(event, access);
    mayChange(access);
    const at = clock.now();
    unwrap(await removeStatusPage(pool, project.id, param(event, "slug"), at));
    await recordDashboardChange(ctx, access, {
      projectId: project.id,
      action: "status_page.deleted",
      target: auditTarget.statusPage(param(event, "slug")),
      at,
    });
    return redirect(`/projects/${project.id}/status-pages`);
  });
}
