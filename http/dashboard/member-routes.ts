// A project's members in the dashboard: who holds which role, and adding, changing and removing them as
// engine/roles.ts allows (managers below owner, owners any role; the admin token any), never leaving a
// project that has an owner with none. An email no user has
// gets an invitation: a one-use link, valid 7 days, that sets the new user's password and gives the role;
// shown to the inviter on the page (never in a URL) and sent to the email when SMTP_URL is set; one not
// used yet may be cancelled. API keys do not manage members.
import type { Accounts } from "../../host/accounts.ts";
import { systemClock } from "../../host/clock.ts";
import { mailInvitation } from "../invitation-mail.ts";
import type { Project } from "../../engine/model.ts";
import type { Role } from "../../engine/roles.ts";
import { mayAssign, roleOf, ROLES } from "../../engine/roles.ts";
import { httpError, lastOwnerError, reasonOf } from "../errors.ts";
import type { Access, DashboardContext } from "./context.ts";
import type { Invited } from "./member-pages.ts";
import { membersPage } from "./member-pages.ts";
import { recordDashboardChange } from "./audit-routes.ts";
import { auditTarget } from "../../host/audit.ts";
import { htmlResponse, param, redirect } from "./responses.ts";

/** Registers the members page and its forms. */
export function memberRoutes(ctx: DashboardContext, accounts: Accounts): void {
  const { route, requireAccess, writeForm, projectFor } = ctx;
  const { config, sendUserMail } = ctx.deps;

  /** The roles this session may give or take in the project: every one for the admin token, none for a key. */
  const assignableBy = (access: Access): Role[] => {
    if (access.caller === "admin") return [...ROLES];
    if (access.user === undefined) return [];
    const { role } = access.user;
    return ROLES.filter((target) => mayAssign(role, target));
  };
  const viewable = (access: Access): void => {
    if (access.caller !== "admin" && access.user === undefined)
      throw httpError(403, "API keys do not manage members: sign in with the admin token or as a user");
  };
  const membersHtml = (
    access: Access,
    project: Project,
    error: string | null,
    invited: Invited | null = null,
    notice: string | null = null,
  ) => {
    const members = accounts.listUsers().flatMap((user) => {
      const role = accounts.roleIn(user.id, project.id);
      return role === null ? [] : [{ ...user, role }];
    });
    const invites = accounts.pendingInvites(project.id, systemClock.now());
    return membersPage(access.viewer, { project, members, invites, invited, assignable: assignableBy(access), error, notice });
  };
  /** Throws 403 unless the session may take `from` (the member's role now, if any) and give `to`. */
  const mayChange = (access: Access, from: Role | null, to: Role | null): void => {
    const assignable = assignableBy(access);
    if ((from !== null && !assignable.includes(from)) || (to !== null && !assignable.includes(to))) {
      throw httpError(
        403,
        access.user === undefined
          ? "only the admin token and users manage members"
          : `the role ${access.user.role} in this project does not allow giving or taking that role`,
      );
    }
  };

  route("GET", "/projects/:project/members", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    viewable(access);
    const notice = event.url.searchParams.get("done") === "cancelled" ? "Invitation cancelled: its link no longer works." : null;
    return htmlResponse(membersHtml(access, project, null, null, notice));
  });

  route("POST", "/projects/:project/members", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    viewable(access);
    const form = await writeForm(event, access);
    const role = roleOf(form.get("role"));
    if (role === null) return htmlResponse(membersHtml(access, project, `The role must be one of ${ROLES.join(", ")}.`), 400);
    const email = (form.get("email") ?? "").trim().toLowerCase();
    const user = accounts.listUsers().find((u) => u.email === email);
    const now = systemClock.now(); // real time: an invitation lasts 7 real days, whatever CLOCK says
    if (user === undefined || !accounts.hasJoined(user.id)) {
      // a new email, or one invited before who has not joined yet
      mayChange(access, null, role);
      const grant = { projectId: project.id, role };
      // the invitation is this inviter's, for this project: its link sets a password only for an account it
      // brings into being (host/invitations.ts), else it gives this role alone once that account signs in
      const inviter = access.caller === "admin" ? "admin" : `${project.id} ${access.user?.id ?? ""}`;
      let invitee = user,
        token: string | null,
        setsPassword = true;
      if (invitee === undefined) {
        const made = await accounts.createUser({ email }, now, grant, inviter);
        if (!made.ok) return htmlResponse(membersHtml(access, project, `The email is not valid: ${reasonOf(made.failure)}.`), 400);
        ({ user: invitee, inviteToken: token } = made.value);
      } else {
        const again = await accounts.inviteAgain(invitee.id, grant, now, inviter);
        token = again?.token ?? null;
        setsPassword = again?.setsPassword ?? true;
      }
      if (token === null) throw httpError(404, "user not found"); // removed meanwhile
      await recordDashboardChange(ctx, access, {
        projectId: project.id,
        action: "member.invited",
        target: auditTarget.member(invitee, role),
        at: ctx.deps.clock.now(),
      });
      const link = `${config.siteRoot}/invite/${token}`;
      const mail = await mailInvitation(sendUserMail, { to: email, link, role: `${role} of the project ${project.name}` });
      return htmlResponse(membersHtml(access, project, null, { email, role, link, mail, setsPassword }));
    }
    mayChange(access, accounts.roleIn(user.id, project.id), role);
    const set = await accounts.setRole(project.id, user.id, role);
    if (set === "no_user") throw httpError(404, "user not found"); // removed meanwhile
    if (set === "last_owner") return htmlResponse(membersHtml(access, project, `${lastOwnerError(user.email)}.`), 400);
    await recordDashboardChange(ctx, access, {
      projectId: project.id,
      action: "member.role_set",
      target: auditTarget.member(user, role),
      at: ctx.deps.clock.now(),
    });
    return redirect(`/projects/${project.id}/members`);
  });

  // an invitation not used yet, withdrawn: by whoever may take the role it gives (managers below owner)
  route("POST", "/projects/:project/invitations/:user/cancel", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    viewable(access);
    await writeForm(event, access);
    const userId = param(event, "user");
    const invites = accounts.pendingInvites(project.id, systemClock.now()).filter((i) => i.userId === userId);
    if (invites.length === 0) throw httpError(404, "invitation not found (used, expired or cancelled already)");
    for (const invite of invites) mayChange(access, invite.role, null);
    if (!(await accounts.cancelInvites(project.id, userId))) throw httpError(404, "invitation not found (used meanwhile)");
    await recordDashboardChange(ctx, access, {
      projectId: project.id,
      action: "member.invitation_cancelled",
      target: auditTarget.member({ email: invites[0].email, id: userId }, invites[0].role),
      at: ctx.deps.clock.now(),
    });
    return redirect(`/projects/${project.id}/members?done=cancelled`);
  });

  route("POST", "/projects/:project/members/:user/remove", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    viewable(access);
    await writeForm(event, access);
    const userId = param(event, "user");
    const role = accounts.roleIn(userId, project.id);
    if (role === null) throw httpError(404, "member not found");
    mayChange(access, role, null);
    const removed = accounts.userById(userId);
    const outcome = await accounts.removeMember(project.id, userId);
    if (outcome === "not_member") throw httpError(404, "member not found");
    if (outcome === "last_owner")
      return htmlResponse(membersHtml(access, project, `${lastOwnerError(removed?.email ?? "This member")}.`), 400);
    if (removed !== null)
      await recordDashboardChange(ctx, access, {
        projectId: project.id,
        action: "member.removed",
        target: auditTarget.member(removed, null),
        at: ctx.deps.clock.now(),
      });
    return redirect(`/projects/${project.id}/members`);
  });
}
