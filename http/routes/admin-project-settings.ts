// /admin/v1/projects/<id> and its keys: one project read, renamed or deleted; its read-write or read-only
// API key created anew or revoked. Every request needs the admin bearer token.
import type { H3, H3Event } from "h3";
import type { AppDeps } from "../deps.ts";
import { authorizeAdmin } from "../auth.ts";
import { endpoint, json } from "../endpoint.ts";
import { jsonBody, projectOfUrl } from "./admin-params.ts";
import type { ErrorReporter } from "../errors.ts";
import { httpError, unwrap } from "../errors.ts";
import { presentProject } from "../present.ts";
import { API_KEY_KINDS, deleteProject, newApiKey, projectEditOf, setApiKey } from "../project-settings.ts";
import type { Millis } from "../../engine/model.ts";
import type { AuditAction } from "../../host/audit.ts";
import { auditTarget, recordChange } from "../../host/audit.ts";

export function adminProjectSettingsRoutes(app: H3, deps: AppDeps, opts: { report: ErrorReporter }): void {
  const { pool, clock, config } = deps;
  const options = { report: opts.report, cors: false } as const;
  const record = (projectId: string, action: AuditAction, target: string, at: Millis) =>
    recordChange(deps.audit, { projectId, actor: { kind: "admin" }, action, target, at });
  const projectOf = (event: H3Event) => {
    authorizeAdmin(event.req.headers, config.adminToken);
    return projectOfUrl(deps, event);
  };
  const keyOf = (event: H3Event) => {
    const key = Object.hasOwn(API_KEY_KINDS, event.context.params?.kind ?? "")
      ? API_KEY_KINDS[event.context.params?.kind ?? ""]
      : undefined;
    if (key === undefined) throw httpError(404, "no such key: read-write or read-only");
    return key;
  };

  endpoint(
    app,
    "/admin/v1/projects/:id",
    {
      GET: async (event) => json(presentProject(projectOf(event))),
      PUT: async (event) => {
        const project = projectOf(event);
        const { name, limits } = unwrap(projectEditOf(await jsonBody(event)));
        const at = clock.now();
        const changed = unwrap(await pool.changeProject(project.id, { kind: "edit", name, limits }, at));
        if (changed.name !== project.name) await record(project.id, "project.renamed", auditTarget.project(changed), at);
        if (
          changed.checkLimit !== project.checkLimit ||
          changed.pingLogLimit !== project.pingLogLimit ||
          changed.pingBodyLimit !== project.pingBodyLimit
        ) {
          await record(project.id, "project.limits_changed", auditTarget.project(changed), at);
        }
        return json(presentProject(changed));
      },
      DELETE: async (event) => {
        const project = projectOf(event),
          at = clock.now();
        unwrap(await deleteProject(pool, project.id, at));
        await record(project.id, "project.deleted", auditTarget.project(project), at);
        return json(null, 204);
      },
    },
    options,
  );

  endpoint(
    app,
    "/admin/v1/projects/:id/keys/:kind",
    {
      POST: async (event) => {
        const project = projectOf(event),
          kind = event.context.params?.kind ?? "",
          at = clock.now();
        const changed = unwrap(await setApiKey(pool, project.id, keyOf(event), newApiKey(), at));
        await record(project.id, "key.created", auditTarget.key(kind), at);
        return json(presentProject(changed));
      },
      DELETE: async (event) => {
        const project = projectOf(event),
          kind = event.context.params?.kind ?? "",
          at = clock.now();
        unwrap(await setApiKey(pool, project.id, keyOf(event), "", at));
        await record(project.id, "key.revoked", auditTarget.key(kind), at);
        return json(null, 204);
      },
    },
    options,
  );
}
