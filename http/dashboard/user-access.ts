// A user's session on a request: the project the request is about (named in its URL, or the project of
// the check it names), and the user's access there with their role (engine/roles.ts), as routes.ts's
// Access. A removed user's sessions, and those opened under an older session generation, end on their next request.
import type { H3Event } from "h3";
import type { Accounts } from "../../host/accounts.ts";
import type { Clock } from "../../host/clock.ts";
import type { Pool } from "../../host/pool-api.ts";
import { isUuid } from "../../engine/ids.ts";
import { mayDo } from "../../engine/roles.ts";
import { isUniqueKey } from "../input.ts";
import type { Access } from "./context.ts";
import { param, sessionIdOf } from "./responses.ts";
import type { SessionStore } from "./sessions.ts";

/** The helpers of users' requests, over the dashboard's sessions. */
export function userAccess(deps: {
  pool: Pool;
  accounts: Accounts;
  sessions: SessionStore;
  realClock: Clock;
  unshare: (id: string) => Promise<void>;
}) {
  const { pool, accounts, sessions, realClock, unshare } = deps;
  // a user's request is about one project: the one its URL names, or the project of the check it names
  const projectOfRequest = new WeakMap<H3Event, string>();
  /** Finds the project a user's request is about (a check's unique_key is looked for in their projects). */
  const resolveProject = async (event: H3Event, userId: string): Promise<void> => {
    const named = param(event, "project");
    const ref = param(event, "ref");
    let projectId: string | null = named !== "" ? named : null;
    if (projectId === null && isUuid(ref)) projectId = pool.projectOfCheck(ref.toLowerCase())?.id ?? null;
    if (projectId === null && isUniqueKey(ref)) {
      for (const { projectId: candidate } of accounts.membershipsOf(userId)) {
        if ((await pool.getCheck(candidate, { uniqueKey: ref })).ok) projectId = candidate;
      }
    }
    if (projectId !== null) projectOfRequest.set(event, projectId);
  };
  /**
   * The request's session when a user opened it, still exists and has not ended their sessions since (a new
   * password, the second factor on or off: a new generation, in the accounts every node shares); any other
   * user's session ends here.
   */
  const signedInUser = (event: H3Event) => {
    const session = sessions.find(sessionIdOf(event), realClock.now());
    if (session === null || session.principal.kind !== "user") return null;
    const user = accounts.userById(session.principal.userId);
    if (user === null || accounts.sessionGeneration(user.id) !== (session.principal.generation ?? 0)) {
      sessions.close(session.id);
      void unshare(session.id);
      return null;
    }
    return { session, user };
  };
  /** A user's access to the project the request is about, with their role there; null without one. */
  const userAccessOf = (event: H3Event): Access | null => {
    const found = signedInUser(event);
    const projectId = projectOfRequest.get(event);
    if (found === null || projectId === undefined) return null;
    const { session, user } = found;
    const role = accounts.roleIn(user.id, projectId);
    const project = role === null ? undefined : pool.listProjects().find((p) => p.id === projectId);
    if (role === null || project === undefined) return null;
    const readonly = !mayDo(role, "checks.change");
    return {
      session,
      caller: { project, readonly },
      user: { id: user.id, email: user.email, role },
      // `admin`: the project's own controls (mute, maintenance windows), which an owner may use
      viewer: {
        csrf: session.csrf,
        readonly,
        admin: mayDo(role, "project.change"),
        user: { email: user.email, role },
        hideKeys: !mayDo(role, "keys.view"),
        hidePingUrls: !mayDo(role, "checks.pingUrls"),
        hideAudit: !mayDo(role, "audit.view"),
      },
    };
  };
  /**
   * An instance admin's access: all that the admin token's is (caller "admin"), in every project whether or
   * not they hold a role there, recorded under their own email; null for any other session.
   */
  const instanceAdminAccess = (event: H3Event): Access | null => {
    const found = signedInUser(event);
    if (found === null || !found.user.admin) return null;
    const { session, user } = found;
    return {
      session,
      caller: "admin",
      user: { id: user.id, email: user.email, role: "owner", admin: true },
      viewer: { csrf: session.csrf, readonly: false, admin: true, user: { email: user.email, role: "instance admin" } },
    };
  };
  return { resolveProject, signedInUser, userAccessOf, instanceAdminAccess };
}
