// Accounts: the users who sign in to the dashboard with an email and a password, their passwords, emails and
// second factors (CONTRACT "Users, roles and sign-in"); their invitations and roles: host/account-memberships.ts.
// Read from a copy in memory; every change is a function of the newest document, stored before it is answered
// (host/accounts-document.ts): in DATA_DIR/accounts.json (persistence/accounts-file.ts) on a single node, in a
// replicated KV bucket in a cluster (cluster/replicated-accounts.ts), where a change that lost a race is made
// again on the winner's document.
import { randomUUID } from "node:crypto";
import type { Millis } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import { fail, invalid, ok } from "../engine/outcome.ts";
import type { Role } from "../engine/roles.ts";
import type { StoredGrant, StoredInvite, StoredMember, StoredUser } from "../persistence/accounts-file.ts";
import { AccountsFile, EMPTY_ACCOUNTS } from "../persistence/accounts-file.ts";
import { isDjangoHash, MIN_PASSWORD_LENGTH, verifyPassword } from "./passwords.ts";
import { codeStep, newRecoveryCodes, withCodeUsed, withSecondFactorOff, withSecondFactorOn } from "./second-factor.ts";
import type { NewUserInput } from "./account-input.ts";
import { emailOf, isPassword, newUserOf } from "./account-input.ts";
import type { InviterKey, PendingInvite } from "./invitations.ts";
import { newAccountInvite, newLinkToken, tokenHashOf, withReset } from "./invitations.ts";
import type { EmailRefusal } from "./email-change.ts";
import { EMAIL_CHANGE_MS, emailChangeWaiting, withEmail, withEmailChangeAsked, withEmailChangeFollowed } from "./email-change.ts";
import { withoutUser, withSingleSignOn, withUserAdded } from "./user-records.ts";
import type { AccountsOptions, AccountsStore, User } from "./accounts-document.ts";
import { userOf } from "./accounts-document.ts";
import { AccountMemberships } from "./account-memberships.ts";

export { INVITE_MS, RESET_MS } from "./invitations.ts";
export { passwordProblem } from "./account-input.ts";
export type { PendingInvite };
export type { AccountsOptions, AccountsStore, User };

/** The role an invitation (or OIDC_DEFAULT_ROLE) gives in a project. */
export type Grant = StoredGrant;
export type NewUser = { readonly user: User; readonly inviteToken: string | null };

export class Accounts extends AccountMemberships {
  /** The accounts kept in `dataDir` (read now), or, without one, in memory only (tests of the HTTP edge). */
  static open(dataDir: string | null, options: AccountsOptions = {}): Accounts {
    const file = dataDir === null ? null : new AccountsFile(dataDir);
    let current = file?.load() ?? EMPTY_ACCOUNTS;
    return new Accounts(
      {
        initial: current,
        change: async (edit) => {
          const next = edit(current);
          if (next === null) return current;
          file?.save(next); // on disk before anyone is answered; a failed write leaves the document as it was
          current = next;
          return next;
        },
      },
      options,
    );
  }

  /** Every user, oldest first. */
  listUsers(): User[] {
    return this.document.users.map(userOf);
  }

  /** The id of the user with this email, or null. */
  userIdOfEmail(emailText: string): string | null {
    const email = emailOf(emailText);
    return this.document.users.find((u) => u.email === email)?.id ?? null;
  }

  userById(id: string): User | null {
    const found = this.storedUser(id);
    return found === null ? null : userOf(found);
  }

  /**
   * Adds a user: with a password, or with an invitation token (returned once; only its hash is kept) that
   * sets one within 7 days and then gives `grant`'s role, if any (`inviter` made the invitation); or, brought
   * over from Healthchecks, with its Django password hash (`passwordHash`; null: none and no invitation).
   */
  async createUser(input: NewUserInput, at: Millis, grant?: StoredGrant, inviter: InviterKey = "admin"): Promise<Outcome<NewUser>> {
    const checked = newUserOf(input);
    if (!checked.ok) return checked;
    const { email, password, admin } = checked.value;
    const passwordHash =
      checked.value.passwordHash !== undefined ? checked.value.passwordHash : password === undefined ? null : await this.hash(password);
    const link = passwordHash === null && checked.value.passwordHash === undefined ? newLinkToken() : null;
    const user: StoredUser = {
      id: randomUUID(),
      email,
      passwordHash,
      createdAt: at,
      ...(link !== null ? { openedBy: inviter } : {}),
      ...(admin ? { admin: true } : {}),
    };
    const invites: StoredInvite[] = link === null ? [] : [newAccountInvite(user.id, link.tokenHash, at, inviter, grant)];
    const added = await this.apply((d) => withUserAdded(d, user, invites));
    return added === "taken"
      ? invalid("email", "a user with this email exists")
      : ok({ user: userOf(user), inviteToken: link?.token ?? null });
  }

