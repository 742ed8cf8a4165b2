// The instance's users in the dashboard (/users), for the admin token and instance admins alone: every
// user, adding one by an invitation link (as an instance admin or not), making one an instance admin or
// taking it away, removing one. The same accounts calls and audit records as the admin API's /admin/v1/users.
import type { Accounts, User } from "../../host/accounts.ts";
import { systemClock } from "../../host/clock.ts";
import { auditTarget, INSTANCE_LOG } from "../../host/audit.ts";
import { httpError, reasonOf } from "../errors.ts";
import { mailInvitation } from "../invitation-mail.ts";
import type { InvitationMail } from "../invitation-mail.ts";
import { recordDashboardChange } from "./audit-routes.ts";
import type { Access, DashboardContext } from "./context.ts";
import { html } from "./html.ts";
import type { Viewer } from "./page-frame.ts";
import { csrfField, documentOf } from "./page-frame.ts";
import { htmlResponse, param, redirect } from "./responses.ts";

type Invited = { readonly email: string; readonly link: string; readonly mail: InvitationMail };

/** Registers the users page and its forms. */
export function userAdminRoutes(ctx: DashboardContext, accounts: Accounts): void {
  const { route, requireAccess, writeForm } = ctx;
  const { config, sendUserMail } = ctx.deps;
  const adminOnly = (access: Access): void => {
    if (access.caller !== "admin") throw httpError(403, "only an instance admin (or the admin token) manages users");
  };
  const page = (access: Access, error: string | null, invited: Invited | null = null) =>
    usersPage(access.viewer, {
      users: accounts.listUsers(),
      self: access.user?.id ?? null,
      error,
      invited,
      projectsOf: (id) => accounts.membershipsOf(id).length,
    });
  const userOf = (id: string): User => {
    const user = accounts.userById(id);
    if (user === null) throw httpError(404, "user not found");
    return user;
  };

  route("GET", "/users", async (event) => {
    const access = requireAccess(event);
    adminOnly(access);
    return htmlResponse(page(access, null));
  });

  route("POST", "/users", async (event) => {
    const access = requireAccess(event);
    adminOnly(access);
    const form = await writeForm(event, access);
    const email = (form.get("email") ?? "").trim();
    const admin = form.get("admin") === "1";
    const made = await accounts.createUser({ email, admin }, systemClock.now()); // real time: an invitation lasts 7 real days
    if (!made.ok) return htmlResponse(page(access, `The user was not added: ${reasonOf(made.failure)}.`), 400);
    const { user, inviteToken } = made.value;
    await recordDashboardChange(ctx, access, {
      projectId: INSTANCE_LOG,
      action: "user.created",
      target: auditTarget.account(user, `invited${admin ? " as an instance admin" : ""}`),
      at: ctx.deps.clock.now(),
    });
    const link = `${config.siteRoot}/invite/${inviteToken ?? ""}`;
    const mail = await mailInvitation(sendUserMail, { to: user.email, link, role: admin ? "as an instance admin" : null });
    return htmlResponse(page(access, null, { email: user.email, link, mail }));
  });

  route("POST", "/users/:user/admin", async (event) => {
    const access = requireAccess(event);
    adminOnly(access);
    const form = await writeForm(event, access);
    const user = userOf(param(event, "user"));
    const admin = form.get("admin") === "1";
    if (!admin && user.id === access.user?.id)
      return htmlResponse(page(access, "You cannot take your own instance admin away: another admin (or the admin token) can."), 400);
    await accounts.setAdmin(user.id, admin);
    if (admin !== user.admin) {
      await recordDashboardChange(ctx, access, {
        projectId: INSTANCE_LOG,
        action: admin ? "user.admin_granted" : "user.admin_revoked",
        target: auditTarget.account(user, ""),
        at: ctx.deps.clock.now(),
      });
    }
    return redirect("/users");
  });

  route("POST", "/users/:user/remove", async (event) => {
    const access = requireAccess(event);
    adminOnly(access);
    await writeForm(event, access);
    const user = userOf(param(event, "user"));
    if (user.id === access.user?.id) return htmlResponse(page(access, "To remove your own account, use your Account page."), 400);
    // an admin may remove a project's only owner (recovery: a lost or compromised account), then gives it another
    const outcome = await accounts.deleteUser(user.id); // the dashboard ends their sessions on their next request
    if (outcome === null || !("removed" in outcome)) throw httpError(404, "user not found");
    const { removed } = outcome;
    const at = ctx.deps.clock.now();
    await recordDashboardChange(ctx, access, {
      projectId: INSTANCE_LOG,
      action: "user.deleted",
      target: auditTarget.account(user, ""),
      at,
    });
    for (const { projectId } of removed)
      await recordDashboardChange(ctx, access, { projectId, action: "member.removed", target: auditTarget.member(user, null), at });
    return redirect("/users");
  });
}

const MAIL_WORDS: Record<InvitationMail, string> = {
  sent: "It was sent to that email; you may also give the link yourself.",
  failed: "The email could not be sent: give the link yourself.",
  off: "Email is off (SMTP_URL is not set): give the link yourself.",
};

/** The users page: each user with their projects and whether they are an instance admin, and the forms. */
export function usersPage(
  viewer: Viewer,
  opts: {
    users: readonly User[];
    self: string | null;
    error: string | null;
    invited: Invited | null;
    projectsOf: (id: string) => number;
  },
): string {
  const rows = opts.users.map(
    (u) => html`<tr><td>${u.email}</td><td>${u.admin ? "yes" : "no"}</td><td>${opts.projectsOf(u.id)}</td><td>
${u.id === opts.self && u.admin ? "" : html`<form method="post" action="/users/${u.id}/admin" class="inline">${csrfField(viewer)}<input type="hidden" name="admin" value="${u.admin ? "0" : "1"}"><button type="submit" aria-label="${u.admin ? "Take instance admin from" : "Make instance admin:"} ${u.email}">${u.admin ? "Take admin away" : "Make admin"}</button></form>`}
${u.id === opts.self ? "" : html`<form method="post" action="/users/${u.id}/remove" class="inline">${csrfField(viewer)}<button type="submit" class="danger" aria-label="Remove ${u.email}">Remove</button></form>`}</td></tr>`,
  );
  return documentOf({
    title: "Users",
    viewer,
    body: html`<h1>Users</h1>
<p>An instance admin does everything the admin token does: projects, users, roles, limits, every integration kind.</p>
${opts.error === null ? "" : html`<p class="error" role="alert">${opts.error}</p>`}
${
  opts.invited === null
    ? ""
    : html`<div class="notice" role="status"><p>Invitation for ${opts.invited.email} (valid 7 days, once). ${MAIL_WORDS[opts.invited.mail]}</p>
<p><label for="invite-link">Invitation link</label> <input id="invite-link" readonly value="${opts.invited.link}" size="60"></p></div>`
}
<table class="list"><thead><tr><th scope="col">Email</th><th scope="col">Instance admin</th><th scope="col">Projects</th><th scope="col">Actions</th></tr></thead>
<tbody>${rows}</tbody></table>
${opts.users.length === 0 ? html`<p>No users yet.</p>` : ""}
<h2>Add a user</h2>
<form method="post" action="/users" class="row">${csrfField(viewer)}
<label for="user-email">Email</label><input id="user-email" name="email" type="email" required maxlength="254">
<label><input type="checkbox" name="admin" value="1"> Instance admin</label>
<button type="submit">Invite</button></form>
<p>The new user gets a one-use link to choose their password; give them roles on each project's Members page.</p>`,
  });
}
