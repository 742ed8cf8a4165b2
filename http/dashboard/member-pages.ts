// A project's members page: each user holding a role in the project, the invitations not used yet, and
// for those who may change them (the admin token, managers below owner, owners) the forms that add or
// invite one, change a role, remove one and cancel an invitation; an invitation just made shows its link once.
import type { Project } from "../../engine/model.ts";
import type { Role } from "../../engine/roles.ts";
import type { PendingInvite } from "../../host/accounts.ts";
import type { InvitationMail } from "../invitation-mail.ts";
import { exactText } from "./format.ts";
import { html } from "./html.ts";
import type { Viewer } from "./page-frame.ts";
import { csrfField, documentOf, projectNav } from "./page-frame.ts";

export type MemberRow = { readonly id: string; readonly email: string; readonly role: Role };
/** An invitation just made, shown once to the one who made it. */
/** An invitation just made; `setsPassword` false: the email's account exists but is not set up, and the link gives the role once it signs in. */
export type Invited = {
  readonly email: string;
  readonly role: Role;
  readonly link: string;
  readonly mail: InvitationMail;
  readonly setsPassword: boolean;
};

const MAIL_WORDS: Record<InvitationMail, string> = {
  sent: "It was sent to that email; you may also give the link yourself.",
  failed: "The email could not be sent: give the link yourself.",
  off: "Email is off (SMTP_URL is not set): give the link yourself.",
};

/** The members page; `assignable`: the roles the viewer may give (and take), empty for none. */
export function membersPage(
  viewer: Viewer,
  opts: {
    project: Project;
    members: readonly MemberRow[];
    invites: readonly PendingInvite[];
    invited: Invited | null;
    assignable: readonly Role[];
    error: string | null;
    /** What the last action did ("Invitation cancelled: ..."); null on a plain visit. */
    notice?: string | null;
  },
): string {
  const base = `/projects/${opts.project.id}/members`;
  const options = (selected: Role | null) =>
    opts.assignable.map((role) => html`<option value="${role}"${role === selected ? html` selected` : ""}>${role}</option>`);
  const rows = opts.members.map((m) => {
    const mayChange = opts.assignable.includes(m.role);
    return html`<tr><td>${m.email}</td><td>${m.role}</td><td>${
      !mayChange
        ? ""
        : html`<form method="post" action="${base}" class="inline">${csrfField(viewer)}
<input type="hidden" name="email" value="${m.email}"><label class="visually-hidden" for="role-${m.id}">Role of ${m.email}</label>
<select id="role-${m.id}" name="role">${options(m.role)}</select> <button type="submit" aria-label="Save the role of ${m.email}">Save role</button></form>
<form method="post" action="${base}/${m.id}/remove" class="inline">${csrfField(viewer)}<button type="submit" class="danger" aria-label="Remove ${m.email}">Remove</button></form>`
    }</td></tr>`;
  });
  return documentOf({
    title: `Members · ${opts.project.name}`,
    viewer,
    nav: projectNav(opts.project, viewer),
    body: html`<h1>Members</h1>
${opts.error === null ? "" : html`<p class="error" role="alert">${opts.error}</p>`}
${opts.notice == null ? "" : html`<p class="notice" role="status">${opts.notice}</p>`}
${
  opts.invited === null
    ? ""
    : html`<div class="notice" role="status"><p>Invitation for ${opts.invited.email} (${opts.invited.role}): ${
        opts.invited.setsPassword
          ? "this link sets a password once, within 7 days."
          : "this email was invited by someone else and has not set up its account yet: this link gives the role, within 7 days, once that account signs in."
      } ${MAIL_WORDS[opts.invited.mail]}</p>
<p><input class="invite-link" aria-label="Invitation link" readonly value="${opts.invited.link}"></p></div>`
}
${opts.members.length === 0 ? html`<p class="none">No members.</p>` : html`<table class="list members"><thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col"></th></tr></thead><tbody>${rows}</tbody></table>`}
${
  opts.assignable.length === 0
    ? ""
    : html`<h2>Add a member</h2>
<form method="post" action="${base}" class="row">${csrfField(viewer)}
<label for="member-email">Email</label><input id="member-email" name="email" type="email" required>
<label for="member-role">Role</label><select id="member-role" name="role">${options(null)}</select>
<button type="submit">Add member</button></form>
<p class="hint">An email no user has gets an invitation: a link, shown here once (and sent to the email when the server can send mail), that sets a password within 7 days and then gives the role.</p>`
}
${
  opts.invites.length === 0
    ? ""
    : html`<h2>Invitations not used yet</h2>
<table class="list invites"><thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Expires</th><th scope="col"></th></tr></thead><tbody>
${opts.invites.map(
  (i) =>
    html`<tr><td>${i.email}</td><td>${i.role}</td><td>${exactText(i.expiresAt)}</td><td>${
      opts.assignable.includes(i.role)
        ? html`<form method="post" action="/projects/${opts.project.id}/invitations/${i.userId}/cancel" class="inline">${csrfField(viewer)}<button type="submit" class="danger" aria-label="Cancel the invitation of ${i.email}">Cancel</button></form>`
        : ""
    }</td></tr>`,
)}</tbody></table>`
}`,
  });
}
