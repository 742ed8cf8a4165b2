// /admin/v1/users and /admin/v1/projects/<id>/members (CONTRACT "Users, roles and sign-in"): the
// dashboard's users, invited by a one-use link (also sent to their email when SMTP_URL is set) or given a
// password, and their roles in projects.
// Every request needs `Authorization: Bearer <ADMIN_TOKEN>`.
import { REPORT_CHOICES, reportChoiceOf, withReports } from "../../host/report-claims.ts";
import type { H3, H3Event } from "h3";
import type { Accounts, User } from "../../host/accounts.ts";
import { systemClock } from "../../host/clock.ts";
import { ROLES, roleOf } from "../../engine/roles.ts";
import type { AppDeps } from "../deps.ts";
import { authorizeAdmin } from "../auth.ts";
import { endpoint, json } from "../endpoint.ts";
import { jsonBody, projectIdOf } from "./admin-params.ts";
import type { ErrorReporter } from "../errors.ts";
import { httpError, lastOwnerError, unwrap } from "../errors.ts";
import { mailInvitation } from "../invitation-mail.ts";
import { auditTarget, INSTANCE_LOG, recordChange } from "../../host/audit.ts";

/** Registers the users and members routes of the admin API on `app`. */
export function userRoutes(app: H3, deps: AppDeps & { readonly accounts: Accounts }, opts: { report: ErrorReporter }): void {
  const { accounts, config } = deps;
  const options = { report: opts.report, cors: false } as const;
  const admin = (event: H3Event) => authorizeAdmin(event.req.headers, config.adminToken);
  const userOf = (event: H3Event, name: string): User => {
    const user = accounts.userById(event.context.params?.[name] ?? "");
    if (user === null) throw httpError(404, "user not found");
    return user;
  };

  endpoint(
    app,
    "/admin/v1/users",
    {
      GET: async (event) => {
        admin(event);
        return json({ users: accounts.listUsers() });
      },
      POST: async (event) => {
        admin(event);
        const body = await jsonBody(event);
        const password = body.password === null ? undefined : body.password; // null as absent: an invitation
        // a user brought over from Healthchecks: its Django hash, replaced at the first sign-in (null: no password, no invitation)
        const passwordHash = Object.hasOwn(body, "password_hash") ? body.password_hash : undefined;
        const { user, inviteToken } = unwrap(
          await accounts.createUser({ email: body.email, password, passwordHash, admin: body.admin }, systemClock.now()),
        ); // real time: an invitation lasts 7 real days, whatever CLOCK says
        const how =
          (inviteToken !== null ? "invited" : passwordHash !== undefined ? "brought over from Healthchecks" : "with a password") +
          (user.admin ? " as an instance admin" : "");
        await recordChange(deps.audit, {
          projectId: INSTANCE_LOG,
          actor: { kind: "admin" },
          action: "user.created",
          target: auditTarget.account(user, how),
          at: deps.clock.now(),
        });
        if (inviteToken === null) return json(user, 201);
        const inviteUrl = `${config.siteRoot}/invite/${inviteToken}`;
        void mailInvitation(deps.sendUserMail, { to: user.email, link: inviteUrl, role: null }); // when SMTP_URL is set; the answer carries the link either way
        return json({ ...user, invite_url: inviteUrl }, 201);
      },
    },
    options,
  );

  endpoint(
    app,
    "/admin/v1/users/:user",
    {
      GET: async (event) => {
        admin(event);
        return json(userOf(event, "user"));
      },
      // {"admin": true | false}: makes the user an instance admin, or takes it away
      PUT: async (event) => {
        admin(event);
        const user = userOf(event, "user");
        const body = await jsonBody(event);
        if (typeof body.admin !== "boolean") throw httpError(400, "json validation error: admin must be true or false");
        if (!(await accounts.setAdmin(user.id, body.admin))) throw httpError(404, "user not found");
        if (user.admin !== body.admin) {
          await recordChange(deps.audit, {
            projectId: INSTANCE_LOG,
            actor: { kind: "admin" },
            action: body.admin ? "user.admin_granted" : "user.admin_revoked",
            target: auditTarget.account(user, ""),
            at: deps.clock.now(),
          });
        }
        return json({ ...user, admin: body.admin });
      },
      DELETE: async (event) => {
        admin(event);
        const user = userOf(event, "user");
        // the admin may remove a project's only owner (recovery: a lost or compromised account), then gives it another
        const outcome = await accounts.deleteUser(user.id); // the dashboard ends their sessions on their next request
        if (outcome === null || !("removed" in outcome)) throw httpError(404, "user not found"); // removed meanwhile
        const { removed } = outcome;
        const at = deps.clock.now();
        await recordChange(deps.audit, {
          projectId: INSTANCE_LOG,
          actor: { kind: "admin" },
          action: "user.deleted",
          target: auditTarget.account(user, ""),
          at,
        });
        for (const { projectId } of removed) {
          // each project they held a role in records it
          await recordChange(deps.audit, {
            projectId,
            actor: { kind: "admin" },
            action: "member.removed",
            target: auditTarget.member(user, null),
            at,
          });
        }
        return json(null, 204);
      },
    },
    options,
  );

  // a user's email reports (CONTRACT "Alerting, third part"): off, weekly or monthly
  endpoint(
    app,
    "/admin/v1/users/:user/reports",
    {
      GET: async (event) => {
        admin(event);
        const stored = accounts.storedUser(userOf(event, "user").id);
        return json({ reports: stored === null ? "off" : reportChoiceOf(stored) });
      },
      PUT: async (event) => {
        admin(event);
        const user = userOf(event, "user");
        const asked = (await jsonBody(event)).reports;
        const choice = REPORT_CHOICES.find((c) => c === asked);
        if (choice === undefined) throw httpError(400, "reports must be off, weekly or monthly");
        const stored =
          (await accounts.updateUser(user.id, (u) => withReports(u, choice, deps.clock.now()))) ?? accounts.storedUser(user.id);
        return json({ reports: stored === null ? "off" : reportChoiceOf(stored) });
      },
    },
    options,
  );

  endpoint(
    app,
    "/admin/v1/projects/:id/members",
    {
      GET: async (event) => {
        admin(event);
        const projectId = projectIdOf(deps, event);
        const members = accounts.listUsers().flatMap((user) => {
          const role = accounts.roleIn(user.id, projectId);
          return role === null ? [] : [{ ...user, role }];
        });
        return json({ members });
      },
    },
    options,
  );

  endpoint(
    app,
    "/admin/v1/projects/:id/members/:user",
    {
      PUT: async (event) => {
        admin(event);
        const projectId = projectIdOf(deps, event);
        const user = userOf(event, "user");
        const role = roleOf((await jsonBody(event)).role);
        if (role === null) throw httpError(400, `role must be one of ${ROLES.join(", ")}`);
        const set = await accounts.setRole(projectId, user.id, role);
        if (set === "no_user") throw httpError(404, "user not found");
        if (set === "last_owner") throw httpError(400, lastOwnerError(user.email));
        await recordChange(deps.audit, {
          projectId,
          actor: { kind: "admin" },
          action: "member.role_set",
          target: auditTarget.member(user, role),
          at: deps.clock.now(),
        });
        return json({ ...user, role });
      },
      DELETE: async (event) => {
        admin(event);
        const projectId = projectIdOf(deps, event);
        const user = userOf(event, "user");
        const removed = await accounts.removeMember(projectId, user.id);
        if (removed === "not_member") throw httpError(404, "member not found");
        if (removed === "last_owner") throw httpError(400, lastOwnerError(user.email));
        await recordChange(deps.audit, {
          projectId,
          actor: { kind: "admin" },
          action: "member.removed",
          target: auditTarget.member(user, null),
          at: deps.clock.now(),
        });
        return json(null, 204);
      },
    },
    options,
  );
}
