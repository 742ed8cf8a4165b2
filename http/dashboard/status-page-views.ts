// A project's public status pages in the dashboard: the list with a link to each public page, the add
// form (a checkbox per check) and the delete confirmation. Only the admin token changes them, as only it
// may through the admin API; other viewers see the list alone.
import type { Check, Project, StatusPage } from "../../engine/model.ts";
import type { Html } from "./html.ts";
import { html } from "./html.ts";
import type { Viewer } from "./page-frame.ts";
import { button, csrfField, documentOf, projectNav } from "./page-frame.ts";

/** The add form as typed: what to show again with the admin API's error when it is refused. */
export type StatusPageForm = {
  readonly slug: string;
  readonly title: string;
  readonly checks: readonly string[];
  readonly error: string | null;
};

export const EMPTY_STATUS_PAGE_FORM: StatusPageForm = { slug: "", title: "", checks: [], error: null };

function addForm(viewer: Viewer, project: Project, checks: readonly Check[], form: StatusPageForm): Html {
  if (checks.length === 0) return html`<p class="none">Add a check first: a status page shows chosen checks of the project.</p>`;
  const box = (check: Check) =>
    html`<li><label><input type="checkbox" name="check" value="${check.uuid}"${form.checks.includes(check.uuid) ? " checked" : ""}> ${check.name === "" ? "(unnamed)" : check.name}</label></li>`;
  return html`<h2>New status page</h2>
${form.error === null ? "" : html`<p class="error" role="alert">${form.error}</p>`}
<form method="post" action="/projects/${project.id}/status-pages" class="check-form status-page-form">${csrfField(viewer)}
<label for="f-sp-title">Title</label><input id="f-sp-title" name="title" value="${form.title}" placeholder="Acme services" required>
<label for="f-sp-slug">Address: /status/ followed by (lower-case letters, digits and '-')</label>
<input id="f-sp-slug" name="slug" value="${form.slug}" placeholder="acme" required pattern="[a-z0-9][a-z0-9\\-]{0,63}">
<fieldset><legend>Checks shown (their names and status only: no ping URL, key or body)</legend><ul class="choices">${checks.map(box)}</ul></fieldset>
<button type="submit">Create status page</button></form>`;
}

/** `canChange`: the session may create and delete status pages (the admin token, a manager or an owner). */
export function statusPagesPage(
  viewer: Viewer,
  opts: { project: Project; checks: readonly Check[]; form: StatusPageForm; canChange: boolean },
): string {
  const { project, checks, form, canChange } = opts;
  const pages = project.statusPages ?? [];
  const row = (page: StatusPage) => html`<tr data-slug="${page.slug}"><td>${page.title}</td>
<td><a href="/status/${page.slug}">/status/${page.slug}</a></td><td>${page.checks.length}</td>
${canChange ? html`<td><a class="button danger" href="/projects/${project.id}/status-pages/${page.slug}/delete" aria-label="Delete ${page.title}">Delete</a></td>` : ""}</tr>`;
  return documentOf({
    title: `Status pages · ${project.name}`,
    viewer,
    nav: projectNav(project, viewer),
    body: html`<h1>Status pages</h1>
<p>A status page shows chosen checks of this project to anyone with its address, without signing in: each check's name, status and uptime over 90 days, and the incidents.</p>
${
  pages.length === 0
    ? html`<p class="none">No status pages yet.</p>`
    : html`<table class="list status-pages"><thead><tr><th scope="col">Title</th><th scope="col">Public page</th><th scope="col">Checks</th>${canChange ? html`<th scope="col"></th>` : ""}</tr></thead>
<tbody>${pages.map(row)}</tbody></table>`
}
${canChange ? addForm(viewer, project, checks, form) : html`<p>Only the admin token, and a project's managers and owners, create and delete status pages.</p>`}`,
  });
}

export function statusPageDeletePage(viewer: Viewer, opts: { project: Project; page: StatusPage }): string {
  const { project, page } = opts;
  return documentOf({
    title: "Delete status page",
    viewer,
    nav: projectNav(project, viewer),
    body: html`<h1>Delete the status page “${page.title}”?</h1>
<p>Its address /status/${page.slug} stops answering at once; its checks stay as they are.</p>
<div class="controls">${button(viewer, `/projects/${project.id}/status-pages/${page.slug}/delete`, "Delete for good", "danger")} <a class="button" href="/projects/${project.id}/status-pages">Cancel</a></div>`,
  });
}