  /**
   * The user a single sign-on with this (verified) email signs in, who has joined from now on: made now
   * when there is none and `create` says so (no password: they sign in through the identity provider, or
   * set one by a reset), with `create.grant`'s role, returned as `granted`; null when there is none and
   * nothing is made.
   */
  async userOfEmail(
    emailText: string,
    create: { grant: { role: Role; projectId: string } | null } | null,
    at: Millis,
  ): Promise<{ user: User; granted: StoredGrant | null } | null> {
    const email = emailOf(emailText);
    if (email === null) return null;
    const found = this.document.users.find((u) => u.email === email);
    if (found === undefined && create === null) return null;
    if (found?.sso === true) return { user: userOf(found), granted: null };
    const made: StoredUser = { id: randomUUID(), email, passwordHash: null, createdAt: at, sso: true };
    // again on the newest document: another sign-in may have made them (null: removed meanwhile)
    const signedIn = await this.apply((d) => withSingleSignOn(d, made, create));
    return { user: userOf(signedIn?.user ?? made), granted: signedIn?.granted ?? null };
  }

  /**
   * Removes a user with their invitations and roles; returns the roles they held (to record), or null when
   * there is no such user; with `keepOwners`, nothing is removed while they are a project's only owner
   * (`lastOwnerOf` names those projects): a user deleting their own account.
   */
  async deleteUser(
    id: string,
    opts: { keepOwners?: boolean } = {},
  ): Promise<{ removed: StoredMember[] } | { lastOwnerOf: string[] } | null> {
    const done = await this.apply((d) => withoutUser(d, id, opts.keepOwners === true));
    return done === null ? null : "removed" in done ? { removed: done.removed } : { lastOwnerOf: done.lastOwnerOf };
  }

  /** Makes the user an instance admin, or takes it away; false when there is no such user. */
  async setAdmin(userId: string, admin: boolean): Promise<boolean> {
    return (await this.editUser(userId, (u) => ((u.admin === true) === admin ? null : { ...u, admin }))) !== null;
  }

  /** True when the user exists and is an instance admin. */
  isAdmin(userId: string): boolean {
    return this.storedUser(userId)?.admin === true;
  }

  /** The number of users (none yet: the first start's log and the sign-in page say how to make the first admin). */
  userCount(): number {
    return this.document.users.length;
  }

  /** Returns the user whose password this is, or null for a wrong password and an unknown email alike (both take one hash). */
  async signIn(emailText: string, password: string): Promise<User | null> {
    const email = emailOf(emailText);
    const user = email === null ? undefined : this.document.users.find((u) => u.email === email);
    const stored = user?.passwordHash ?? null;
    const matches = await verifyPassword(password, stored ?? this.decoy());
    if (!matches || user === undefined || stored === null) return null;
    if (isDjangoHash(stored)) {
      // brought over from Healthchecks: replaced by hcd's own now that the password is known
      const replaced = await this.hash(password);
      await this.editUser(user.id, (u) => (u.passwordHash === stored ? { ...u, passwordHash: replaced } : null));
    }
    return userOf(user);
  }

  /**
   * A one-use link's token that sets a new password for the user with this email within RESET_MS (the
   * invitation's machinery: only its hash is kept), or null when no user has this email.
   */
  async startReset(emailText: string, at: Millis): Promise<{ user: User; token: string } | null> {
    const { token, tokenHash } = newLinkToken();
    const reset = await this.apply((d) => withReset(d, emailOf(emailText), tokenHash, at));
    return reset === null ? null : { user: userOf(reset.user), token };
  }

  /** The generation the user's sessions must have been opened under to go on (see StoredUser), or null when there is no such user. */
  sessionGeneration(userId: string): number | null {
    const user = this.storedUser(userId);
    return user === null ? null : (user.sessionGeneration ?? 0);
  }

  /**
   * Replaces the password of a user who proves the current one; every session of the user ends (a new
   * generation). An invalid new password is refused before anything is checked.
   */
  async changePassword(userId: string, current: string, next: unknown): Promise<Outcome<User>> {
    if (!isPassword(next)) return invalid("password", `the new password must be ${MIN_PASSWORD_LENGTH} or more characters`);
    const stored = this.storedUser(userId);
    if (stored === null) return fail({ code: "not_found", what: "user" });
    if (stored.passwordHash === null || !(await verifyPassword(current, stored.passwordHash)))
      return invalid("current", "the current password is wrong");
    const passwordHash = await this.hash(next);
    const found = await this.editUser(userId, (u) => ({ ...u, passwordHash, sessionGeneration: (u.sessionGeneration ?? 0) + 1 }));
    return found !== null ? ok(userOf(stored)) : fail({ code: "not_found", what: "user" });
  }

