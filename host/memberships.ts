// Users' roles in projects, as rules over the accounts document: a role given or taken away, never leaving
// a project without an owner (engine/roles.ts); host/accounts.ts stores what they return.
import type { Role } from "../engine/roles.ts";
import { leavesNoOwner } from "../engine/roles.ts";
import type { AccountsDocument, StoredMember } from "../persistence/accounts-file.ts";

/**
 * The document with `userId` given `role` in `projectId` (replacing any role held there): "no_user" when there
 * is no such user, "last_owner" (nothing changed) when they are the project's only owner and `role` is not owner.
 */
export function withRoleSet(
  d: AccountsDocument,
  projectId: string,
  userId: string,
  role: Role,
): { document: AccountsDocument } | "no_user" | "last_owner" {
  if (!d.users.some((u) => u.id === userId)) return "no_user";
  if (leavesNoOwner(d.members, projectId, userId, role)) return "last_owner";
  const others = d.members.filter((m) => !(m.projectId === projectId && m.userId === userId));
  return { document: { ...d, members: [...others, { projectId, userId, role }] } };
}

/** The document with the user's role in the project taken away: "not_member" when they held none, "last_owner" (nothing changed) when they are its only owner. */
export function withoutMember(
  d: AccountsDocument,
  projectId: string,
  userId: string,
): { document: AccountsDocument } | "not_member" | "last_owner" {
  const members = d.members.filter((m) => !(m.projectId === projectId && m.userId === userId));
  if (members.length === d.members.length) return "not_member";
  return leavesNoOwner(d.members, projectId, userId, null) ? "last_owner" : { document: { ...d, members } };
}

/** The user's role in the project, or null when they have none. */
export function roleOf(d: AccountsDocument, userId: string, projectId: string): Role | null {
  return d.members.find((m) => m.userId === userId && m.projectId === projectId)?.role ?? null;
}

/** The projects the user holds a role in, with the role. */
export function membershipsOf(d: AccountsDocument, userId: string): StoredMember[] {
  return d.members.filter((m) => m.userId === userId);
}
