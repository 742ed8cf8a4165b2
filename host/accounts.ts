// Accounts: the users who sign in to the dashboard with an email and a password, their invitations and
// their roles in projects (CONTRACT "Users, roles and sign-in"). Held in memory, every change written
// through to DATA_DIR/accounts.json (persistence/accounts-file.ts) before it is answered.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Millis } from "../engine/model.ts";
import { DAY } from "../engine/model.ts";
import type { Outcome } from "../engine/outcome.ts";
import { fail, invalid, ok } from "../engine/outcome.ts";
import type { Role } from "../engine/roles.ts";
import type { AccountsDocument, StoredInvite, StoredMember, StoredUser } from "../persistence/accounts-file.ts";
import { AccountsFile, EMPTY_ACCOUNTS } from "../persistence/accounts-file.ts";
import { DECOY_HASH, hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from "./passwords.ts";

/** How long an invitation link opens its account (CONTRACT: 7 days). */
export const INVITE_MS = 7 * DAY;

export type User = { readonly id: string; readonly email: string };
export type NewUser = { readonly user: User; readonly inviteToken: string | null };

export class Accounts {
  readonly #file: AccountsFile | null;
  #document: AccountsDocument;

  private constructor(file: AccountsFile | null) {
    this.#file = file;
    this.#document = file?.load() ?? EMPTY_ACCOUNTS;
  }

  /** The accounts kept in `dataDir` (read now), or, without one, in memory only (tests of the HTTP edge). */
  static open(dataDir: string | null): Accounts {
    return new Accounts(dataDir === null ? null : new AccountsFile(dataDir));
  }

  /** Every user, oldest first. */
  listUsers(): User[] {
    return this.#document.users.map(userOf);
  }

  userById(id: string): User | null {
    const found = this.#document.users.find((u) => u.id === id);
    return found === undefined ? null : userOf(found);
  }

  /** Adds a user: with a password, or with an invitation token (returned once; only its hash is kept) that sets one within 7 days. */
  async createUser(input: { email: unknown; password?: unknown }, at: Millis): Promise<Outcome<NewUser>> {
    const email = emailOf(input.email);
    if (email === null) return invalid("email", "email must be an email address");
    if (input.password !== undefined && !isPassword(input.password)) return invalid("password", `password must be a string of ${MIN_PASSWORD_LENGTH} or more characters`);
    const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
    if (this.#document.users.some((u) => u.email === email)) return invalid("email", "a user with this email exists");
    const user: StoredUser = { id: randomUUID(), email, passwordHash, createdAt: at };
    const inviteToken = passwordHash === null ? randomBytes(32).toString("base64url") : null;
    const invites: StoredInvite[] = inviteToken === null ? [] : [{ tokenHash: sha256(inviteToken), userId: user.id, expiresAt: at + INVITE_MS }];
    this.#write({ ...this.#document, users: [...this.#document.users, user], invites: [...this.#document.invites, ...invites] });
    return ok({ user: userOf(user), inviteToken });
  }

  /** Removes a user with their invitations and roles; false when there is no such user. */
  deleteUser(id: string): boolean {
    const d = this.#document;
    if (!d.users.some((u) => u.id === id)) return false;
    this.#write({ users: d.users.filter((u) => u.id !== id), invites: d.invites.filter((i) => i.userId !== id), members: d.members.filter((m) => m.userId !== id) });
    return true;
  }

  /** Returns the user whose password this is, or null for a wrong password and an unknown email alike (both take one hash). */
  async signIn(emailText: string, password: string): Promise<User | null> {
    const email = emailOf(emailText);
    const user = email === null ? undefined : this.#document.users.find((u) => u.email === email);
    const matches = await verifyPassword(password, user?.passwordHash ?? DECOY_HASH);
    return matches && user?.passwordHash != null ? userOf(user) : null;
  }

  /** The user an unused, unexpired invitation token opens, or null. */
  invited(token: string, at: Millis): User | null {
    const invite = this.#invite(token, at);
    return invite === undefined ? null : this.userById(invite.userId);
  }

  /** Sets the password of the invited user and uses the invitation up. */
  async acceptInvite(token: string, password: unknown, at: Millis): Promise<Outcome<User>> {
    if (!isPassword(password)) return invalid("password", `password must be ${MIN_PASSWORD_LENGTH} or more characters`);
    const passwordHash = await hashPassword(password);
    const invite = this.#invite(token, at); // again: another request may have used it meanwhile
    if (invite === undefined) return fail({ code: "not_found", what: "invitation" });
    const d = this.#document;
    const user = d.users.find((u) => u.id === invite.userId);
    if (user === undefined) return fail({ code: "not_found", what: "invitation" });
    this.#write({ ...d,
      users: d.users.map((u) => (u === user ? { ...u, passwordHash } : u)),
      invites: d.invites.filter((i) => i !== invite && i.expiresAt > at) }); // used, and the expired ones with it
    return ok(userOf(user));
  }

  /** Gives `userId` `role` in `projectId` (replacing any role held there); false when there is no such user. */
  setRole(projectId: string, userId: string, role: Role): boolean {
    const d = this.#document;
    if (!d.users.some((u) => u.id === userId)) return false;
    const others = d.members.filter((m) => !(m.projectId === projectId && m.userId === userId));
    this.#write({ ...d, members: [...others, { projectId, userId, role }] });
    return true;
  }

  /** Takes the user's role in the project away; false when they held none. */
  removeMember(projectId: string, userId: string): boolean {
    const d = this.#document;
    const members = d.members.filter((m) => !(m.projectId === projectId && m.userId === userId));
    if (members.length === d.members.length) return false;
    this.#write({ ...d, members });
    return true;
  }

  /** The user's role in the project, or null when they have none. */
  roleIn(userId: string, projectId: string): Role | null {
    return this.#document.members.find((m) => m.userId === userId && m.projectId === projectId)?.role ?? null;
  }

  /** The projects the user holds a role in, with the role. */
  membershipsOf(userId: string): StoredMember[] {
    return this.#document.members.filter((m) => m.userId === userId);
  }

  #invite(token: string, at: Millis): StoredInvite | undefined {
    const hash = sha256(token);
    return this.#document.invites.find((i) => i.tokenHash === hash && i.expiresAt > at);
  }

  #write(document: AccountsDocument): void {
    this.#file?.save(document); // on disk before anyone is answered; a failed write leaves memory as it was
    this.#document = document;
  }
}

function userOf(user: StoredUser): User {
  return { id: user.id, email: user.email };
}

/** The email as kept (trimmed, lowercased), or null when it is not one. */
function emailOf(text: unknown): string | null {
  if (typeof text !== "string") return null;
  const email = text.trim().toLowerCase();
  return email.length <= 254 && /^[^\s@]+@[^\s@]+$/.test(email) ? email : null;
}

function isPassword(value: unknown): value is string {
  return typeof value === "string" && [...value].length >= MIN_PASSWORD_LENGTH && value.length <= 1024;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
