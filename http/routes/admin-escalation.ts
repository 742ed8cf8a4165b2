// /admin/v1/projects/<id>/escalation (CONTRACT "Alerting, third part"): the escalation policy of the
// project's checks that have none of their own. Every request needs the admin bearer token.
import type { H3 } from "h3";
import type { AppDeps } from "../deps.ts";
import { authorizeAdmin } from "../auth.ts";
import { endpoint, json } from "../endpoint.ts";
import { jsonBody, projectOfUrl } from "./admin-params.ts";
import type { ErrorReporter } from "../errors.ts";
import { httpError, unwrap } from "../errors.ts";
import { presentEscalation } from "../present.ts";
import { escalationOf } from "../alerting-input.ts";
import { auditTarget, recordChange } from "../../host/audit.ts";

export function adminEscalationRoutes(app: H3, deps: AppDeps, opts: { report: ErrorReporter }): void {
  const { pool, clock, config } = deps;
  endpoint(
    app,
    "/admin/v1/projects/:id/escalation",
    {
      GET: async (event) => {
        authorizeAdmin(event.req.headers, config.adminToken);
        return json({ escalation: presentEscalation(projectOfUrl(deps, event).escalation ?? [], false) });
      },
      PUT: async (event) => {
        authorizeAdmin(event.req.headers, config.adminToken);
        const project = projectOfUrl(deps, event);
        const body = await jsonBody(event);
        if (!Object.hasOwn(body, "escalation")) throw httpError(400, "escalation: a list of steps ([] = none) is required");
        const steps = unwrap(escalationOf(body.escalation));
        const at = clock.now();
        const changed = unwrap(await pool.changeProject(project.id, { kind: "setEscalation", steps: steps ?? [] }, at));
        await recordChange(deps.audit, {
          projectId: project.id,
          actor: { kind: "admin" },
          action: "project.escalation_set",
          target: auditTarget.project(changed),
          at,
        });
        return json({ escalation: presentEscalation(changed.escalation ?? [], false) });
      },
    },
    { report: opts.report, cors: false },
  );
}
