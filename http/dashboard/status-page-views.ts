// A project's public status pages in the dashboard: the list with a link to each public page, the add and
// edit form (title, description, logo, a checkbox and a group per check) and the delete confirmation. The
// admin token and a project's managers and owners change them; other viewers see the list alone.
import type { Check, Project, StatusPage } from "../../engine/model.ts";
import type { Html } from "./html.ts";
import { html } from "./html.ts";
import type { Viewer } from "./page-frame.ts";
import { button, csrfField, documentOf, projectNav } from "./page-frame.ts";

/** The add form as typed: what to show again with the admin API's error when it is refused. */
export type StatusPageForm = {
  readonly slug: string;
  readonly title: string;
  readonly description: string;
  readonly logo: string;
  readonly checks: readonly string[];
  /** The group typed beside each check (uuid → heading); none or "": ungrouped. */
  readonly groups: Readonly<Record<string, string>>;
  readonly error: string | null;
};

export const EMPTY_STATUS_PAGE_FORM: StatusPageForm = {
  slug: "",
  title: "",
  description: "",
  logo: "",
  checks: [],
  groups: {},
  error: null,
};

/** A page's form as its stored values fill it (the edit form's first showing). */
export function formOfPage(page: StatusPage): StatusPageForm {
  const groups = Object.fromEntries((page.groups ?? []).flatMap((g) => g.checks.map((uuid) => [uuid, g.name])));
  const { slug, title, checks } = page;
  return { slug, title, description: page.description ?? "", logo: page.logo ?? "", checks, groups, error: null };
}

/** The add form, or with `editing` the form of that page (its address stays: no slug field). */
function pageForm(viewer: Viewer, project: Project, checks: readonly Check[], form: StatusPageForm, editing: StatusPage | null): Html {
  if (checks.length === 0) return html`<p class="none">Add a check first: a status page shows chosen checks of the project.</p>`;
  const nameOf = (check: Check) => (check.name === "" ? "(unnamed)" : check.name);
  const box = (check: Check) =>
    html`<li><label><input type="checkbox" name="check" value="${check.uuid}"${form.checks.includes(check.uuid) ? " checked" : ""}> ${nameOf(check)}</label>
<input class="group" name="group-${check.uuid}" value="${form.groups[check.uuid] ?? ""}" list="sp-group-names" maxlength="100" placeholder="group (optional)" aria-label="Group of ${nameOf(check)}"></li>`;
  const names = [...new Set(Object.values(form.groups).filter((name) => name.trim() !== ""))];
  const action = editing === null ? `/projects/${project.id}/status-pages` : `/projects/${project.id}/status-pages/${editing.slug}/edit`;
  return html`${editing === null ? html`<h2>New status page</h2>` : ""}
${form.error === null ? "" : html`<p class="error" role="alert">${form.error}</p>`}
<form method="post" action="${action}" class="check-form status-page-form">${csrfField(viewer)}
<label for="f-sp-title">Title</label><input id="f-sp-title" name="title" value="${form.title}" placeholder="Acme services" required>
<label for="f-sp-description">Description (optional: a few lines shown first, as plain text)</label>
<textarea id="f-sp-description" name="description" rows="3" maxlength="2000">${form.description}</textarea>
<label for="f-sp-logo">Logo (optional: the https address of an image shown at the top; visitors' browsers load it from there)</label>
<input id="f-sp-logo" name="logo" type="url" value="${form.logo}" placeholder="https://example.com/logo.png" maxlength="500" pattern="https://.+">
${
  editing === null
    ? html`<label for="f-sp-slug">Address: /status/ followed by (lower-case letters, digits and '-')</label>
<input id="f-sp-slug" name="slug" value="${form.slug}" placeholder="acme" required pattern="[a-z0-9][a-z0-9\\-]{0,63}">`
    : html`<p>Address: <a href="/status/${editing.slug}">/status/${editing.slug}</a> (it stays; to move the page, add one and delete this one)</p>`
}
<fieldset><legend>Checks shown (their names and status only: no ping URL, key or body)</legend>
<p class="hint">A group's name beside checks shows them under that heading, after the ungrouped ones.</p>
<ul class="choices">${checks.map(box)}</ul><datalist id="sp-group-names">${names.map((name) => html`<option value="${name}">`)}</datalist></fieldset>
<button type="submit">${editing === null ? "Create status page" : "Save status page"}</button>${
    editing === null ? "" : html` <a class="button" href="/projects/${project.id}/status-pages">Cancel</a>`
  }</form>`;
}

/** The edit form of one page. */
export function statusPageEditPage(
  viewer: Viewer,
  opts: { project: Project; page: StatusPage; checks: readonly Check[]; form: StatusPageForm },
): string {
  const { project, page } = opts;
  return documentOf({
    title: `Edit status page · ${project.name}`,
    viewer,
    nav: projectNav(project, viewer),
    body: html`<h1>Edit the status page “${page.title}”</h1>${pageForm(viewer, project, opts.checks, opts.form, page)}`,
  });
}

/** `canChange`: the session may create and delete status pages (the admin token, a manager or an owner). */
export function statusPagesPage(
  viewer: Viewer,
  opts: { project: Project; checks: readonly Check[]; form: StatusPageForm; canChange: boolean; notice?: string | null },
): string {
  const { project, checks, form, canChange } = opts;
  const pages = project.statusPages ?? [];
  const row = (page: StatusPage) => html`<tr data-slug="${page.slug}"><td>${page.title}</td>
<td><a href="/status/${page.slug}">/status/${page.slug}</a></td><td>${page.checks.length}</td>
${canChange ? html`<td><a class="button" href="/projects/${project.id}/status-pages/${page.slug}/edit" aria-label="Edit ${page.title}">Edit</a> <a class="button danger" href="/projects/${project.id}/status-pages/${page.slug}/delete" aria-label="Delete ${page.title}">Delete</a></td>` : ""}</tr>`;
  return documentOf({
    title: `Status pages · ${project.name}`,
    viewer,
    nav: projectNav(project, viewer),
    body: html`${opts.notice == null ? "" : html`<p class="notice" role="status">${opts.notice}</p>`}<h1>Status pages</h1>
<p>A status page shows chosen checks of this project to anyone with its address, without signing in: each check's name, status and uptime over 90 days, and the incidents.</p>
${
  pages.length === 0
    ? html`<p class="none">No status pages yet.</p>`
    : html`<table class="list status-pages"><thead><tr><th scope="col">Title</th><th scope="col">Public page</th><th scope="col">Checks</th>${canChange ? html`<th scope="col"></th>` : ""}</tr></thead>
<tbody>${pages.map(row)}</tbody></table>`
}
${canChange ? pageForm(viewer, project, checks, form, null) : html`<p>Only the admin token, and a project's managers and owners, create, edit and delete status pages.</p>`}`,
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
