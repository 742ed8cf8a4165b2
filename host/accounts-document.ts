// The accounts document as Accounts (host/accounts.ts) holds it: a copy in memory, read at once; every change
// a rule over the newest document (host/user-records.ts and its neighbours), stored before it is answered.
import type { AccountsDocument, StoredUser } from "../persistence/accounts-file.ts";
import { decoyHash, DEFAULT_PASSWORD_HASH_N, hashPassword } from "./passwords.ts";
import { withUserEdited } from "./user-records.ts";

/** A user as the admin API shows them; `admin`: an instance admin (does in the dashboard all that the admin token does). */
export type User = { readonly id: string; readonly email: string; readonly admin: boolean };

/** Where the document is kept. `change` applies `edit` to the newest document and stores the result (null: nothing to store); resolves with the document now stored. */
export type AccountsStore = {
  readonly initial: AccountsDocument;
  change(edit: (document: AccountsDocument) => AccountsDocument | null): Promise<AccountsDocument>;
  /** Hears a document stored by another node (cluster mode). */
  onStored?(listener: (document: AccountsDocument) => void): void;
};

/** What a rule over the document answers: with a `document`, the one to store (null: nothing); a refusal (a string) or null stores nothing. */
export type Edited = { readonly document: AccountsDocument | null } | string | null;

/** `passwordHashN`: scrypt's cost for the password hashes made (PASSWORD_HASH_N; the default unless a test instance lowers it). */
export type AccountsOptions = { readonly passwordHashN?: number };

/** Holds the newest accounts document and applies rules to it; host/account-memberships.ts and host/accounts.ts build on it. */
export class AccountsDocumentHolder {
  readonly #store: AccountsStore;
  readonly #passwordHashN: number;
  #document: AccountsDocument;

  constructor(store: AccountsStore, options: AccountsOptions = {}) {
    this.#store = store;
    this.#passwordHashN = options.passwordHashN ?? DEFAULT_PASSWORD_HASH_N;
    this.#document = store.initial;
    store.onStored?.((document) => {
      this.#document = document;
    });
  }

  /** The newest document this node knows (its own last change, or another node's heard since). */
  protected get document(): AccountsDocument {
    return this.#document;
  }

  /** `password`'s stored form, at this instance's cost. */
  protected hash(password: string): Promise<string> {
    return hashPassword(password, this.#passwordHashN);
  }

  /** The hash an unknown email's password is checked against, at the same cost as a user's, so both answers take as long. */
  protected decoy(): string {
    return decoyHash(this.#passwordHashN);
  }

  /** The stored record of a user (its email reports' state among the rest), or null. */
  storedUser(id: string): StoredUser | null {
    return this.document.users.find((u) => u.id === id) ?? null;
  }

  /**
   * Replaces one user's record by `edit`'s, made on the newest document (in a cluster, again on the winner's
   * when another node stored first); returns the record stored, or null when `edit` changed nothing or there
   * is no such user.
   */
  async updateUser(userId: string, edit: (user: StoredUser) => StoredUser | null): Promise<StoredUser | null> {
    return (await this.editUser(userId, edit))?.edited ?? null;
  }

  /** Replaces one user's record by `edit`'s (`edited`; null: nothing to change); null when there is no such user. */
  protected editUser(userId: string, edit: (user: StoredUser) => StoredUser | null): Promise<{ edited: StoredUser | null } | null> {
    return this.apply((d) => withUserEdited(d, userId, edit));
  }

  /** Applies a rule to the newest document, stores the document it answers with, if any (in a cluster, made again on the winner's when another node stored first), and returns its answer. */
  protected async apply<R extends Edited>(edit: (document: AccountsDocument) => R): Promise<R> {
    let answer: R | undefined;
    this.#document = await this.#store.change((d) => {
      const edited = edit(d);
      answer = edited;
      return typeof edited === "object" && edited !== null ? edited.document : null;
    });
    return answer as R;
  }
}

export function userOf(user: StoredUser): User {
  return { id: user.id, email: user.email, admin: user.admin === true };
}
