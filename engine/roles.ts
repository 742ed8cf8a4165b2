// The roles a user holds in a project (CONTRACT "Users, roles and sign-in") and what each may do: the one
// place the rules live. The dashboard asks `mayDo` before every action of a user's session.

/** The roles, from the least to the most: each may do everything the ones before it may. */
export const ROLES = ["readonly", "member", "manager", "owner"] as const;
export type Role = (typeof ROLES)[number];

/** Everything a user may be allowed or refused in a project. */
export const ACTIONS = [
  "project.view", // its checks (by unique_key, never a uuid), their status and events, its settings page without keys
  "audit.view", // the project's audit log, with the emails of who did what (check uuids shown as unique_key below checks.pingUrls)
  "checks.change", // create, edit, pause, resume, ping now, delete a check
  "checks.integrations", // which integrations a check notifies
  "checks.pingLog", // a check's ping log and ping bodies (as the read-only API key, a readonly user sees neither)
  "checks.pingUrls", // the checks' ping URLs: their uuids, and the project's ping key (in every URL by slug), as the reference's members see them
  "integrations.test", // send a test notification
  "integrations.change", // add, edit, remove an integration
  "keys.view", // the project's API keys (read-write and read-only)
  "keys.change", // create an API key anew, revoke one
  "members.change", // give or take a role below owner
  "statusPages.change", // public status pages and badges' settings
  "project.change", // the project itself: its name, deleting it, its mute, its maintenance windows, an owner's role
] as const;
export type Action = (typeof ACTIONS)[number];

/** The least role that may do each action. */
const LEAST_ROLE: { readonly [A in Action]: Role } = {
  "project.view": "readonly",
  "audit.view": "readonly",
  "checks.change": "member",
  "checks.integrations": "member",
  "checks.pingLog": "member",
  "checks.pingUrls": "member",
  "integrations.test": "member",
  "integrations.change": "manager",
  "keys.view": "manager",
  "keys.change": "manager",
  "members.change": "manager",
  "statusPages.change": "manager",
  "project.change": "owner",
};

/** The least role that may do `action` (the table's row). */
export function leastRoleFor(action: Action): Role {
  return LEAST_ROLE[action];
}

/** Returns true when a user holding `role` may do `action`. */
export function mayDo(role: Role, action: Action): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(LEAST_ROLE[action]);
}

/** Returns true when a user holding `role` may give (or take) `target` to another user: managers below owner, owners any. */
export function mayAssign(role: Role, target: Role): boolean {
  if (target === "owner") return mayDo(role, "project.change");
  return mayDo(role, "members.change");
}

/** Returns the role this text names, or null. */
export function roleOf(text: unknown): Role | null {
  return ROLES.find((role) => role === text) ?? null;
}

/** One role held in one project. */
export type Membership = { readonly projectId: string; readonly userId: string; readonly role: Role };

/**
 * Returns true when giving `userId` the role `next` in `projectId` (null: taking their role away) would
 * leave a project that has an owner with none: the last owner can't be demoted or removed (the reference's
 * project always has its owner); a project with no owner (made by the admin token) may be given one.
 */
export function leavesNoOwner(members: readonly Membership[], projectId: string, userId: string, next: Role | null): boolean {
  if (next === "owner") return false;
  const owners = members.filter((m) => m.projectId === projectId && m.role === "owner");
  return owners.length > 0 && owners.every((m) => m.userId === userId);
}

/** The projects in which `userId` is the only owner (their account can't be deleted by themselves while there is one). */
export function lastOwnedBy(members: readonly Membership[], userId: string): string[] {
  return members
    .filter((m) => m.userId === userId && m.role === "owner" && leavesNoOwner(members, m.projectId, userId, null))
    .map((m) => m.projectId);
}
