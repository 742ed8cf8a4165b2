// Users, their invitations and their roles in projects, in DATA_DIR/accounts.json: a small document
// written whole on every change (a temporary file, synced, renamed over the old one, the directory
// synced), so a crash leaves the old document or the new one, never a mix.
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Millis } from "../engine/model.ts";
import type { Role } from "../engine/roles.ts";

/** The file's name in DATA_DIR (backups carry it under the same name). */
export const ACCOUNTS_FILE = "accounts.json";
const FILE = ACCOUNTS_FILE;

export type StoredUser = {
  readonly id: string;
  readonly email: string;
  /** "scrypt$N$r$p$salt$key" (host/passwords.ts), or null while the invitation is not used. */
  readonly passwordHash: string | null;
  readonly createdAt: Millis;
  /** The TOTP second factor when turned on: its secret (base32), the last time step used (no code twice), the SHA-256 of each unused recovery code. */
  readonly secondFactor?: StoredSecondFactor | null;
  /**
   * Moves on each change that must end the user's sessions (a new password, the second factor on or off):
   * a session opened under another generation is over, on every node (absent: 0).
   */
  readonly sessionGeneration?: number;
  /** Who invited the account into being ("admin", or "<project id> <user id>"): only their re-invitation may set its password (host/invitations.ts). */
  readonly openedBy?: string;
  /** True once the user signed in through the identity provider: they have joined, without a password. */
  readonly sso?: boolean;
  /** Email reports (host/report-claims.ts): how often, the last period reported, and a report being sent; absent = none. */
  readonly reports?: StoredReports;
  /** An instance admin: in the dashboard they do all that the admin token does (absent: false). */
  readonly admin?: boolean;
};
/**
 * A user's email reports: `every` week or month; `doneUpTo` the label of the last period reported (or of the
 * one before the user chose them); `claim` a report being sent: its period, the node sending it and since when.
 */
export type StoredReports = {
  readonly every: "weekly" | "monthly";
  readonly doneUpTo: string;
  readonly claim?: { readonly period: string; readonly by: string; readonly at: Millis };
};
export type StoredSecondFactor = { readonly secret: string; readonly lastStep: number; readonly recoveryHashes: readonly string[] };
/**
 * An invitation (or, without a grant, a reset or an email change's confirmation): only the SHA-256 of its token is kept, so the file does not
 * open accounts; `grant`: the role its use gives; `setsPassword`: false when its link only gives the role to
 * the user signed in (host/invitations.ts; absent in older records: true).
 */
export type StoredInvite = {
  readonly tokenHash: string;
  readonly userId: string;
  readonly expiresAt: Millis;
  readonly grant?: StoredGrant;
  readonly setsPassword?: boolean;
  /** Who made it ("admin", or "<project id> <user id>"): their new invitation of the same user to the same project replaces it. */
  readonly invitedBy?: string;
  /** An email change waiting for its link to be followed (host/email-change.ts): the address the link went to, the user's once it is. */
  readonly newEmail?: string;
};
export type StoredGrant = { readonly projectId: string; readonly role: Role };
export type StoredMember = { readonly projectId: string; readonly userId: string; readonly role: Role };

export type AccountsDocument = {
  readonly users: readonly StoredUser[];
  readonly invites: readonly StoredInvite[];
  readonly members: readonly StoredMember[];
};

export const EMPTY_ACCOUNTS: AccountsDocument = { users: [], invites: [], members: [] };

/** Where the accounts of one DATA_DIR are kept. */
export class AccountsFile {
  readonly #dir: string;

  constructor(dataDir: string) {
    this.#dir = dataDir;
  }

  /** Returns the stored document, or the empty one when there is none yet. */
  load(): AccountsDocument {
    const path = join(this.#dir, FILE);
    if (!existsSync(path)) return EMPTY_ACCOUNTS;
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<AccountsDocument>;
    return { users: parsed.users ?? [], invites: parsed.invites ?? [], members: parsed.members ?? [] };
  }

  /** Replaces the stored document; returns once it is on disk. */
  save(document: AccountsDocument): void {
    const path = join(this.#dir, FILE);
    const temporary = `${path}.tmp`;
    writeFileSync(temporary, JSON.stringify(document), { mode: 0o600 }); // password hashes and TOTP secrets: the owner's alone
    const fd = openSync(temporary, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
    const dir = openSync(this.#dir, "r");
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
  }
}
