// The settings page's recurring maintenance windows: add and delete (with a confirmation page), through the
// admin API's rules and texts (http/admin-input.ts) and the same pool calls. Only the admin token may.
import { readonlyWho } from "./page-frame.ts";
import type { Project } from "../../engine/model.ts";
import { LIMITS, SECOND } from "../../engine/model.ts";
import { durationText } from "./format.ts";
import { secondsOf, unitOf } from "./duration-field.ts";
import { TIME_ZONE_RULE } from "./time-zones.ts";
import { httpError, reasonOf, unwrap } from "../errors.ts";
import { maintenanceInputOf } from "../admin-input.ts";
import { recordDashboardChange } from "./audit-routes.ts";
import { auditTarget } from "../../host/audit.ts";
import type { Access, DashboardContext } from "./context.ts";
import { permit } from "./permits.ts";
import type { MaintenanceForm } from "./maintenance-pages.ts";
import { maintenanceDeletePage } from "./maintenance-pages.ts";
import { htmlResponse, param, redirect } from "./responses.ts";

type SettingsHtml = (access: Access, project: Project, opts: { mute: null; maintenance?: MaintenanceForm }) => Promise<string>;

/** A window's duration rule as the form types it (a number and a unit). */
const DURATION_RULE = `The duration must be a number between ${durationText(LIMITS.maintenanceMinMs)} and ${durationText(LIMITS.maintenanceMaxMs)} (${LIMITS.maintenanceMinMs / SECOND} to ${LIMITS.maintenanceMaxMs / SECOND} seconds).`;

/** Registers the maintenance windows' actions; `settingsHtml` renders the settings page (with a rejected form). */
export function maintenanceRoutes(ctx: DashboardContext, settingsHtml: SettingsHtml): void {
  const { deps, route, requireAccess, writeForm, projectFor } = ctx;
  const { pool, clock } = deps;
  const onlyAdmin = (access: Access) => {
    permit(access, "project.change", { keys: false, refusal: "only the admin token changes maintenance windows" });
  };

  route("POST", "/projects/:project/maintenance", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    const form = await writeForm(event, access); // refuses read-only viewers and stale forms
    onlyAdmin(access);
    const values = {
      name: form.get("name") ?? "",
      schedule: form.get("schedule") ?? "",
      tz: (form.get("tz") ?? "").trim(),
      duration: (form.get("duration") ?? "").trim(),
      duration_unit: unitOf(form.get("duration_unit") ?? ""),
    };
    const duration = secondsOf(values.duration, values.duration_unit); // not a number: the API says so
    const input = maintenanceInputOf({ name: values.name, schedule: values.schedule, tz: values.tz === "" ? "UTC" : values.tz, duration });
    if (!input.ok) {
      const errorField = input.failure.code === "invalid" ? input.failure.field : null;
      // the duration's rule in the form's words (its units), not the API's seconds; the zone's as the check form says it
      const error = errorField === "duration" ? DURATION_RULE : errorField === "tz" ? TIME_ZONE_RULE : reasonOf(input.failure);
      return htmlResponse(await settingsHtml(access, project, { mute: null, maintenance: { values, error, errorField } }), 400);
    }
    const at = clock.now();
    const window = unwrap(await pool.addMaintenance(project.id, input.value, at));
    await recordDashboardChange(ctx, access, {
      projectId: project.id,
      action: "maintenance.added",
      target: auditTarget.maintenance(window),
      at,
    });
    return redirect(`/projects/${project.id}/settings`);
  });

  const windowFor = (project: Project, id: string) => {
    const current = pool.listProjects().find((p) => p.id === project.id) ?? project;
    const window = current.maintenance?.find((w) => w.id === id);
    if (window === undefined) throw httpError(404, "maintenance window not found");
    return { project: current, window };
  };

  route("GET", "/projects/:project/maintenance/:window/delete", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    if (access.viewer.readonly) throw httpError(403, `${readonlyWho(access.viewer)}: changes are not allowed`);
    onlyAdmin(access);
    return htmlResponse(maintenanceDeletePage(access.viewer, windowFor(project, param(event, "window"))));
  });

  route("POST", "/projects/:project/maintenance/:window/delete", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    await writeForm(event, access);
    onlyAdmin(access);
    const { window } = windowFor(project, param(event, "window"));
    const at = clock.now();
    unwrap(await pool.removeMaintenance(project.id, window.id, at));
    await recordDashboardChange(ctx, access, {
      projectId: project.id,
      action: "maintenance.removed",
      target: auditTarget.maintenance(window),
      at,
    });
    return redirect(`/projects/${project.id}/settings`);
  });
}
