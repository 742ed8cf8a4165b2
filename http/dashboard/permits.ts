// What a dashboard session may do beyond reading: the admin token everything, a user what their role in
// the project allows (engine/roles.ts, the one home of those rules), an API key what it could before
// users existed (a read-write key the check actions, never what only the admin token did).
import type { Action } from "../../engine/roles.ts";
import { mayDo } from "../../engine/roles.ts";
import { httpError } from "../errors.ts";
import type { Access } from "./context.ts";
import type { Actor } from "./sessions.ts";

/** Returns true when the session may do `action`; `keys`: whether a read-write API key may (as before users existed). */
export function allows(access: Access, action: Action, opts: { keys: boolean }): boolean {
  if (access.caller === "admin") return true;
  if (access.user !== undefined) return mayDo(access.user.role, action);
  return opts.keys && !access.caller.readonly;
}

/**
 * Whether the session may add, edit or test the kinds that run a program or reach any host on the
 * server's behalf (shell, apprise): the operator alone, never a project's manager or owner. The operator
 * is the admin token or an instance admin (a user with "admin": true, whose session's caller is "admin").
 */
export function mayConfigureOperatorKinds(access: Access): boolean {
  return access.caller === "admin" && (access.user === undefined || access.user.admin === true);
}

/** Throws 403 unless the session may configure a kind that only the operator configures (`kind`, when it is one). */
export function permitKind(access: Access, kind: string, operatorOnly: boolean): void {
  if (operatorOnly && !mayConfigureOperatorKinds(access)) {
    throw httpError(
      403,
      `only the operator (an instance admin or the admin token) adds, edits or tests ${kind} integrations: they run programs or reach any host from this server`,
    );
  }
}

/** What a project's management offers the session: `project` rename and delete, `keys` create and revoke keys (never to an API key), `limits` change its limits. */
export type ManageOffer = { readonly project: boolean; readonly keys: boolean; readonly limits: boolean };

/** `limits`: the project's check, ping-log and body limits, which the admin token and instance admins alone change. */
export function manageOffer(access: Access): ManageOffer {
  return {
    project: allows(access, "project.change", { keys: false }),
    keys: allows(access, "keys.change", { keys: false }),
    limits: access.caller === "admin",
  };
}

/** Throws 403 unless the session may do `action`; `refusal` is what an API key is told. */
export function permit(access: Access, action: Action, opts: { keys: boolean; refusal: string }): void {
  if (allows(access, action, opts)) return;
  if (access.user !== undefined) throw httpError(403, `the role ${access.user.role} in this project does not allow this`);
  throw httpError(403, opts.refusal);
}

/** Who the session acts as, for a record of changes. */
export function actorOf(access: Access): Actor {
  if (access.user !== undefined) return { kind: "user", email: access.user.email, id: access.user.id }; // an instance admin too
  if (access.caller === "admin") return { kind: "admin" };
  return { kind: "key", name: access.caller.readonly ? "read-only API key" : "API key" };
}
