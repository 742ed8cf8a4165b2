// Accounts: the users who sign in to the dashboard with an email and a password, their invitations and
// their roles in projects (CONTRACT "Users, roles and sign-in"). Read from a copy in memory; every change
// is a function of the newest document, stored before it is answered: in DATA_DIR/accounts.json
// (persistence/accounts-file.ts) on a single node, in a replicated KV bucket in a cluster
// (cluster/replicated-accounts.ts), where a change that lost a race is made again on the winner's document.
import { randomUUID } from "node:crypto";
import type { Millis } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import { fail, invalid, ok } from "../engine/outcome.ts";
import type { Role } from "../engine/roles.ts";
import { lastOwnedBy, leavesNoOwner } from "../engine/roles.ts";
import type { AccountsDocument, StoredGrant, StoredInvite, StoredMember, StoredUser } from "../persistence/accounts-file.ts";
import { AccountsFile, EMPTY_ACCOUNTS } from "../persistence/accounts-file.ts";
import { decoyHash, hashPassword, isDjangoHash, MIN_PASSWORD_LENGTH, verifyPassword } from "./passwords.ts";
import { codeStep, newRecoveryCodes, withCodeUsed, withSecondFactorOff, withSecondFactorOn } from "./second-factor.ts";
import type { NewUserInput } from "./account-input.ts";
import { emailOf, isPassword, newUserOf } from "./account-input.ts";
import type { InviterKey, LinkKind, PendingInvite } from "./invitations.ts";
import {
  hasJoined,
  linkOf,
  newAccountInvite,
  newLinkToken,
  pendingInvitesOf,
  tokenHashOf,
  withGrantAccepted,
  withInviteAgain,
  withPasswordSet,
  withReset,
} from "./invitations.ts";
import type { EmailRefusal } from "./email-change.ts";
import { EMAIL_CHANGE_MS, emailChangeWaiting, withEmail, withEmailChangeAsked, withEmailChangeFollowed } from "./email-change.ts";

export { INVITE_MS, RESET_MS } from "./invitations.ts";
export { passwordProblem } from "./account-input.ts";
export type { PendingInvite };

/** A user as the admin API shows them; `admin`: an instance admin (does in the dashboard all that the admin token does). */
export type User = { readonly id: string; readonly email: string; readonly admin: boolean };
/** The role an invitation (or OIDC_DEFAULT_ROLE) gives in a project. */
export type Grant = StoredGrant;
export type NewUser = { readonly user: User; readonly inviteToken: string | null };

/** Where the document is kept. `change` applies `edit` to the newest document and stores the result (null: nothing to store); resolves with the document now stored. */
export type AccountsStore = {
  readonly initial: AccountsDocument;
  change(edit: (document: AccountsDocument) => AccountsDocument | null): Promise<AccountsDocument>;
  /** Hears a document stored by another node (cluster mode). */
  onStored?(listener: (document: AccountsDocument) => void): void;
};

export class Accounts {
  readonly #store: AccountsStore;
  #document: AccountsDocument;

  constructor(store: AccountsStore) {
    this.#store = store;
    this.#document = store.initial;
    store.onStored?.((document) => {
      this.#document = document;
    });
  }

  /** The accounts kept in `dataDir` (read now), or, without one, in memory only (tests of the HTTP edge). */
  static open(dataDir: string | null): Accounts {
    const file = dataDir === null ? null : new AccountsFile(dataDir);
    let current = file?.load() ?? EMPTY_ACCOUNTS;
    return new Accounts({
      initial: current,
      change: async (edit) => {
        const next = edit(current);
        if (next === null) return current;
        file?.save(next); // on disk before anyone is answered; a failed write leaves the document as it was
        current = next;
        return next;
      },
    });
  }

  /** Every user, oldest first. */
  listUsers(): User[] {
    return this.#document.users.map(userOf);
  }

  /** The id of the user with this email, or null. */
  userIdOfEmail(emailText: string): string | null {
    const email = emailOf(emailText);
    return this.#document.users.find((u) => u.email === email)?.id ?? null;
  }

