// What an invitation link may do, as rules over the accounts document. Each invitation gives only its own
// role, in its own project. A link sets a password only while its user has not joined yet, and only when
// its invitation made the account (or a re-invitation by the same inviter, or the admin token's), or it is
// a password reset, which goes to the email alone; any other invitation gives its role to a user who opens
// the link signed in as that user. So a link shown to an inviter never sets the password of an account
// someone else invited (nor one that has a password), and never hands over another project's role.
import { createHash, randomBytes } from "node:crypto";
import { leavesNoOwner } from "../engine/roles.ts";
import type { Role } from "../engine/roles.ts";
import type { Millis } from "../engine/model.ts";
import { DAY, HOUR } from "../engine/model.ts";
import type { AccountsDocument, StoredGrant, StoredInvite, StoredUser } from "../persistence/accounts-file.ts";

/** How long an invitation link opens its account (CONTRACT: 7 days). */
export const INVITE_MS = 7 * DAY;
/** How long a password reset link sent by email sets a new password. */
export const RESET_MS = HOUR;

/** An invitation not used yet that gives a role in a project. */
export type PendingInvite = { readonly userId: string; readonly email: string; readonly role: Role; readonly expiresAt: Millis };

/** Who made an invitation: "admin" (the admin token), or "<project id> <user id>" (a project's member). */
export type InviterKey = string;

/** What a link is: a password reset; an invitation that sets the password; one that gives its role to the user signed in; an email change's confirmation (host/email-change.ts), which sets nothing else. */
export type LinkKind = "reset" | "sets-password" | "grant-only" | "email";

/** An unused, unexpired link: its record, its user and what it may do now. */
export type Link = { readonly invite: StoredInvite; readonly user: StoredUser; readonly kind: LinkKind };

/** True once the user has a password or has signed in through the identity provider. */
export function hasJoined(user: StoredUser): boolean {
  return user.passwordHash !== null || user.sso === true;
}

/** The link whose token has `tokenHash`, unused and unexpired at `at`, with what it may do; null when none. */
export function linkOf(d: AccountsDocument, tokenHash: string, at: Millis): Link | null {
  const invite = d.invites.find((i) => i.tokenHash === tokenHash && i.expiresAt > at);
  const user = invite === undefined ? undefined : d.users.find((u) => u.id === invite.userId);
  if (invite === undefined || user === undefined) return null;
  const kind: LinkKind =
    invite.newEmail !== undefined
      ? "email"
      : invite.grant === undefined
        ? "reset"
        : invite.setsPassword !== false && !hasJoined(user)
          ? "sets-password"
          : "grant-only"; // an older record without the flag: as it was made
  return { invite, user, kind };
}

/** Whether a new invitation of `user` by `inviter` may set the password: only while nobody joined, for the account's own inviter or the admin token. */
export function setsPassword(user: StoredUser, inviter: InviterKey): boolean {
  return !hasJoined(user) && (inviter === "admin" || user.openedBy === inviter);
}

/**
 * The document with the password of a reset's or a "sets-password" invitation's user set (their sessions
 * ended: a new generation), the invitation's role given, that link and the user's resets and pending email
 * change used up (the mailbox of the address in force wins); null when the link is not (any longer) one that
 * sets a password.
 */
export function withPasswordSet(
  d: AccountsDocument,
  tokenHash: string,
  passwordHash: string,
  at: Millis,
): { document: AccountsDocument; link: Link } | null {
  const link = linkOf(d, tokenHash, at); // again on the newest document: it may have been used meanwhile
  if (link === null || (link.kind !== "reset" && link.kind !== "sets-password")) return null;
  const { user, invite } = link;
  const users = d.users.map((u) => (u === user ? { ...u, passwordHash, sessionGeneration: (u.sessionGeneration ?? 0) + 1 } : u));
  const invites = d.invites.filter((i) => i !== invite && i.expiresAt > at && !(i.userId === user.id && i.grant === undefined));
  return { document: { ...withRole(d, user.id, invite.grant), users, invites }, link };
}

/** The document with a "grant-only" (or any grant) link's role given to `userId`, the user it invites, and the link used up; null otherwise. */
export function withGrantAccepted(
  d: AccountsDocument,
  tokenHash: string,
  userId: string,
  at: Millis,
): { document: AccountsDocument; grant: StoredGrant } | null {
  const link = linkOf(d, tokenHash, at);
  const grant = link?.invite.grant;
  if (link === null || grant === undefined || link.user.id !== userId) return null;
  return { document: { ...withRole(d, userId, grant), invites: d.invites.filter((i) => i !== link.invite && i.expiresAt > at) }, grant };
}

