// /admin/v1/projects/<id> and its keys: one project read, renamed or deleted; its read-write or read-only
// API key created anew or revoked. Every request needs the admin bearer token.
import type { H3, H3Event } from "h3";
import type { AppDeps } from "../deps.ts";
import { authorizeAdmin } from "../auth.ts";
import { endpoint, json } from "../endpoint.ts";
import type { ErrorReporter } from "../errors.ts";
import { httpError, unwrap } from "../errors.ts";
import { parseJsonObject, readBodyBytes } from "../body.ts";
import { presentProject } from "../present.ts";
import { API_KEY_KINDS, deleteProject, newApiKey, projectNameOf, setApiKey } from "../project-settings.ts";

export function adminProjectSettingsRoutes(app: H3, deps: AppDeps, opts: { report: ErrorReporter }): void {
  const { pool, clock, config } = deps;
  const options = { report: opts.report, cors: false } as const;
  const projectOf = (event: H3Event) => {
    authorizeAdmin(event.req.headers, config.adminToken);
    const project = pool.listProjects().find((p) => p.id === event.context.params?.id);
    if (project === undefined) throw httpError(404, "project not found");
    return project;
  };
  const keyOf = (event: H3Event) => {
    const key = Object.hasOwn(API_KEY_KINDS, event.context.params?.kind ?? "") ? API_KEY_KINDS[event.context.params?.kind ?? ""] : undefined;
    if (key === undefined) throw httpError(404, "no such key: read-write or read-only");
    return key;
  };

  endpoint(app, "/admin/v1/projects/:id", {
    GET: async (event) => json(presentProject(projectOf(event))),
    PUT: async (event) => {
      const project = projectOf(event);
      const name = unwrap(projectNameOf(unwrap(parseJsonObject(await readBodyBytes(event.req)))));
      return json(presentProject(unwrap(await pool.changeProject(project.id, { kind: "rename", name }, clock.now()))));
    },
    DELETE: async (event) => {
      unwrap(await deleteProject(pool, projectOf(event).id, clock.now()));
      return json(null, 204);
    },
  }, options);

  endpoint(app, "/admin/v1/projects/:id/keys/:kind", {
    POST: async (event) => {
      const project = projectOf(event);
      return json(presentProject(unwrap(await setApiKey(pool, project.id, keyOf(event), newApiKey(), clock.now()))));
    },
    DELETE: async (event) => {
      const project = projectOf(event);
      unwrap(await setApiKey(pool, project.id, keyOf(event), "", clock.now()));
      return json(null, 204);
    },
  }, options);
}
