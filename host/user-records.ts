// Users' records as rules over the accounts document: a user added (with their invitation), made by a
// single sign-on, removed with their invitations and roles, or one record edited; host/accounts.ts stores
// what they return.
import type { Role } from "../engine/roles.ts";
import { lastOwnedBy } from "../engine/roles.ts";
import type { AccountsDocument, StoredGrant, StoredInvite, StoredMember, StoredUser } from "../persistence/accounts-file.ts";

/** The document with `user` and their `invites` added; "taken" (nothing changed) when another user has their email. */
export function withUserAdded(
  d: AccountsDocument,
  user: StoredUser,
  invites: readonly StoredInvite[],
): { document: AccountsDocument } | "taken" {
  if (d.users.some((u) => u.email === user.email)) return "taken";
  return { document: { ...d, users: [...d.users, user], invites: [...d.invites, ...invites] } };
}

/**
 * The document once a single sign-on with `made`'s (verified) email signs in: the user with that email marked
 * as one who has joined through it, or else `made` added with `create.grant`'s role (returned as `granted`);
 * null when there is no such user and `create` is null (nothing is made).
 */
export function withSingleSignOn(
  d: AccountsDocument,
  made: StoredUser,
  create: { grant: { role: Role; projectId: string } | null } | null,
): { document: AccountsDocument | null; user: StoredUser; granted: StoredGrant | null } | null {
  const existing = d.users.find((u) => u.email === made.email);
  if (existing !== undefined) {
    const document = existing.sso === true ? null : { ...d, users: d.users.map((u) => (u === existing ? { ...u, sso: true } : u)) };
    return { document, user: existing, granted: null };
  }
  if (create === null) return null;
  const members =
    create.grant === null ? d.members : [...d.members, { projectId: create.grant.projectId, userId: made.id, role: create.grant.role }];
  return { document: { ...d, users: [...d.users, made], members }, user: made, granted: create.grant };
}

/**
 * The document without the user `id`, their invitations and roles, with the roles they held (to record);
 * with `keepOwners`, `lastOwnerOf` (nothing changed) names the projects they are the only owner of; null
 * when there is no such user.
 */
export function withoutUser(
  d: AccountsDocument,
  id: string,
  keepOwners: boolean,
): { document: AccountsDocument; removed: StoredMember[] } | { document: null; lastOwnerOf: string[] } | null {
  if (!d.users.some((u) => u.id === id)) return null;
  const lastOwnerOf = keepOwners ? lastOwnedBy(d.members, id) : [];
  if (lastOwnerOf.length > 0) return { document: null, lastOwnerOf };
  return {
    document: {
      users: d.users.filter((u) => u.id !== id),
      invites: d.invites.filter((i) => i.userId !== id),
      members: d.members.filter((m) => m.userId !== id),
    },
    removed: d.members.filter((m) => m.userId === id),
  };
}

/** The document with one user's record replaced by `edit`'s (`edited`; null: nothing to change), or null when there is no such user. */
export function withUserEdited(
  d: AccountsDocument,
  userId: string,
  edit: (user: StoredUser) => StoredUser | null,
): { document: AccountsDocument | null; edited: StoredUser | null } | null {
  const user = d.users.find((u) => u.id === userId);
  if (user === undefined) return null;
  const edited = edit(user);
  return { document: edited === null ? null : { ...d, users: d.users.map((u) => (u === user ? edited : u)) }, edited };
}