/** The document with the grant's role given, except to a project's only owner, who stays one. */
function withRole(d: AccountsDocument, userId: string, grant: StoredGrant | undefined): AccountsDocument {
  if (grant === undefined || leavesNoOwner(d.members, grant.projectId, userId, grant.role)) return d;
  const others = d.members.filter((m) => !(m.projectId === grant.projectId && m.userId === userId));
  return { ...d, members: [...others, { projectId: grant.projectId, userId, role: grant.role }] };
}

/** A new link's token (shown once, in the link) and the hash of it that is kept. */
export function newLinkToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, tokenHash: tokenHashOf(token) };
}

/** The hash a link's token is kept as (and looked up by). */
export function tokenHashOf(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The invitation of a new account that has no password: it sets one within INVITE_MS, then gives `grant`'s role, if any. */
export function newAccountInvite(userId: string, tokenHash: string, at: Millis, inviter: InviterKey, grant?: StoredGrant): StoredInvite {
  return {
    tokenHash,
    userId,
    expiresAt: at + INVITE_MS,
    setsPassword: true,
    invitedBy: inviter,
    ...(grant === undefined ? {} : { grant }),
  };
}

/** The document with a password reset link for the user with `email` (expired links dropped), and that user; null when no user has it. */
export function withReset(
  d: AccountsDocument,
  email: string | null,
  tokenHash: string,
  at: Millis,
): { document: AccountsDocument; user: StoredUser } | null {
  const user = d.users.find((u) => u.email === email);
  if (user === undefined) return null;
  return {
    document: { ...d, invites: [...d.invites.filter((i) => i.expiresAt > at), { tokenHash, userId: user.id, expiresAt: at + RESET_MS }] },
    user,
  };
}

/**
 * The document with a new invitation of user `userId` giving `grant`'s role within INVITE_MS, in place of the
 * inviter's older one to the same project (others' stay); whether its link sets the password (setsPassword);
 * null when there is no such user.
 */
export function withInviteAgain(
  d: AccountsDocument,
  invite: {
    readonly userId: string;
    readonly grant: StoredGrant;
    readonly tokenHash: string;
    readonly at: Millis;
    readonly inviter: InviterKey;
  },
): { document: AccountsDocument; setsPassword: boolean } | null {
  const { userId, grant, tokenHash, at, inviter } = invite;
  const user = d.users.find((u) => u.id === userId);
  if (user === undefined) return null;
  const sets = setsPassword(user, inviter);
  const made: StoredInvite = { tokenHash, userId, expiresAt: at + INVITE_MS, grant, setsPassword: sets, invitedBy: inviter };
  // the inviter's own older invitation of this user to this project is replaced (its link no longer works); others' stay
  const replaced = (i: StoredInvite) => i.userId === userId && i.grant?.projectId === grant.projectId && i.invitedBy === inviter;
  return { document: { ...d, invites: [...d.invites.filter((i) => i.expiresAt > at && !replaced(i)), made] }, setsPassword: sets };
}

/** The invitations to `projectId` not used yet and not expired at `at`, oldest first. */
export function pendingInvitesOf(d: AccountsDocument, projectId: string, at: Millis): PendingInvite[] {
  return d.invites.flatMap((invite) => {
    const user = invite.grant?.projectId === projectId && invite.expiresAt > at ? d.users.find((u) => u.id === invite.userId) : undefined;
    return user === undefined || invite.grant === undefined
      ? []
      : [{ userId: user.id, email: user.email, role: invite.grant.role, expiresAt: invite.expiresAt }];
  });
}

/** The document without the unused invitations of `userId` to `projectId` (their links no longer give its role; the account stays); null when there was none. */
export function withInvitesCancelled(d: AccountsDocument, projectId: string, userId: string): { document: AccountsDocument } | null {
  const withdrawn = (i: StoredInvite) => i.userId === userId && i.grant?.projectId === projectId;
  return d.invites.some(withdrawn) ? { document: { ...d, invites: d.invites.filter((i) => !withdrawn(i)) } } : null;
}
