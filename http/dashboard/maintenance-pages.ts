// A project's recurring maintenance windows on its settings page (CONTRACT "Alerting, second part"): the
// list, with whether each is on now and when it starts next, the add form and the delete confirmation.
// Only the admin token changes them, as only it mutes a project; other viewers see the list alone.
import { maintenanceEndAt, nextMaintenanceAt } from "../../engine/maintenance.ts";
import type { MaintenanceWindow, Millis, Project } from "../../engine/model.ts";
import { durationText } from "./format.ts";
import type { DurationUnit } from "./duration-field.ts";
import { durationInputs } from "./duration-field.ts";
import { timeHtml } from "./time-html.ts";
import { timeZoneSelect } from "./time-zones.ts";
import type { Html } from "./html.ts";
import { html } from "./html.ts";
import type { Viewer } from "./page-frame.ts";
import { button, csrfField, documentOf, projectNav } from "./page-frame.ts";

/** The add form's fields as typed (the duration stays text until the admin API's rules read it). */
export type MaintenanceFormValues = {
  readonly name: string;
  readonly schedule: string;
  readonly tz: string;
  readonly duration: string;
  readonly duration_unit: DurationUnit;
};

export const EMPTY_MAINTENANCE_FORM: MaintenanceFormValues = { name: "", schedule: "", tz: "UTC", duration: "1", duration_unit: "hours" };

/** The add form's state: what was typed, and the admin API's error with the field it is about. */
export type MaintenanceForm = { readonly values: MaintenanceFormValues; readonly error: string | null; readonly errorField: string | null };

/** The settings page's section: the windows, and for the admin token the add form and a Delete link each. */
export function maintenanceSection(viewer: Viewer, opts: { project: Project; at: Millis; form: MaintenanceForm }): Html {
  const { project, at, form } = opts;
  const windows = project.maintenance ?? [];
  const base = `/projects/${project.id}/maintenance`;
  const row = (window: MaintenanceWindow) => {
    const endAt = maintenanceEndAt([window], at);
    const nextAt = nextMaintenanceAt([window], at);
    return html`<tr data-window="${window.id}"><td>${window.name === "" ? "(unnamed)" : window.name}</td><td><code>${window.schedule}</code> (${window.tz})</td>
<td>${durationText(window.durationMs)}</td><td>${endAt === null ? "" : html`<span class="mark">on now, until ${timeHtml(endAt)}</span> `}${nextAt === null ? "never again" : html`next ${timeHtml(nextAt)}`}</td>
${viewer.admin ? html`<td><a class="button danger" href="${base}/${window.id}/delete">Delete</a></td>` : ""}</tr>`;
  };
  const v = form.values;
  const fieldError = (id: string) =>
    form.errorField === id && form.error !== null ? html`<p class="field-error" id="e-m-${id}" role="alert">${form.error}</p>` : "";
  const invalid = (id: string) => (form.errorField === id ? html` aria-invalid="true" aria-describedby="e-m-${id}"` : "");
  const field = (id: "name" | "schedule", label: string, placeholder: string) =>
    html`<label for="f-m-${id}">${label}</label><input id="f-m-${id}" name="${id}" value="${v[id]}" placeholder="${placeholder}"${invalid(id)}>${fieldError(id)}`;
  return html`<section class="maintenance"><h2>Recurring maintenance</h2>
<p>Each time a window's schedule fires, the project's notifications are muted for its duration; monitoring continues, and a check still down at the end is notified once.</p>
${
  windows.length === 0
    ? html`<p class="none">No recurring maintenance windows.</p>`
    : html`<table class="list maintenance-windows"><thead><tr><th scope="col">Name</th><th scope="col">Schedule</th><th scope="col">Duration</th><th scope="col">When</th>${viewer.admin ? html`<th scope="col"></th>` : ""}</tr></thead>
<tbody>${windows.map(row)}</tbody></table>`
}
${
  !viewer.admin
    ? ""
    : html`${form.error === null || form.errorField !== null ? "" : html`<p class="error" role="alert">${form.error}</p>`}
<form method="post" action="${base}" class="check-form maintenance-form">${csrfField(viewer)}
${field("name", "Window name", "Nightly backup")}
${field("schedule", "Cron or OnCalendar expression of its start", "0 2 * * *")}
<label for="f-m-tz">Time zone</label>${timeZoneSelect({ chosen: v.tz === "" ? "UTC" : v.tz, invalid: invalid("tz"), idPrefix: "f-m-" })}${fieldError("tz")}
${durationInputs({ id: "duration", idPrefix: "f-m-", label: "Duration (1 minute to 7 days)", amount: v.duration, unit: v.duration_unit, invalid: invalid("duration"), presets: false })}${fieldError("duration")}
<button type="submit">Add maintenance window</button></form>`
}
</section>`;
}

export function maintenanceDeletePage(viewer: Viewer, opts: { project: Project; window: MaintenanceWindow }): string {
  const { project, window } = opts;
  return documentOf({
    title: "Delete maintenance window",
    viewer,
    nav: projectNav(project, viewer),
    body: html`<h1>Delete the maintenance window “${window.name}”?</h1>
<p>Its schedule <code>${window.schedule}</code> (${window.tz}) no longer mutes the project; a window on now ends at once.</p>
<div class="controls">${button(viewer, `/projects/${project.id}/maintenance/${window.id}/delete`, "Delete for good", "danger")} <a class="button" href="/projects/${project.id}/settings">Cancel</a></div>`,
  });
}
