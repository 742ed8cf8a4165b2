// The dashboard's status pages of a project: list, create and edit (title, description, a checkbox per
// check) and delete with a confirmation, through the admin API's rules and texts (http/status/) and the same pool calls.
import type { Project } from "../../engine/model.ts";
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
  return { slug, title: form.get("title") ?? "", description: form.get("description") ?? "", checks: form.getAll("check") };
}

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
    const input = statusPageInputOf({ slug: typed.slug, title: typed.title, description: typed.description, checks: typed.checks }, at);
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

  // an edit: the title, the description and the checks, through the admin API's rules; the address stays
  route("POST", "/projects/:project/status-pages/:slug/edit", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const form = await writeForm(event, access);
    mayChange(access);
    const found = pageFor(project, param(event, "slug"));
    const typed = typedOf(form, found.page.slug);
    const at = clock.now();
    const input = statusPageInputOf({ slug: typed.slug, title: typed.title, description: typed.description, checks: typed.checks }, at);
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
