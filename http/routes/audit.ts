// GET /admin/v1/projects/<id>/audit (CONTRACT "Users, roles and sign-in"): a project's recorded changes,
// newest first, a page at a time (`limit`, `before` = the previous page's `next`); GET /admin/v1/audit: the
// instance's own log (users, sign-ins, passwords and second factors, backups), the same way.
import type { H3 } from "h3";
import type { AppDeps } from "../deps.ts";
import { authorizeAdmin } from "../auth.ts";
import { endpoint, json } from "../endpoint.ts";
import { projectIdOf } from "./admin-params.ts";
import type { ErrorReporter } from "../errors.ts";
import { unwrap } from "../errors.ts";
import { auditQueryOf } from "../audit-query.ts";
import type { AuditPage } from "../../host/audit.ts";
import { INSTANCE_LOG } from "../../host/audit.ts";

/** Registers the audit log's admin route on `app`. */
export function auditRoutes(app: H3, deps: AppDeps, opts: { report: ErrorReporter }): void {
  endpoint(
    app,
    "/admin/v1/projects/:id/audit",
    {
      GET: async (event) => {
        authorizeAdmin(event.req.headers, deps.config.adminToken);
        const projectId = projectIdOf(deps, event);
        const query = unwrap(auditQueryOf(event.url.searchParams));
        const page = (await deps.audit?.page(projectId, query)) ?? { events: [], next: null };
        return json(presentAuditPage(page));
      },
    },
    { report: opts.report, cors: false },
  );
  endpoint(
    app,
    "/admin/v1/audit",
    {
      GET: async (event) => {
        authorizeAdmin(event.req.headers, deps.config.adminToken);
        const query = unwrap(auditQueryOf(event.url.searchParams));
        return json(presentAuditPage((await deps.audit?.page(INSTANCE_LOG, query)) ?? { events: [], next: null }));
      },
    },
    { report: opts.report, cors: false },
  );
}

/** Returns a page as the API shows it: {"events": [{"at", "actor", "action", "target"}], "next": cursor or null}. */
export function presentAuditPage(page: AuditPage): {
  events: { at: string; actor: string; action: string; target: string }[];
  next: string | null;
} {
  return {
    events: page.events.map((e) => ({ at: new Date(e.at).toISOString(), actor: e.actor, action: e.action, target: e.target })),
    next: page.next === null ? null : String(page.next),
  };
}
