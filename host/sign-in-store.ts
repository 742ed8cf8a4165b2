// What the dashboard's sign-in keeps between two requests: the recent failures counted against an account
// or a client address, and the sign-ins whose password was right and whose second factor is still to
// come, and the single sign-ons started with the identity provider. One node keeps them in memory
// (MemorySignInStore); a cluster keeps them in a replicated bucket (cluster/sign-in-bucket.ts), so that a
// limit holds on every node, a code typed into another node than the password finishes the sign-in, and
// the provider's redirect may come back to any node.
import type { Millis } from "../engine/model.ts";
import { BoundedMap } from "../lib/bounded-map.ts";

/** A sign-in waiting for its second factor: whose, and until when. */
export type PendingSignIn = { readonly userId: string; readonly email: string; readonly expiresAt: Millis };

/** A single sign-on started with the identity provider (host/oidc.ts's OidcStart), kept by its state until it expires. */
export type SsoStart = {
  readonly url: string;
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
  readonly expiresAt: Millis;
};

export type SignInStore = {
  /** The failure times kept for `key` ("address:…", "account:…"), oldest first. */
  failures(key: string): Promise<readonly Millis[]>;
  /**
   * Replaces the failure times of `key` by what `edit` makes of the stored ones (null: leave them), made again
   * on the newer times if another node changed them meanwhile. Resolves true once `edit`'s times are stored;
   * false when `edit` left them, or when other nodes kept changing them first (a burst: the caller refuses).
   */
  editFailures(key: string, edit: (times: readonly Millis[]) => readonly Millis[] | null): Promise<boolean>;
  putPending(id: string, pending: PendingSignIn): Promise<void>;
  pending(id: string): Promise<PendingSignIn | null>;
  dropPending(id: string): Promise<void>;
  putSsoStart(start: SsoStart): Promise<void>;
  /** Returns the start of `state` and forgets it, or null when unknown or taken already (by any node: once only). */
  takeSsoStart(state: string): Promise<SsoStart | null>;
};

/** Keys and pending sign-ins remembered at most: the oldest go first, so memory stays bounded whatever clients send. */
const MAX_KEYS = 20_000;
const MAX_PENDING = 10_000;

/** The sign-in state of one node, in memory (a restart forgets it, as it ends every session). */
export class MemorySignInStore implements SignInStore {
  readonly #failures = new BoundedMap<string, readonly Millis[]>(MAX_KEYS);
  readonly #pending = new BoundedMap<string, PendingSignIn>(MAX_PENDING);
  readonly #sso = new BoundedMap<string, SsoStart>(MAX_PENDING);

  async failures(key: string): Promise<readonly Millis[]> {
    return this.#failures.get(key) ?? [];
  }

  async editFailures(key: string, edit: (times: readonly Millis[]) => readonly Millis[] | null): Promise<boolean> {
    const edited = edit(this.#failures.get(key) ?? []); // read and written in one turn: nothing comes between
    if (edited === null) return false;
    this.#failures.set(key, edited);
    return true;
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

  async putSsoStart(start: SsoStart): Promise<void> {
    this.#sso.set(start.state, start);
  }

  async takeSsoStart(state: string): Promise<SsoStart | null> {
    const start = this.#sso.get(state) ?? null;
    this.#sso.delete(state);
    return start;
  }
}
