// A project's members page: each user holding a role in the project, and for those who may change
// them (the admin token, managers below owner, owners) the forms that add one, change a role and remove one.
import type { Project } from "../../engine/model.ts";
import type { Role } from "../../engine/roles.ts";
import { html } from "./html.ts";
import type { Viewer } from "./pages.ts";
import { csrfField, documentOf, projectNav } from "./pages.ts";

export type MemberRow = { readonly id: string; readonly email: string; readonly role: Role };

/** The members page; `assignable`: the roles the viewer may give (and take), empty for none. */
export function membersPage(viewer: Viewer, opts: { project: Project; members: readonly MemberRow[]; assignable: readonly Role[]; error: string | null }): string {
  const base = `/projects/${opts.project.id}/members`;
  const options = (selected: Role | null) => opts.assignable.map((role) => html`<option value="${role}"${role === selected ? html` selected` : ""}>${role}</option>`);
  const rows = opts.members.map((m) => {
    const mayChange = opts.assignable.includes(m.role);
    return html`<tr><td>${m.email}</td><td>${m.role}</td><td>${!mayChange ? "" : html`<form method="post" action="${base}" class="inline">${csrfField(viewer)}
<input type="hidden" name="email" value="${m.email}"><label class="visually-hidden" for="role-${m.id}">Role of ${m.email}</label>
<select id="role-${m.id}" name="role">${options(m.role)}</select> <button type="submit" aria-label="Save the role of ${m.email}">Save role</button></form>
<form method="post" action="${base}/${m.id}/remove" class="inline">${csrfField(viewer)}<button type="submit" class="danger" aria-label="Remove ${m.email}">Remove</button></form>`}</td></tr>`;
  });
  return documentOf({
    title: `Members · ${opts.project.name}`,
    viewer,
    nav: projectNav(opts.project, viewer),
    body: html`<h1>Members</h1>
${opts.error === null ? "" : html`<p class="error" role="alert">${opts.error}</p>`}
${opts.members.length === 0 ? html`<p class="none">No members.</p>` : html`<table class="list members"><thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col"></th></tr></thead><tbody>${rows}</tbody></table>`}
${opts.assignable.length === 0 ? "" : html`<h2>Add a member</h2>
<form method="post" action="${base}" class="row">${csrfField(viewer)}
<label for="member-email">Email</label><input id="member-email" name="email" type="email" required>
<label for="member-role">Role</label><select id="member-role" name="role">${options(null)}</select>
<button type="submit">Add member</button></form>
<p class="hint">The user must exist: the admin API makes users and their invitation links.</p>`}`,
  });
}
