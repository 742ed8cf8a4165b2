// The Management API's versions (CONTRACT "API versions"): /api/v1/, /api/v2/ and /api/v3/ serve the same
// endpoints, and these rules are everything that differs between them (reference hc/api/decorators.py
// _get_api_version, Check.to_dict's `v`, views._update's `v < 3`).

export const API_VERSIONS = [1, 2, 3] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

/** Returns the version a path segment names ("v1", "v2", "v3"), or null for any other segment (→ 404). */
export function apiVersionOf(segment: string): ApiVersion | null {
  return API_VERSIONS.find((version) => segment === `v${version}`) ?? null;
}

/** Returns the root of the API's URLs in answers (update_url, pause_url, body_url, ...): they carry the version used. */
export function apiRootOf(siteRoot: string, version: ApiVersion): string {
  return `${siteRoot}/api/v${version}`;
}

/** Returns true when a running check's status reads "started" (v1); v2 and v3 keep the status and say `started: true`. */
export function showsStartedStatus(version: ApiVersion): boolean {
  return version === 1;
}

/** Returns true when setting a check's name also sets its slug to the slugified name (v1 and v2). */
export function slugFollowsName(version: ApiVersion): boolean {
  return version < 3;
}
