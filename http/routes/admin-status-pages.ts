// /admin/v1/projects/<id>/status-pages: a project's public status pages, listed, added and removed
// (CONTRACT "Status pages"). Every request needs the admin bearer token.
import type { H3, H3Event } from "h3";
import type { AppDeps } from "../deps.ts";
import { authorizeAdmin } from "../auth.ts";
import { endpoint, json } from "../endpoint.ts";
import { jsonBody, projectOfUrl } from "./admin-params.ts";
import type { ErrorReporter } from "../errors.ts";
import { httpError, reasonOf, unwrap } from "../errors.ts";
import { statusPageInputOf } from "../status/status-page-input.ts";
import { addStatusPage, presentStatusPage, removeStatusPage, SLUG_TAKEN, updateStatusPage } from "../status/status-pages.ts";
import { auditTarget, recordChange } from "../../host/audit.ts";

export function adminStatusPageRoutes(app: H3, deps: AppDeps, opts: { report: ErrorReporter }): void {
  const { pool, clock, config } = deps;
  const options = { report: opts.report, cors: false } as const;
  const projectOf = (event: H3Event) => {
    authorizeAdmin(event.req.headers, config.adminToken);
    return projectOfUrl(deps, event);
  };

  endpoint(
    app,
    "/admin/v1/projects/:id/status-pages",
    {
      GET: async (event) => {
        const project = projectOf(event);
        return json({ status_pages: (project.statusPages ?? []).map((page) => presentStatusPage(page, config.siteRoot)) });
      },
      POST: async (event) => {
        const project = projectOf(event);
        const at = clock.now();
        const page = unwrap(statusPageInputOf(await jsonBody(event), at));
        const added = await addStatusPage(pool, project.id, page, at);
        if (!added.ok && added.failure.code === "invalid" && added.failure.reason === SLUG_TAKEN)
          throw httpError(409, reasonOf(added.failure));
        unwrap(added);
        await recordChange(deps.audit, {
          projectId: project.id,
          actor: { kind: "admin" },
          action: "status_page.created",
          target: auditTarget.statusPage(page.slug),
          at,
        });
        return json(presentStatusPage(page, config.siteRoot), 201);
      },
    },
    options,
  );

  endpoint(
    app,
    "/admin/v1/projects/:id/status-pages/:slug",
    {
      // an edit: a new title and list of checks, checked as when the page is added; the slug stays
      PUT: async (event) => {
        const project = projectOf(event),
          slug = event.context.params?.slug ?? "",
          at = clock.now();
        const body = await jsonBody(event);
        if (Object.hasOwn(body, "slug") && body.slug !== slug)
          throw httpError(400, "json validation error: slug cannot change (add a page and delete this one)");
        const page = unwrap(statusPageInputOf({ ...body, slug }, at));
        const updated = unwrap(await updateStatusPage(pool, project.id, page, at));
        await recordChange(deps.audit, {
          projectId: project.id,
          actor: { kind: "admin" },
          action: "status_page.updated",
          target: auditTarget.statusPage(slug),
          at,
        });
        return json(presentStatusPage(updated.statusPages?.find((p) => p.slug === slug) ?? page, config.siteRoot));
      },
      DELETE: async (event) => {
        const project = projectOf(event),
          slug = event.context.params?.slug ?? "",
          at = clock.now();
        unwrap(await removeStatusPage(pool, project.id, slug, at));
        await recordChange(deps.audit, {
          projectId: project.id,
          actor: { kind: "admin" },
          action: "status_page.deleted",
          target: auditTarget.statusPage(slug),
          at,
        });
        return json(null, 204);
      },
    },
    options,
  );
}
