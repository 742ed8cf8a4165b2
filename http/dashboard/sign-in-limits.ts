// Failed sign-ins over a sliding 15 minutes, counted per (email, client address): 10 block that pair; and
// more loosely per email (100, from anywhere) and per address (100, over any emails), so a stranger's ten
// wrong passwords do not lock a user out from their own address, while a spread attack still meets a limit.
// An email without an account is counted like one with, so the limits say nothing about which emails exist.
//
// An attempt takes its place in every count before its password (or code) is checked, and gives it back
// only when it succeeds: requests sent at once can't all pass a check made before any of them is counted.
// The counts are kept in a SignInStore (host/sign-in-store.ts): in memory on one node, shared by every node
// of a cluster.
import type { Millis } from "../../engine/model.ts";
import { MINUTE } from "../../engine/model.ts";
import type { SignInStore } from "../../host/sign-in-store.ts";

export const SIGN_IN_WINDOW_MS = 15 * MINUTE;
/** Failures of one email from one client address. */
export const SIGN_IN_FAILURES = 10;
/** Failures of one email from every address, and of one address over every email. */
export const SIGN_IN_FAILURES_LOOSE = 100;

/** A count and its limit: "pair:<email> <address>", "account:<email>", "address:<address>" (or a reset's). */
export type LimitKey = { readonly key: string; readonly limit: number };

/** The counts a password or code attempt of `email` from `address` takes part in. */
export function signInKeys(email: string, address: string): LimitKey[] {
  return [
    { key: `pair:${email} ${address}`, limit: SIGN_IN_FAILURES },
    { key: `account:${email}`, limit: SIGN_IN_FAILURES_LOOSE },
    { key: `address:${address}`, limit: SIGN_IN_FAILURES_LOOSE },
  ];
}

/** An attempt that holds its place in the counts: it stays counted as a failure unless it succeeded. */
export type Attempt = { succeeded(): Promise<void> };

export class SignInLimits {
  readonly #store: SignInStore;

  constructor(store: SignInStore) {
    this.#store = store;
  }

  /**
   * Counts an attempt at `at` against each key, as a failure until it succeeds; null (nothing counted) when
   * any key has had its limit of failures within the window before `at`, or other nodes' attempts kept
   * changing a count first.
   */
  async attempt(keys: readonly LimitKey[], at: Millis): Promise<Attempt | null> {
    const taken: LimitKey[] = [];
    for (const limit of keys) {
      // one at a time: a blocked key gives back those taken before it
      const stored = await this.#store.editFailures(limit.key, (times) => {
        const kept = recent(times, at);
        return kept.length >= limit.limit ? null : [...kept, at];
      });
      if (!stored) {
        await this.#giveBack(taken, at);
        return null;
      }
      taken.push(limit);
    }
    return { succeeded: () => this.#giveBack(taken, at) };
  }

  async #giveBack(keys: readonly LimitKey[], at: Millis): Promise<void> {
    await Promise.all(
      keys.map((limit) =>
        this.#store.editFailures(limit.key, (times) => {
          const i = times.indexOf(at);
          return i < 0 ? null : [...times.slice(0, i), ...times.slice(i + 1)];
        }),
      ),
    );
  }
}

function recent(times: readonly Millis[], at: Millis): Millis[] {
  return times.filter((failedAt) => failedAt > at - SIGN_IN_WINDOW_MS);
}