  /**
   * Gives the user a new email at once (unique among users, as every email is) and ends every session of
   * theirs (a new generation); the caller proves the password first. Returns the user as they were (the old email).
   */
  async changeEmail(userId: string, next: unknown): Promise<Outcome<User>> {
    const email = emailOf(next);
    if (email === null) return invalid("email", "the new email is not an email address");
    const changed = await this.apply((d) => withEmail(d, userId, email));
    return typeof changed === "string" ? emailRefused(changed) : ok(userOf(changed.before));
  }

  /**
   * A one-use link's token (only its hash is kept) that gives the user `next` as their email when followed
   * within EMAIL_CHANGE_MS (host/email-change.ts), in place of any change of theirs still waiting; the
   * caller proves the password first and mails the link to `next` alone.
   */
  async askEmailChange(userId: string, next: unknown, at: Millis): Promise<Outcome<{ token: string; email: string }>> {
    const email = emailOf(next);
    if (email === null) return invalid("email", "the new email is not an email address");
    const { token, tokenHash } = newLinkToken();
    const asked = await this.apply((d) => withEmailChangeAsked(d, { userId, email, tokenHash, at, expiresAt: at + EMAIL_CHANGE_MS }));
    return typeof asked === "string" ? emailRefused(asked) : ok({ token, email });
  }

  /** Follows an email change's link: the user as they were (their sessions end) and their new email; refused when the link is not one (any longer), or the address is another user's by now. */
  async followEmailChange(token: string, at: Millis): Promise<Outcome<{ before: User; email: string }>> {
    const followed = await this.apply((d) => withEmailChangeFollowed(d, tokenHashOf(token), at));
    if (followed === null) return fail({ code: "not_found", what: "invitation" });
    return followed === "taken" ? emailRefused("taken") : ok({ before: userOf(followed.before), email: followed.email });
  }

  /** The user's email change waiting for its link (the new address, and until when), or null. */
  emailChangeWaiting(userId: string, at: Millis): { email: string; expiresAt: Millis } | null {
    return emailChangeWaiting(this.document, userId, at);
  }

  /** True when the user has a password (not a single sign-on user, nor one whose invitation is still unused). */
  hasPassword(userId: string): boolean {
    return (this.storedUser(userId)?.passwordHash ?? null) !== null;
  }

  /** Returns true when `password` is the user's (used before a change that asks for it again). */
  async passwordMatches(userId: string, password: string): Promise<boolean> {
    const hash = this.storedUser(userId)?.passwordHash ?? null;
    return verifyPassword(password, hash ?? this.decoy()).then((matches) => matches && hash !== null);
  }

  /** True when the user has turned the second factor on: a password alone then opens no session. */
  hasSecondFactor(userId: string): boolean {
    return (this.storedUser(userId)?.secondFactor ?? null) !== null;
  }

  /** Turns the second factor on with `secret` once `code` proves the app has it; returns the recovery codes (shown once). */
  async enableSecondFactor(userId: string, secret: string, code: string, at: Millis): Promise<Outcome<string[]>> {
    const step = await codeStep(secret, code.replace(/\s+/g, ""), { at, afterStep: null }); // "123 456", as many apps show it
    if (step === null) return invalid("code", "the code is not the app's current one: check the phone's clock and try the next code");
    const { codes, hashes } = newRecoveryCodes();
    const on = await this.editUser(userId, (u) => withSecondFactorOn(u, { secret, lastStep: step, recoveryHashes: hashes }));
    if (on === null) return fail({ code: "not_found", what: "user" });
    return on.edited === null ? invalid("code", "the second factor is already on: turn it off first to use a new secret") : ok(codes);
  }

  async disableSecondFactor(userId: string): Promise<void> {
    await this.editUser(userId, withSecondFactorOff);
  }

  /** Returns true when `code` is the user's current TOTP code (never one already used) or one of their unused recovery codes, which it uses up. */
  async checkSecondFactor(userId: string, code: string, at: Millis): Promise<boolean> {
    const factor = this.storedUser(userId)?.secondFactor ?? null;
    if (factor === null) return false;
    const step = await codeStep(factor.secret, code.replace(/\s+/g, ""), { at, afterStep: factor.lastStep });
    // again on the newest document: another sign-in may have used it
    const used = await this.editUser(userId, (u) => withCodeUsed(u, step, code));
    return (used?.edited ?? null) !== null;
  }
}

function emailRefused(why: EmailRefusal): Outcome<never> {
  if (why === "no_user") return fail({ code: "not_found", what: "user" });
  return invalid("email", why === "taken" ? "another user has this email" : "this is your email already");
}
