// What the dashboard's sign-in keeps between two requests: the recent failures counted against an account
// or a client address, and the sign-ins whose password was right and whose second factor is still to
// come. One node keeps them in memory (MemorySignInStore); a cluster keeps them in a replicated bucket
// (cluster/sign-in-bucket.ts), so that a limit holds on every node and a code typed into another node than
// the password finishes the sign-in.
import type { Millis } from "../engine/model.ts";
import { BoundedMap } from "../lib/bounded-map.ts";

/** A sign-in waiting for its second factor: whose, and until when. */
export type PendingSignIn = { readonly userId: string; readonly email: string; readonly expiresAt: Millis };

export type SignInStore = {
  /** The failure times kept for `key` ("address:…", "account:…"), oldest first. */
  failures(key: string): Promise<readonly Millis[]>;
  /** Replaces the failure times of `key` by what `edit` makes of the stored ones (made again if another node changed them meanwhile). */
  editFailures(key: string, edit: (times: readonly Millis[]) => readonly Millis[]): Promise<void>;
  putPending(id: string, pending: PendingSignIn): Promise<void>;
  pending(id: string): Promise<PendingSignIn | null>;
  dropPending(id: string): Promise<void>;
};

/** Keys and pending sign-ins remembered at most: the oldest go first, so memory stays bounded whatever clients send. */
const MAX_KEYS = 20_000;
const MAX_PENDING = 10_000;

/** The sign-in state of one node, in memory (a restart forgets it, as it ends every session). */
export class MemorySignInStore implements SignInStore {
  readonly #failures = new BoundedMap<string, readonly Millis[]>(MAX_KEYS);
  readonly #pending = new BoundedMap<string, PendingSignIn>(MAX_PENDING);

  async failures(key: string): Promise<readonly Millis[]> {
    return this.#failures.get(key) ?? [];
  }

  async editFailures(key: string, edit: (times: readonly Millis[]) => readonly Millis[]): Promise<void> {
    this.#failures.set(key, edit(this.#failures.get(key) ?? []));
  }

  async putPending(id: string, pending: PendingSignIn): Promise<void> {
    this.#pending.set(id, pending);
  }

  async pending(id: string): Promise<PendingSignIn | null> {
    return this.#pending.get(id) ?? null;
  }

  async dropPending(id: string): Promise<void> {
    this.#pending.delete(id);
  }
}
