// What the admin routes read from a request: the JSON body, and the project the URL's `:id` names (404
// when there is none). One home for the admin API, users, audit, project-settings and status-page routes.
import type { H3Event } from "h3";
import type { Project } from "../../engine/model.ts";
import type { AppDeps } from "../deps.ts";
import type { JsonObject } from "../body.ts";
import { parseJsonObject, readBodyBytes } from "../body.ts";
import { httpError, unwrap } from "../errors.ts";

/** The request's body as a JSON object (400 when it is not one; 413 over `limit` bytes, default the API's). */
export async function jsonBody(event: H3Event, limit?: number): Promise<JsonObject> {
  return unwrap(parseJsonObject(await readBodyBytes(event.req, limit)));
}

/** The project the URL's `:id` names; 404 when there is none. */
export function projectOfUrl(deps: Pick<AppDeps, "pool">, event: H3Event): Project {
  const project = deps.pool.listProjects().find((p) => p.id === event.context.params?.id);
  if (project === undefined) throw httpError(404, "project not found");
  return project;
}

/** The id of the project the URL's `:id` names; 404 when there is none. */
export function projectIdOf(deps: Pick<AppDeps, "pool">, event: H3Event): string {
  return projectOfUrl(deps, event).id;
}