  userById(id: string): User | null {
    const found = this.#document.users.find((u) => u.id === id);
    return found === undefined ? null : userOf(found);
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
      checked.value.passwordHash !== undefined ? checked.value.passwordHash : password === undefined ? null : await hashPassword(password);
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
    let taken = false;
    await this.#change((d) => {
      taken = d.users.some((u) => u.email === email);
      return taken ? null : { ...d, users: [...d.users, user], invites: [...d.invites, ...invites] };
    });
    return taken ? invalid("email", "a user with this email exists") : ok({ user: userOf(user), inviteToken: link?.token ?? null });
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
    const found = this.#document.users.find((u) => u.email === email);
    if (found === undefined && create === null) return null;
    if (found?.sso === true) return { user: userOf(found), granted: null };
    const made: StoredUser = { id: randomUUID(), email, passwordHash: null, createdAt: at, sso: true };
    let user: StoredUser = made,
      granted: StoredGrant | null = null;
    await this.#change((d) => {
      const existing = d.users.find((u) => u.email === email); // again on the newest document: another sign-in may have made them
      if (existing !== undefined) {
        user = existing;
        return existing.sso === true ? null : { ...d, users: d.users.map((u) => (u === existing ? { ...u, sso: true } : u)) };
      }
      if (create === null) return null; // removed meanwhile
      user = made;
      granted = create.grant;
      const members =
        create.grant === null ? d.members : [...d.members, { projectId: create.grant.projectId, userId: made.id, role: create.grant.role }];
      return { ...d, users: [...d.users, made], members };
    });
    return { user: userOf(user), granted };
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
    let outcome: { removed: StoredMember[] } | { lastOwnerOf: string[] } | null = null;
    await this.#change((d) => {
      const lastOwnerOf = opts.keepOwners === true ? lastOwnedBy(d.members, id) : [];
      outcome = !d.users.some((u) => u.id === id)
        ? null
        : lastOwnerOf.length > 0
          ? { lastOwnerOf }
          : { removed: d.members.filter((m) => m.userId === id) };
      return outcome === null || !("removed" in outcome)
        ? null
        : {
            users: d.users.filter((u) => u.id !== id),
            invites: d.invites.filter((i) => i.userId !== id),
            members: d.members.filter((m) => m.userId !== id),
          };
    });
    return outcome;
  }

  /** Makes the user an instance admin, or takes it away; false when there is no such user. */
  async setAdmin(userId: string, admin: boolean): Promise<boolean> {
    return this.#editUser(userId, (u) => ((u.admin === true) === admin ? null : { ...u, admin }));
  }

  /** True when the user exists and is an instance admin. */
  isAdmin(userId: string): boolean {
    return this.#document.users.find((u) => u.id === userId)?.admin === true;
  }

  /** The number of users (none yet: the first start's log and the sign-in page say how to make the first admin). */
  userCount(): number {
    return this.#document.users.length;
  }

  /** Returns the user whose password this is, or null for a wrong password and an unknown email alike (both take one hash). */
  async signIn(emailText: string, password: string): Promise<User | null> {
    const email = emailOf(emailText);
    const user = email === null ? undefined : this.#document.users.find((u) => u.email === email);
    const stored = user?.passwordHash ?? null;
    const matches = await verifyPassword(password, stored ?? decoyHash());
    if (!matches || user === undefined || stored === null) return null;
    if (isDjangoHash(stored)) {
      // brought over from Healthchecks: replaced by hcd's own now that the password is known
      const replaced = await hashPassword(password);
      await this.#editUser(user.id, (u) => (u.passwordHash === stored ? { ...u, passwordHash: replaced } : null));
    }
    return userOf(user);
  }

  /**
   * A one-use link's token that sets a new password for the user with this email within RESET_MS (the
   * invitation's machinery: only its hash is kept), or null when no user has this email.
   */
  async startReset(emailText: string, at: Millis): Promise<{ user: User; token: string } | null> {
    const email = emailOf(emailText);
    const { token, tokenHash } = newLinkToken();
    let user: StoredUser | undefined;
    await this.#change((d) => {
      const reset = withReset(d, email, tokenHash, at);
      user = reset?.user;
      return reset?.document ?? null;
    });
    return user === undefined ? null : { user: userOf(user), token };
  }

  /** The generation the user's sessions must have been opened under to go on (see StoredUser), or null when there is no such user. */
  sessionGeneration(userId: string): number | null {
    const user = this.#document.users.find((u) => u.id === userId);
    return user === undefined ? null : (user.sessionGeneration ?? 0);
  }

  /**
   * Replaces the password of a user who proves the current one; every session of the user ends (a new
   * generation). An invalid new password is refused before anything is checked.
   */
  async changePassword(userId: string, current: string, next: unknown): Promise<Outcome<User>> {
    if (!isPassword(next)) return invalid("password", `the new password must be ${MIN_PASSWORD_LENGTH} or more characters`);
    const stored = this.#document.users.find((u) => u.id === userId);
    if (stored === undefined) return fail({ code: "not_found", what: "user" });
    if (stored.passwordHash === null || !(await verifyPassword(current, stored.passwordHash)))
      return invalid("current", "the current password is wrong");
    const passwordHash = await hashPassword(next);
    const found = await this.#editUser(userId, (u) => ({ ...u, passwordHash, sessionGeneration: (u.sessionGeneration ?? 0) + 1 }));
    return found ? ok(userOf(stored)) : fail({ code: "not_found", what: "user" });
  }

  /**
   * Gives the user a new email at once (unique among users, as every email is) and ends every session of
   * theirs (a new generation); the caller proves the password first. Returns the user as they were (the old email).
   */
  async changeEmail(userId: string, next: unknown): Promise<Outcome<User>> {
    const email = emailOf(next);
    if (email === null) return invalid("email", "the new email is not an email address");
    let outcome = "no_user" as ReturnType<typeof withEmail>;
    await this.#change((d) => {
      outcome = withEmail(d, userId, email);
      return typeof outcome === "string" ? null : outcome.document;
    });
    return typeof outcome === "string" ? emailRefused(outcome) : ok(userOf(outcome.before));
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
    let outcome = "no_user" as AccountsDocument | EmailRefusal;
    await this.#change((d) => {
      outcome = withEmailChangeAsked(d, { userId, email, tokenHash, at, expiresAt: at + EMAIL_CHANGE_MS });
      return typeof outcome === "string" ? null : outcome;
    });
    return typeof outcome === "string" ? emailRefused(outcome) : ok({ token, email });
  }

  /** Follows an email change's link: the user as they were (their sessions end) and their new email; refused when the link is not one (any longer), or the address is another user's by now. */
  async followEmailChange(token: string, at: Millis): Promise<Outcome<{ before: User; email: string }>> {
    let outcome = null as ReturnType<typeof withEmailChangeFollowed>;
    await this.#change((d) => {
      outcome = withEmailChangeFollowed(d, tokenHashOf(token), at);
      return outcome === null || outcome === "taken" ? null : outcome.document;
    });
    if (outcome === null) return fail({ code: "not_found", what: "invitation" });
    return outcome === "taken" ? emailRefused("taken") : ok({ before: userOf(outcome.before), email: outcome.email });
  }

  /** The user's email change waiting for its link (the new address, and until when), or null. */
  emailChangeWaiting(userId: string, at: Millis): { email: string; expiresAt: Millis } | null {
    return emailChangeWaiting(this.#document, userId, at);
  }

  /** True when the user has a password (not a single sign-on user, nor one whose invitation is still unused). */
  hasPassword(userId: string): boolean {
    return (this.#document.users.find((u) => u.id === userId)?.passwordHash ?? null) !== null;
  }

  /** Returns true when `password` is the user's (used before a change that asks for it again). */
  async passwordMatches(userId: string, password: string): Promise<boolean> {
    const hash = this.#document.users.find((u) => u.id === userId)?.passwordHash ?? null;
    return verifyPassword(password, hash ?? decoyHash()).then((matches) => matches && hash !== null);
  }

  /** True when the user has turned the second factor on: a password alone then opens no session. */
  hasSecondFactor(userId: string): boolean {
    return (this.#document.users.find((u) => u.id === userId)?.secondFactor ?? null) !== null;
  }

  /** Turns the second factor on with `secret` once `code` proves the app has it; returns the recovery codes (shown once). */
  async enableSecondFactor(userId: string, secret: string, code: string, at: Millis): Promise<Outcome<string[]>> {
    const step = await codeStep(secret, code.replace(/\s+/g, ""), { at, afterStep: null }); // "123 456", as many apps show it
    if (step === null) return invalid("code", "the code is not the app's current one: check the phone's clock and try the next code");
    const { codes, hashes } = newRecoveryCodes();
    let onAlready = false;
    const found = await this.#editUser(userId, (u) => {
      const on = withSecondFactorOn(u, { secret, lastStep: step, recoveryHashes: hashes });
      onAlready = on === null;
      return on;
    });
    if (onAlready) return invalid("code", "the second factor is already on: turn it off first to use a new secret");
    return found ? ok(codes) : fail({ code: "not_found", what: "user" });
  }

  async disableSecondFactor(userId: string): Promise<void> {
    await this.#editUser(userId, withSecondFactorOff);
  }

  /** Returns true when `code` is the user's current TOTP code (never one already used) or one of their unused recovery codes, which it uses up. */
  async checkSecondFactor(userId: string, code: string, at: Millis): Promise<boolean> {
    const factor = this.#document.users.find((u) => u.id === userId)?.secondFactor ?? null;
    if (factor === null) return false;
    const step = await codeStep(factor.secret, code.replace(/\s+/g, ""), { at, afterStep: factor.lastStep });
    let accepted = false;
    await this.#editUser(userId, (u) => {
      const used = withCodeUsed(u, step, code); // again on the newest document: another sign-in may have used it
      accepted = used !== null;
      return used;
    });
    return accepted;
  }

  /** What an unused, unexpired link's token opens: its user, what it may do (host/invitations.ts), the role it gives and the email it makes theirs; null when nothing. */
  link(token: string, at: Millis): { user: User; kind: LinkKind; grant: StoredGrant | null; newEmail: string | null } | null {
    const link = linkOf(this.#document, tokenHashOf(token), at);
    return link === null
      ? null
      : { user: userOf(link.user), kind: link.kind, grant: link.invite.grant ?? null, newEmail: link.invite.newEmail ?? null };
  }

  /** True once the user has a password or has signed in through the identity provider (host/invitations.ts). */
  hasJoined(userId: string): boolean {
    const user = this.#document.users.find((u) => u.id === userId);
    return user !== undefined && hasJoined(user);
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
    let made: { token: string; setsPassword: boolean } | null = null;
    await this.#change((d) => {
      const invited = withInviteAgain(d, { userId, grant, tokenHash, at, inviter });
      made = invited === null ? null : { token, setsPassword: invited.setsPassword };
      return invited?.document ?? null;
    });
    return made;
  }

  /** The invitations to `projectId` not used yet and not expired at `at`, oldest first. */
  pendingInvites(projectId: string, at: Millis): PendingInvite[] {
    return pendingInvitesOf(this.#document, projectId, at);
  }

  /** Withdraws every unused invitation of `userId` to `projectId`: their links no longer give its role (the account stays); false when there was none. */
  async cancelInvites(projectId: string, userId: string): Promise<boolean> {
    const withdrawn = (i: StoredInvite) => i.userId === userId && i.grant?.projectId === projectId;
    let found = false;
    await this.#change((d) => {
      found = d.invites.some(withdrawn);
      return found ? { ...d, invites: d.invites.filter((i) => !withdrawn(i)) } : null;
    });
    return found;
  }

  /**
   * Sets the password through a reset link or an invitation that sets one (host/invitations.ts): the user's
   * sessions end, the invitation's own role (only it) is given, the link and the user's resets are used up.
   */
  async acceptInvite(token: string, password: unknown, at: Millis): Promise<Outcome<{ user: User; grant: StoredGrant | null }>> {
    if (!isPassword(password)) return invalid("password", `password must be ${MIN_PASSWORD_LENGTH} or more characters`);
    const passwordHash = await hashPassword(password);
    let set: { user: User; grant: StoredGrant | null } | null = null;
    await this.#change((d) => {
      const done = withPasswordSet(d, tokenHashOf(token), passwordHash, at);
      set = done === null ? null : { user: userOf(done.link.user), grant: done.link.invite.grant ?? null };
      return done?.document ?? null;
    });
    return set === null ? fail({ code: "not_found", what: "invitation" }) : ok(set);
  }

  /** Gives the signed-in user `userId` the role of the invitation `token` made for them, and uses it up; null when it is not theirs (or used, expired). */
  async acceptGrant(token: string, userId: string, at: Millis): Promise<StoredGrant | null> {
    let grant: StoredGrant | null = null;
    await this.#change((d) => {
      const done = withGrantAccepted(d, tokenHashOf(token), userId, at);
      grant = done?.grant ?? null;
      return done?.document ?? null;
    });
    return grant;
  }

  /**
   * Gives `userId` `role` in `projectId` (replacing any role held there): "no_user" when there is no such
   * user, "last_owner" (nothing changed) when they are the project's only owner and `role` is not owner.
   */
  async setRole(projectId: string, userId: string, role: Role): Promise<"set" | "no_user" | "last_owner"> {
    let outcome: "set" | "no_user" | "last_owner" = "no_user";
    await this.#change((d) => {
      outcome = !d.users.some((u) => u.id === userId)
        ? "no_user"
        : leavesNoOwner(d.members, projectId, userId, role)
          ? "last_owner"
          : "set";
      const others = d.members.filter((m) => !(m.projectId === projectId && m.userId === userId));
      return outcome === "set" ? { ...d, members: [...others, { projectId, userId, role }] } : null;
    });
    return outcome;
  }

  /** Takes the user's role in the project away: "not_member" when they held none, "last_owner" (nothing changed) when they are its only owner. */
  async removeMember(projectId: string, userId: string): Promise<"removed" | "not_member" | "last_owner"> {
    let outcome: "removed" | "not_member" | "last_owner" = "not_member";
    await this.#change((d) => {
      const members = d.members.filter((m) => !(m.projectId === projectId && m.userId === userId));
      outcome =
        members.length === d.members.length ? "not_member" : leavesNoOwner(d.members, projectId, userId, null) ? "last_owner" : "removed";
      return outcome === "removed" ? { ...d, members } : null;
    });
    return outcome;
  }

  /** The user's role in the project, or null when they have none. */
  roleIn(userId: string, projectId: string): Role | null {
    return this.#document.members.find((m) => m.userId === userId && m.projectId === projectId)?.role ?? null;
  }

  /** The projects the user holds a role in, with the role. */
  membershipsOf(userId: string): StoredMember[] {
    return this.#document.members.filter((m) => m.userId === userId);
  }

  /** The stored record of a user (its email reports' state among the rest), or null. */
  storedUser(id: string): StoredUser | null {
    return this.#document.users.find((u) => u.id === id) ?? null;
  }

  /**
   * Replaces one user's record by `edit`'s, made on the newest document (in a cluster, again on the winner's
   * when another node stored first); returns the record stored, or null when `edit` changed nothing or there
   * is no such user.
   */
  async updateUser(userId: string, edit: (user: StoredUser) => StoredUser | null): Promise<StoredUser | null> {
    let stored: StoredUser | null = null;
    await this.#editUser(userId, (user) => (stored = edit(user)));
    return stored;
  }

  /** Replaces one user's record by `edit`'s (null: nothing to change); false when there is no such user. */
  async #editUser(userId: string, edit: (user: StoredUser) => StoredUser | null): Promise<boolean> {
    let found = false;
    await this.#change((d) => {
      const user = d.users.find((u) => u.id === userId);
      found = user !== undefined;
      const edited = user === undefined ? null : edit(user);
      return edited === null ? null : { ...d, users: d.users.map((u) => (u === user ? edited : u)) };
    });
    return found;
  }

  async #change(edit: (document: AccountsDocument) => AccountsDocument | null): Promise<void> {
    this.#document = await this.#store.change(edit);
  }
}

function emailRefused(why: EmailRefusal): Outcome<never> {
  if (why === "no_user") return fail({ code: "not_found", what: "user" });
  return invalid("email", why === "taken" ? "another user has this email" : "this is your email already");
}

function userOf(user: StoredUser): User {
  return { id: user.id, email: user.email, admin: user.admin === true };
}
