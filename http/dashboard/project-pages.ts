// A project's management page in the dashboard: rename, the API keys and the ping key (each key created
// anew or revoked), and deleting the project behind a confirmation page. The admin token changes all of
// it; a manager the keys, an owner everything (project-routes.ts asks engine/roles.ts).
import type { Project } from "../../engine/model.ts";
import type { Html } from "./html.ts";
import { html } from "./html.ts";
import type { Viewer } from "./page-frame.ts";
import { button, csrfField, documentOf, projectNav } from "./page-frame.ts";
import { limitFields } from "./pages.ts";
import type { ManageOffer } from "./permits.ts";

/** The rename form as typed, with the admin API's error when it was refused. */
export type RenameForm = { readonly name: string; readonly error: string | null };

function keyRow(viewer: Viewer, project: Project, label: string, kind: "read-write" | "read-only", value: string): Html {
  const action = `/projects/${project.id}/keys/${kind}`;
  return html`<tr><th scope="row">${label}</th>
<td>${value === "" ? html`<span class="none">None (revoked)</span>` : html`<details><summary>Show</summary><div class="copy"><code>${value}</code><button type="button" data-copy="${value}" aria-label="Copy the ${label}">Copy</button></div></details>`}</td>
<td>${button(viewer, action, value === "" ? `Create ${label}` : `Create a new ${label}`)}${value === "" ? "" : html` ${button(viewer, `${action}/revoke`, `Revoke ${label}`, "danger")}`}</td></tr>`;
}

/** The limits form as typed, with the admin API's error when it was refused. */
export type LimitsForm = {
  readonly checkLimit: string;
  readonly pingLogLimit: string;
  readonly pingBodyLimit: string;
  readonly error: string | null;
};

export function projectManagePage(
  viewer: Viewer,
  opts: { project: Project; rename: RenameForm; done: string | null; may: ManageOffer; limits?: LimitsForm },
): string {
  const { project, rename, may } = opts;
  const limits = opts.limits ?? {
    checkLimit: String(project.checkLimit),
    pingLogLimit: String(project.pingLogLimit),
    pingBodyLimit: String(project.pingBodyLimit),
    error: null,
  };
  return documentOf({
    title: `Manage · ${project.name}`,
    viewer,
    nav: projectNav(project, viewer),
    body: html`<h1>Manage the project</h1>
${opts.done === null ? "" : html`<p class="notice" role="status">${opts.done}</p>`}
${
  !may.project
    ? ""
    : html`<h2>Name</h2>
${rename.error === null ? "" : html`<p class="error" role="alert">${rename.error}</p>`}
<form method="post" action="/projects/${project.id}/rename" class="check-form">${csrfField(viewer)}
<label for="f-project-name">Project name</label><input id="f-project-name" name="name" value="${rename.name}" required maxlength="100">
<button type="submit">Rename project</button></form>`
}
<h2>Limits</h2>
${
  !may.limits
    ? html`<p>At most ${project.checkLimit} checks, ${project.pingLogLimit} pings kept per check, ping bodies up to ${project.pingBodyLimit} bytes. An instance admin changes these.</p>`
    : html`
${limits.error === null ? "" : html`<p class="error" role="alert">${limits.error}</p>`}
<form method="post" action="/projects/${project.id}/limits" class="check-form">${csrfField(viewer)}
${limitFields(limits, "f")}
<button type="submit">Save limits</button></form>`
}
<h2>Keys</h2>
<p>A key created anew replaces the old one, which stops working at once; a revoked key works no more until one is created.</p>
<table class="list keys"><tbody>
${keyRow(viewer, project, "read-write API key", "read-write", project.apiKey)}
${keyRow(viewer, project, "read-only API key", "read-only", project.apiKeyReadonly)}
<tr><th scope="row">Ping key</th><td><div class="copy"><code>${project.pingKey}</code><button type="button" data-copy="${project.pingKey}" aria-label="Copy the ping key">Copy</button></div></td><td></td></tr>
</tbody></table>
${
  !may.project
    ? ""
    : html`<h2>Delete</h2>
<p>Deleting the project deletes its checks with their pings, its integrations, status pages and keys.</p>
<a class="button danger" href="/projects/${project.id}/delete">Delete this project…</a>`
}`,
  });
}

export function projectDeletePage(viewer: Viewer, opts: { project: Project; checks: number }): string {
  const { project } = opts;
  return documentOf({
    title: "Delete project",
    viewer,
    nav: projectNav(project, viewer),
    body: html`<h1>Delete the project “${project.name}”?</h1>
<p>Its ${opts.checks} ${opts.checks === 1 ? "check" : "checks"} with their pings, its integrations, status pages and keys go for good; pings to its checks are answered "not found".</p>
<div class="controls">${button(viewer, `/projects/${project.id}/delete`, "Delete the project for good", "danger")} <a class="button" href="/projects/${project.id}/manage">Cancel</a></div>`,
  });
}
