// The invitations and roles of Accounts (host/accounts.ts builds on this class): links opened, invitations
// made again, withdrawn and used, roles given and taken away: host/invitations.ts's and host/memberships.ts's
// rules applied to the stored document.
import type { Millis } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import { fail, invalid, ok } from "../engine/outcome.ts";
import type { Role } from "../engine/roles.ts";
import type { StoredGrant, StoredMember } from "../persistence/accounts-file.ts";
import { isPassword } from "./account-input.ts";
import type { User } from "./accounts-document.ts";
import { AccountsDocumentHolder, userOf } from "./accounts-document.ts";
import type { InviterKey, LinkKind, PendingInvite } from "./invitations.ts";
import {
  hasJoined,
  linkOf,
  newLinkToken,
  pendingInvitesOf,
  tokenHashOf,
  withGrantAccepted,
  withInviteAgain,
  withInvitesCancelled,
  withPasswordSet,
} from "./invitations.ts";
import { membershipsOf, roleOf, withoutMember, withRoleSet } from "./memberships.ts";
import { MIN_PASSWORD_LENGTH } from "./passwords.ts";

/** Users' invitations and roles in projects: what Accounts answers about them. */
export class AccountMemberships extends AccountsDocumentHolder {
  /** What an unused, unexpired link's token opens: its user, what it may do (host/invitations.ts), the role it gives and the email it makes theirs; null when nothing. */
  link(token: string, at: Millis): { user: User; kind: LinkKind; grant: StoredGrant | null; newEmail: string | null } | null {
    const link = linkOf(this.document, tokenHashOf(token), at);
    return link === null
      ? null
      : { user: userOf(link.user), kind: link.kind, grant: link.invite.grant ?? null, newEmail: link.invite.newEmail ?? null };
  }

  /** True once the user has a password or has signed in through the identity provider (host/invitations.ts). */
  hasJoined(userId: string): boolean {
    const user = this.storedUser(userId);
    return user !== null && hasJoined(user);
  }

  /**
   * A new invitation token (returned once) for a user who has not joined yet, giving `grant`'s role when used
   * within 7 days, in place of the inviter's older one to the same project; `setsPassword` says whether its
   * link sets the password (only for the account's own inviter or the admin token; else it gives the role
   * once the user signs in); null when there is no such user.
   */
  async inviteAgain(
    userId: string,
    grant: StoredGrant,
    at: Millis,
    inviter: InviterKey,
  ): Promise<{ token: string; setsPassword: boolean } | null> {
    const { token, tokenHash } = newLinkToken();
    const invited = await this.apply((d) => withInviteAgain(d, { userId, grant, tokenHash, at, inviter }));
    return invited === null ? null : { token, setsPassword: invited.setsPassword };
  }

  /** The invitations to `projectId` not used yet and not expired at `at`, oldest first. */
  pendingInvites(projectId: string, at: Millis): PendingInvite[] {
    return pendingInvitesOf(this.document, projectId, at);
  }

  /** Withdraws every unused invitation of `userId` to `projectId`: their links no longer give its role (the account stays); false when there was none. */
  async cancelInvites(projectId: string, userId: string): Promise<boolean> {
    return (await this.apply((d) => withInvitesCancelled(d, projectId, userId))) !== null;
  }

  /**
   * Sets the password through a reset link or an invitation that sets one (host/invitations.ts): the user's
   * sessions end, the invitation's own role (only it) is given, the link and the user's resets are used up.
   */
  async acceptInvite(token: string, password: unknown, at: Millis): Promise<Outcome<{ user: User; grant: StoredGrant | null }>> {
    if (!isPassword(password)) return invalid("password", `password must be ${MIN_PASSWORD_LENGTH} or more characters`);
    const passwordHash = await this.hash(password);
    const done = await this.apply((d) => withPasswordSet(d, tokenHashOf(token), passwordHash, at));
    return done === null
      ? fail({ code: "not_found", what: "invitation" })
      : ok({ user: userOf(done.link.user), grant: done.link.invite.grant ?? null });
  }

  /** Gives the signed-in user `userId` the role of the invitation `token` made for them, and uses it up; null when it is not theirs (or used, expired). */
  async acceptGrant(token: string, userId: string, at: Millis): Promise<StoredGrant | null> {
    return (await this.apply((d) => withGrantAccepted(d, tokenHashOf(token), userId, at)))?.grant ?? null;
  }

  /**
   * Gives `userId` `role` in `projectId` (replacing any role held there): "no_user" when there is no such
   * user, "last_owner" (nothing changed) when they are the project's only owner and `role` is not owner.
   */
  async setRole(projectId: string, userId: string, role: Role): Promise<"set" | "no_user" | "last_owner"> {
    const set = await this.apply((d) => withRoleSet(d, projectId, userId, role));
    return typeof set === "string" ? set : "set";
  }

  /** Takes the user's role in the project away: "not_member" when they held none, "last_owner" (nothing changed) when they are its only owner. */
  async removeMember(projectId: string, userId: string): Promise<"removed" | "not_member" | "last_owner"> {
    const removed = await this.apply((d) => withoutMember(d, projectId, userId));
    return typeof removed === "string" ? removed : "removed";
  }

  /** The user's role in the project, or null when they have none. */
  roleIn(userId: string, projectId: string): Role | null {
    return roleOf(this.document, userId, projectId);
  }

  /** The projects the user holds a role in, with the role. */
  membershipsOf(userId: string): StoredMember[] {
    return membershipsOf(this.document, userId);
  }
}
