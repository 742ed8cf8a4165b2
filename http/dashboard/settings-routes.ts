// A project's settings page and what it changes: the project-wide mute, its maintenance windows
// (maintenance-routes.ts) and escalation policy (project-escalation.ts); the project's downtime as CSV.
import { HTTPResponse } from "h3";
import type { Project } from "../../engine/model.ts";
import { auditTarget } from "../../host/audit.ts";
import { reasonOf, unwrap } from "../errors.ts";
import { projectMuteOf } from "../admin-input.ts";
import { presentBadges } from "../present.ts";
import { downtimeCsv } from "../downtime-report.ts";
import { downtimeQueryOf, projectDowntimeRows } from "../downtime-export.ts";
import { recordDashboardChange } from "./audit-routes.ts";
import type { Access, DashboardContext } from "./context.ts";
import type { MaintenanceForm } from "./maintenance-pages.ts";
import { EMPTY_MAINTENANCE_FORM, maintenanceSection } from "./maintenance-pages.ts";
import { maintenanceRoutes } from "./maintenance-routes.ts";
import type { ProjectEscalationForm } from "./project-escalation.ts";
import { mayChangeEscalation, projectEscalationForm, projectEscalationRoutes, projectEscalationSection } from "./project-escalation.ts";
import { settingsPage } from "./settings-page.ts";
import { manageOffer, permit } from "./permits.ts";
import { htmlResponse, param, redirect, SECURITY_HEADERS } from "./responses.ts";

/** Registers the settings page, the mute, the maintenance windows' and escalation policy's routes, and the downtime CSV. */
export function settingsRoutes(ctx: DashboardContext): void {
  const { route, requireAccess, writeForm, projectFor } = ctx;
  const { pool, clock, config } = ctx.deps;

  /** The settings page with the project as the directory has it now (its maintenance windows just changed, maybe). */
  const settingsHtml = async (
    access: Access,
    stale: Project,
    opts: {
      mute: { error: string | null; until: string } | null;
      maintenance?: MaintenanceForm;
      escalation?: ProjectEscalationForm;
      notice?: string | null;
    },
  ): Promise<string> => {
    const project = pool.listProjects().find((p) => p.id === stale.id) ?? stale;
    const checks = await pool.listChecks(project.id, { tags: [] });
    const at = clock.now();
    const form = opts.maintenance ?? { values: EMPTY_MAINTENANCE_FORM, error: null, errorField: null };
    const maintenance = maintenanceSection(access.viewer, { project, at, form });
    const channels = access.viewer.readonly ? [] : await pool.listChannels(project.id);
    const escalation = projectEscalationSection(access.viewer, {
      project,
      channels,
      form: opts.escalation ?? projectEscalationForm(project),
      editable: mayChangeEscalation(access),
    });
    return settingsPage(access.viewer, {
      project,
      badges: presentBadges(project, checks, config).badges,
      at,
      mute: opts.mute,
      maintenance,
      escalation,
      notice: opts.notice,
      manage: manageOffer(access),
    });
  };

  route("GET", "/projects/:project/settings", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const done = event.url.searchParams.get("done");
    const notice = done === "mute" ? "Maintenance mute saved." : done === "escalation" ? "Escalation policy saved." : null;
    return htmlResponse(await settingsHtml(access, project, { mute: null, notice }));
  });

  // the project's downtime per check and period as CSV: the API's export (http/downtime-export.ts)
  route("GET", "/projects/:project/downtime.csv", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const now = clock.now();
    const query = unwrap(downtimeQueryOf(event.url.searchParams, now));
    const rows = await projectDowntimeRows(pool, project, query, now, access.viewer.readonly);
    return new HTTPResponse(downtimeCsv(rows, access.viewer.readonly ? "unique_key" : "uuid"), {
      status: 200,
      headers: {
        ...SECURITY_HEADERS,
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="downtime-${query.unit}-${query.periods[0]?.label ?? "none"}.csv"`,
      },
    });
  });

  // the project-wide mute (a maintenance window): the admin API's rules and texts
  route("POST", "/projects/:project/mute", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const form = await writeForm(event, access);
    permit(access, "project.change", { keys: false, refusal: "only the admin token mutes a project" });
    const until = (form.get("until") ?? "").trim();
    const untilAt = projectMuteOf({ until: until === "" ? null : until }); // an emptied field unmutes
    if (!untilAt.ok) {
      return htmlResponse(await settingsHtml(access, project, { mute: { error: reasonOf(untilAt.failure), until } }), 400);
    }
    const at = clock.now();
    unwrap(await pool.muteProject(project.id, untilAt.value, at));
    await recordDashboardChange({ deps: ctx.deps }, access, {
      projectId: project.id,
      action: untilAt.value === null ? "project.unmuted" : "project.muted",
      target: auditTarget.project(project),
      at,
    });
    return redirect(`/projects/${project.id}/settings?done=mute`);
  });

  maintenanceRoutes(ctx, settingsHtml);
  projectEscalationRoutes(ctx, settingsHtml);
}
