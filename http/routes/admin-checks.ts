// /admin/v1/projects/<id>/checks: a project's checks for the admin token (what `hcd export` reads and
// `hcd apply` writes): listed, created (with a uuid of its own, so a moved check keeps its ping URL), read,
// edited (POST, as the Management API edits) and deleted by uuid or by slug; the path's PUT, a check brought
// over whole, is the import's (admin-import.ts). The Management API's validation and answers (http/input.ts,
// host/check-json.ts), without an API key: a project whose keys are revoked stays manageable.
import type { H3, H3Event } from "h3";
import type { Check, Millis } from "../../engine/model.ts";
import { isSlug, isUuid } from "../../engine/ids.ts";
import type { AppDeps } from "../deps.ts";
import { authorizeAdmin } from "../auth.ts";
import { endpoint, json } from "../endpoint.ts";
import { jsonBody, projectOfUrl } from "./admin-params.ts";
import type { ErrorReporter } from "../errors.ts";
import { httpError, unwrap } from "../errors.ts";
import { checkRequestOf } from "../input.ts";
import { checkQueryOf } from "../query-input.ts";
import type { CheckView } from "../../host/check-json.ts";
import { presentCheck } from "../../host/check-json.ts";
import type { AuditAction } from "../../host/audit.ts";
import { auditTarget, recordChange } from "../../host/audit.ts";
import { importedCheckPut } from "./admin-import.ts";

export function adminCheckRoutes(app: H3, deps: AppDeps, opts: { report: ErrorReporter }): void {
  const { pool, clock, config } = deps;
  const options = { report: opts.report, cors: false } as const;
  const emailDomain = config.smtpPort === null ? null : config.emailDomain;
  const view = (at: Millis): CheckView => ({ at, siteRoot: config.siteRoot, readonly: false, emailDomain, version: 3 });
  const projectOf = (event: H3Event) => {
    authorizeAdmin(event.req.headers, config.adminToken);
    return projectOfUrl(deps, event);
  };
  const record = (projectId: string, action: AuditAction, check: Check, at: Millis) =>
    recordChange(deps.audit, { projectId, actor: { kind: "admin" }, action, target: auditTarget.check(check), at });

  /** The check the URL's `:check` names in the project: its uuid, or a slug only one of its checks has. */
  const checkOf = async (projectId: string, event: H3Event): Promise<Check> => {
    const ref = event.context.params?.uuid ?? ""; // a uuid or a slug: the path's one name, shared with the import's PUT
    if (isUuid(ref)) {
      const found = await pool.getCheck(projectId, { uuid: ref });
      if (!found.ok && found.failure.code === "forbidden") throw httpError(404, "check not found in this project");
      return unwrap(found);
    }
    if (ref === "" || !isSlug(ref)) throw httpError(404, "check not found (name it by its uuid or its slug)");
    const matches = await pool.listChecks(projectId, { slug: ref, tags: [] });
    if (matches.length === 0) throw httpError(404, "check not found");
    if (matches.length > 1)
      throw httpError(409, `ambiguous slug: ${matches.length} checks of the project have it; name the check by its uuid`);
    return matches[0];
  };

  endpoint(
    app,
    "/admin/v1/projects/:id/checks",
    {
      GET: async (event) => {
        const project = projectOf(event);
        const document = await pool.listChecksJson(project.id, checkQueryOf(event.url.searchParams), view(clock.now()));
        return { status: 200, body: document, contentType: "application/json" };
      },
      POST: async (event) => {
        const project = projectOf(event);
        const body = await jsonBody(event);
        const uuid = Object.hasOwn(body, "uuid") ? body.uuid : undefined;
        if (uuid !== undefined && (typeof uuid !== "string" || !isUuid(uuid)))
          throw httpError(400, "json validation error: uuid is not a lower-case uuid");
        const request = unwrap(checkRequestOf(body, null));
        const at = clock.now();
        const { check, created } = unwrap(await pool.createCheck(project.id, request.spec, request.unique, at, uuid));
        await record(project.id, created ? "check.created" : "check.updated", check, at);
        return json(presentCheck(check, view(at)), created ? 201 : 200);
      },
    },
    options,
  );

  endpoint(
    app,
    "/admin/v1/projects/:id/checks/:uuid",
    {
      PUT: importedCheckPut(deps), // a check brought over whole (http/routes/admin-import.ts)
      GET: async (event) => {
        const project = projectOf(event);
        return json(presentCheck(await checkOf(project.id, event), view(clock.now())));
      },
      // an edit, as POST /api/v3/checks/<uuid> makes one: the same body, the fields sent change
      POST: async (event) => {
        const project = projectOf(event);
        const stored = await checkOf(project.id, event); // 404 before a bad body's 400, as the API decides
        const body = await jsonBody(event);
        if (Object.hasOwn(body, "uuid") && body.uuid !== stored.uuid) throw httpError(400, "json validation error: uuid cannot change");
        const request = unwrap(checkRequestOf(body, stored));
        if (request.unique.length > 0) throw httpError(400, "json validation error: unique applies to a create only");
        const at = clock.now();
        const check = unwrap(await pool.updateCheck(project.id, stored.uuid, request.spec, at));
        await record(project.id, "check.updated", check, at);
        return json(presentCheck(check, view(at)));
      },
      DELETE: async (event) => {
        const project = projectOf(event);
        const stored = await checkOf(project.id, event);
        const at = clock.now();
        const check = unwrap(await pool.deleteCheck(project.id, stored.uuid, at));
        await record(project.id, "check.deleted", check, at);
        return json(presentCheck({ ...check, channels: [] }, view(at)));
      },
    },
    options,
  );
}
