// A project's members in the dashboard: who holds which role, and adding, changing and removing them as
// engine/roles.ts allows (managers below owner, owners any role; the admin token any). API keys do not
// manage members.
import type { Accounts } from "../../host/accounts.ts";
import type { Project } from "../../engine/model.ts";
import type { Role } from "../../engine/roles.ts";
import { mayAssign, roleOf, ROLES } from "../../engine/roles.ts";
import { httpError } from "../errors.ts";
import type { Access, DashboardContext } from "./context.ts";
import { membersPage } from "./member-pages.ts";
import { htmlResponse, param, redirect } from "./responses.ts";

/** Registers the members page and its forms. */
export function memberRoutes(ctx: DashboardContext, accounts: Accounts): void {
  const { route, requireAccess, writeForm, projectFor } = ctx;

  /** The roles this session may give or take in the project: every one for the admin token, none for a key. */
  const assignableBy = (access: Access): Role[] => {
    if (access.caller === "admin") return [...ROLES];
    if (access.user === undefined) return [];
    const { role } = access.user;
    return ROLES.filter((target) => mayAssign(role, target));
  };
  const viewable = (access: Access): void => {
    if (access.caller !== "admin" && access.user === undefined) throw httpError(403, "API keys do not manage members: sign in with the admin token or as a user");
  };
  const membersHtml = (access: Access, project: Project, error: string | null) => {
    const members = accounts.listUsers().flatMap((user) => {
      const role = accounts.roleIn(user.id, project.id);
      return role === null ? [] : [{ ...user, role }];
    });
    return membersPage(access.viewer, { project, members, assignable: assignableBy(access), error });
  };
  /** Throws 403 unless the session may take `from` (the member's role now, if any) and give `to`. */
  const mayChange = (access: Access, from: Role | null, to: Role | null): void => {
    const assignable = assignableBy(access);
    if ((from !== null && !assignable.includes(from)) || (to !== null && !assignable.includes(to))) {
      throw httpError(403, access.user === undefined ? "only the admin token and users manage members"
        : `the role ${access.user.role} in this project does not allow giving or taking that role`);
    }
  };

  route("GET", "/projects/:project/members", async (event) => {
    const access = requireAccess(event);
    const project = projectFor(access, param(event, "project"));
    viewable(access);
    return htmlResponse(membersHtml(access, project, null));
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
    if (user === undefined) return htmlResponse(membersHtml(access, project, "No user has this email: the admin API makes users."), 400);
    mayChange(access, accounts.roleIn(user.id, project.id), role);
    await accounts.setRole(project.id, user.id, role);
    return redirect(`/projects/${project.id}/members`);
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
    await accounts.removeMember(project.id, userId);
    return redirect(`/projects/${project.id}/members`);
  });
}
