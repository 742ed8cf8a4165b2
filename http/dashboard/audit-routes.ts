// The dashboard's side of the audit log: who a signed-in request is as an actor, the recording of its
// changes (through host/audit.ts recordChange, as every surface), and the audit log page.
import type { Millis } from "../../engine/model.ts";
import type { AuditAction, AuditActor } from "../../host/audit.ts";
import { auditTarget, INSTANCE_LOG, recordChange } from "../../host/audit.ts";
import { unwrap } from "../errors.ts";
import { auditQueryOf } from "../audit-query.ts";
import type { Access, DashboardContext } from "./context.ts";
import { auditPage } from "./audit-pages.ts";
import { htmlResponse, param } from "./responses.ts";
import { permit } from "./permits.ts";
import { seesPingUrls } from "./pages.ts";
import { uniqueKeyOf } from "../../host/unique-key.ts";

/** Every uuid in a text (any case). */
const UUIDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** Returns the actor of a signed-in request: the admin token, or the project key the session was opened with. */
export function auditActorOf(access: Access): AuditActor {
  if (access.user !== undefined) return { kind: "user", email: access.user.email }; // an instance admin too
  if (access.caller === "admin") return { kind: "admin" };
  return { kind: "apiKey", name: null, readonly: access.caller.readonly };
}

/** Records a change made through the dashboard, after it succeeded. */
export function recordDashboardChange(
  ctx: Pick<DashboardContext, "deps">,
  access: Access,
  change: { projectId: string; action: AuditAction; target: string; at: Millis },
): Promise<void> {
  return recordChange(ctx.deps.audit, { ...change, actor: auditActorOf(access) });
}

/**
 * Records an event of an account in the instance's log: `who` is the user (their email; `id` null for an
 * email no user has, named "unknown email" as the actor) or the admin token; `how` says by what and from where.
 */
export function recordAccountEvent(
  ctx: Pick<DashboardContext, "deps">,
  action: AuditAction,
  who: { email: string; id: string | null } | "admin",
  how: string,
): Promise<void> {
  const actor: AuditActor =
    who === "admin" ? { kind: "admin" } : who.id === null ? { kind: "system", name: "unknown email" } : { kind: "user", email: who.email };
  return recordChange(ctx.deps.audit, {
    projectId: INSTANCE_LOG,
    actor,
    action,
    target: who === "admin" ? `admin token ${how}` : auditTarget.account(who, how),
    at: ctx.deps.clock.now(),
  });
}

/** Registers the audit log page: /projects/<id>/audit[?before=<cursor>]. */
export function auditPageRoutes(ctx: DashboardContext): void {
  const { route, requireAccess, projectFor, deps } = ctx;
  route("GET", "/projects/:project/audit", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    // the members' emails: users (readonly and up) and the admin token; of the keys only the read-write one,
    // never the read-only key, which is made to be shared with dashboards
    permit(access, "audit.view", { keys: true, refusal: "the read-only key does not read the audit log" });
    const query = unwrap(auditQueryOf(event.url.searchParams));
    const page = (await deps.audit?.page(project.id, query)) ?? { events: [], next: null };
    // a check's uuid is its ping URL: who may not see ping URLs reads its unique_key in its place
    const rows = seesPingUrls(access.viewer)
      ? page.events
      : page.events.map((row) => ({ ...row, target: row.target.replace(UUIDS, (uuid) => uniqueKeyOf(uuid.toLowerCase())) }));
    return htmlResponse(auditPage(access.viewer, { project, rows, next: page.next, first: query.before === null }));
  });
}
