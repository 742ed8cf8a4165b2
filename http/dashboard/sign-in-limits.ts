// Failed email sign-ins counted per account and per client address over a sliding 15 minutes: 10
// failures of either block further tries (429) until the oldest of them is 15 minutes old. An email
// without an account is counted like one with, so the limit says nothing about which emails exist.
// The counts are kept in a SignInStore (host/sign-in-store.ts): in memory on one node, shared by every
// node of a cluster.
import type { Millis } from "../../engine/model.ts";
import { MINUTE } from "../../engine/model.ts";
import type { SignInStore } from "../../host/sign-in-store.ts";

export const SIGN_IN_WINDOW_MS = 15 * MINUTE;
export const SIGN_IN_FAILURES = 10;

export class SignInLimits {
  readonly #store: SignInStore;

  constructor(store: SignInStore) {
    this.#store = store;
  }

  /** Returns true when any of `keys` ("address:…", "account:…") has had its limit of failures within the window before `at`. */
  async isBlocked(keys: readonly string[], at: Millis): Promise<boolean> {
    const counts = await Promise.all(keys.map(async (key) => recent(await this.#store.failures(key), at).length));
    return counts.some((count) => count >= SIGN_IN_FAILURES);
  }

  /** Records one failure at `at` against each of `keys`. */
  async count(keys: readonly string[], at: Millis): Promise<void> {
    await Promise.all(keys.map((key) => this.#store.editFailures(key, (times) => [...recent(times, at), at].slice(-SIGN_IN_FAILURES))));
  }
}

function recent(times: readonly Millis[], at: Millis): Millis[] {
  return times.filter((failedAt) => failedAt > at - SIGN_IN_WINDOW_MS);
}
