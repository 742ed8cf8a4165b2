// Failed email sign-ins counted per account and per client address over a sliding 15 minutes: 10
// failures of either block further tries (429) until the oldest of them is 15 minutes old. An email
// without an account is counted like one with, so the limit says nothing about which emails exist.
import type { Millis } from "../../engine/model.ts";
import { MINUTE } from "../../engine/model.ts";
import { BoundedMap } from "../../lib/bounded-map.ts";

export const SIGN_IN_WINDOW_MS = 15 * MINUTE;
export const SIGN_IN_FAILURES = 10;
/** Accounts and addresses remembered at most; the oldest go first, so memory stays bounded whatever clients send. */
const MAX_KEYS = 20_000;

export class SignInLimits {
  readonly #failures = new BoundedMap<string, Millis[]>(MAX_KEYS);

  /** Returns true when any of `keys` ("address:…", "account:…") has had its limit of failures within the window before `at`. */
  isBlocked(keys: readonly string[], at: Millis): boolean {
    return keys.some((key) => this.#recent(key, at).length >= SIGN_IN_FAILURES);
  }

  /** Records one failure at `at` against each of `keys`. */
  count(keys: readonly string[], at: Millis): void {
    for (const key of keys) this.#failures.set(key, [...this.#recent(key, at), at].slice(-SIGN_IN_FAILURES));
  }

  #recent(key: string, at: Millis): Millis[] {
    return (this.#failures.get(key) ?? []).filter((failedAt) => failedAt > at - SIGN_IN_WINDOW_MS);
  }
}
