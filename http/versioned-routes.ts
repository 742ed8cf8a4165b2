// The API's routes under every version it serves: one route per path with the version as its first
// parameter (/api/:version/...), so each handler is registered once and reads the version it was asked in.
import type { H3Event } from "h3";
import type { ApiVersion } from "../host/api-versions.ts";
import { apiVersionOf } from "../host/api-versions.ts";
import { httpError } from "./errors.ts";

/** The path of an API route under every version: `/api/:version` + `path` (host/api-versions.ts). */
export const apiPath = (path: string) => `/api/:version${path}`;

/** Returns a route's `accepts` that also requires a version the API serves (any other is 404). */
export function inVersions(accepts?: (params: Record<string, string>) => boolean): (params: Record<string, string>) => boolean {
  return (params) => apiVersionOf(params.version ?? "") !== null && (accepts === undefined || accepts(params));
}

/** Returns the API version a request's path names (404 for any other). */
export function versionOf(event: H3Event): ApiVersion {
  const version = apiVersionOf(event.context.params?.version ?? "");
  if (version === null) throw httpError(404, "not found");
  return version;
}
