// A user's new email, as rules over the accounts document: at once (no mail is sent), or, when mail is sent,
// once the one-use link mailed to the new address is followed (the invitations' links: host/invitations.ts).
// The address waiting for its link is not held: whichever user's change takes effect first has it, and the
// other's is refused then (an address nobody has proven would otherwise be blocked by anyone who names it).
import type { Millis } from "../engine/model.ts";
import { HOUR } from "../engine/model.ts";
import type { AccountsDocument, StoredInvite, StoredUser } from "../persistence/accounts-file.ts";
import { linkOf } from "./invitations.ts";

/** How long the link mailed to a new address makes the change: as long as a password reset's link. */
export const EMAIL_CHANGE_MS = HOUR;

/** Why a new email is refused: not an address, the user's own already, another user's, or no such user. */
export type EmailRefusal = "same" | "taken" | "no_user";

/** The document with the user's email replaced and their sessions ended (a new generation), with `before` the user as they were; else why not. */
export function withEmail(
  d: AccountsDocument,
  userId: string,
  email: string,
): { document: AccountsDocument; before: StoredUser } | EmailRefusal {
  const before = d.users.find((u) => u.id === userId);
  if (before === undefined) return "no_user";
  if (before.email === email) return "same";
  if (d.users.some((u) => u.email === email && u.id !== userId)) return "taken";
  const users = d.users.map((u) => (u === before ? { ...u, email, sessionGeneration: (u.sessionGeneration ?? 0) + 1 } : u));
  return { document: { ...d, users }, before };
}

/**
 * The document with the user's change to `email` waiting for the link whose token has `tokenHash` (until
 * `expiresAt`), in place of any change of theirs still waiting; else why not (checked now and again when it is followed).
 */
export function withEmailChangeAsked(
  d: AccountsDocument,
  change: { userId: string; email: string; tokenHash: string; at: Millis; expiresAt: Millis },
): { document: AccountsDocument } | EmailRefusal {
  const checked = withEmail(d, change.userId, change.email);
  if (typeof checked === "string") return checked;
  const waiting: StoredInvite = { tokenHash: change.tokenHash, userId: change.userId, expiresAt: change.expiresAt, newEmail: change.email };
  const kept = d.invites.filter((i) => i.expiresAt > change.at && !(i.userId === change.userId && i.newEmail !== undefined));
  return { document: { ...d, invites: [...kept, waiting] } };
}

/**
 * The document with the email change of the link whose token has `tokenHash` made (the user's sessions
 * ended) and the link used up, with the user as they were and the new email; "taken" (nothing changed)
 * when another user has the address by now; null when the link is unknown, used, expired or not an email
 * change's.
 */
export function withEmailChangeFollowed(
  d: AccountsDocument,
  tokenHash: string,
  at: Millis,
): { document: AccountsDocument; before: StoredUser; email: string } | "taken" | null {
  const link = linkOf(d, tokenHash, at);
  const email = link?.invite.newEmail;
  if (link === null || link.kind !== "email" || email === undefined) return null;
  const left = { ...d, invites: d.invites.filter((i) => i !== link.invite && i.expiresAt > at) };
  const changed = withEmail(left, link.user.id, email);
  if (changed === "taken") return "taken";
  if (typeof changed === "string") return null; // "same": made meanwhile by another way; "no_user": removed
  return { document: changed.document, before: changed.before, email };
}

/** The user's email change waiting for its link at `at` (the address and until when), or null. */
export function emailChangeWaiting(d: AccountsDocument, userId: string, at: Millis): { email: string; expiresAt: Millis } | null {
  const waiting = d.invites.find((i) => i.userId === userId && i.newEmail !== undefined && i.expiresAt > at);
  return waiting?.newEmail === undefined ? null : { email: waiting.newEmail, expiresAt: waiting.expiresAt };
}
