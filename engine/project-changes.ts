// Changes to a project record alone, which touch none of its checks' states: a new name, a key created or
// revoked, a status page added, edited or removed. One pure function applies each, so the shard, replays and the
// cluster's replicas agree on the result.
import type { EscalationSpecStep, Millis, Project, StatusGroup, StatusPage } from "./model.ts";
import type { Outcome } from "./outcome.ts";
import { fail, invalid, ok } from "./outcome.ts";

/** A project's limits to set; an absent one stays as it is. */
export type ProjectLimits = { readonly checkLimit?: number; readonly pingLogLimit?: number; readonly pingBodyLimit?: number };

/** Which of a project's API keys: read-write or read-only. */
export type ApiKeyKind = "apiKey" | "apiKeyReadonly";

export type ProjectChange =
  | { readonly kind: "rename"; readonly name: string }
  /** A new name and the limits given (those absent stay): PUT /admin/v1/projects/<id>. */
  | { readonly kind: "edit"; readonly name: string; readonly limits: ProjectLimits }
  /** A new key, or "" for none: a revoked key authenticates nothing (an empty key is never accepted). */
  | { readonly kind: "setKey"; readonly key: ApiKeyKind; readonly value: string }
  | { readonly kind: "addStatusPage"; readonly page: StatusPage }
  | { readonly kind: "removeStatusPage"; readonly slug: string }
  /** A new title and list of checks for the page of `page.slug`; its slug and creation time stay. */
  | { readonly kind: "updateStatusPage"; readonly page: StatusPage }
  /** The escalation policy of the project's checks without their own (channels by id or name; [] = none): the shard resolves it. */
  | { readonly kind: "setEscalation"; readonly steps: readonly EscalationSpecStep[] }
  /** The last step of deleting a project (its checks and channels removed first): every key and page goes. */
  | { readonly kind: "delete"; readonly at: Millis };

/**
 * Returns the project after `change`. `ownsCheck` says whether a check uuid belongs to the project: a status
 * page names only the project's own checks. A slug taken by another project is the caller's to refuse
 * (the shard sees only its own projects).
 */
export function applyProjectChange(project: Project, change: ProjectChange, ownsCheck: (uuid: string) => boolean): Outcome<Project> {
  if (project.deletedAt !== undefined) return fail({ code: "not_found", what: "project" });
  switch (change.kind) {
    case "rename":
      return ok({ ...project, name: change.name });
    case "edit":
      return ok({ ...project, name: change.name, ...change.limits });
    case "setKey":
      return ok(withoutHashedKey({ ...project, [change.key]: change.value }, change.key));
    case "addStatusPage": {
      const pages = project.statusPages ?? [];
      if (pages.some((page) => page.slug === change.page.slug)) return invalid("slug", "is already taken");
      const foreign = change.page.checks.find((uuid) => !ownsCheck(uuid));
      if (foreign !== undefined) return invalid("checks", `has a check that is not in this project: ${foreign}`);
      const { groups, logo, ...page } = change.page;
      return ok({ ...project, statusPages: [...pages, { ...page, ...(groups?.length ? { groups } : {}), ...(logo ? { logo } : {}) }] });
    }
    case "updateStatusPage": {
      const pages = project.statusPages ?? [];
      const held = pages.find((page) => page.slug === change.page.slug);
      if (held === undefined) return fail({ code: "not_found", what: "status page" });
      const foreign = change.page.checks.find((uuid) => !ownsCheck(uuid));
      if (foreign !== undefined) return invalid("checks", `has a check that is not in this project: ${foreign}`);
      // an edit that names no description keeps the page's (an empty one takes it away); the same for the
      // logo and the groups, whose kept checks are those still on the page
      const description = change.page.description === undefined ? held.description : change.page.description;
      const groups = change.page.groups ?? keptGroups(held.groups ?? [], change.page.checks);
      const logo = change.page.logo === undefined ? held.logo : change.page.logo;
      const { description: _given, groups: _groups, logo: _logo, ...page } = change.page;
      const updated: StatusPage = {
        ...page,
        ...(description ? { description } : {}),
        ...(groups.length > 0 ? { groups } : {}),
        ...(logo ? { logo } : {}),
        createdAt: held.createdAt,
      };
      return ok({ ...project, statusPages: pages.map((page) => (page === held ? updated : page)) });
    }
    case "removeStatusPage": {
      const pages = project.statusPages ?? [];
      const left = pages.filter((page) => page.slug !== change.slug);
      if (left.length === pages.length) return fail({ code: "not_found", what: "status page" });
      return ok({ ...project, statusPages: left.length === 0 ? undefined : left });
    }
    case "setEscalation":
      return invalid("escalation", "is set by the shard, which knows the project's channels");
    case "delete": {
      const { statusPages: _pages, maintenance: _windows, hashedApiKeys: _hashed, escalation: _policy, ...kept } = project;
      return ok({ ...kept, apiKey: "", apiKeyReadonly: "", pingKey: "", deletedAt: change.at });
    }
  }
}

/** The project without the imported hash of key `key` (created anew or revoked: the old key stops working), and without the secret once no hash is left. */
function withoutHashedKey(project: Project, key: ApiKeyKind): Project {
  const hashed = project.hashedApiKeys;
  if (hashed === undefined) return project;
  const left = { ...hashed, [key]: null };
  const { hashedApiKeys: _dropped, ...rest } = project;
  return left.apiKey === null && left.apiKeyReadonly === null ? rest : { ...rest, hashedApiKeys: left };
}

/** A page's groups with only the checks still on it; a group left empty goes. */
function keptGroups(groups: readonly StatusGroup[], checks: readonly string[]): StatusGroup[] {
  return groups
    .map((group) => ({ name: group.name, checks: group.checks.filter((uuid) => checks.includes(uuid)) }))
    .filter((group) => group.checks.length > 0);
}
