// SMTP has one reply per message, not per recipient: when the ping of one recipient fails after others
// were stored, the message is answered 451 and the sender retries all of it. This ledger remembers which
// recipients of such a message were already pinged, so its retry pings only the rest.
// A retry is recognised by the digest of its bytes: a mail server retries from its queue file, byte for
// byte. Only partly delivered messages are remembered, so a job that sends identical mails on purpose
// is never mistaken for a retry once a message went through whole.

/** Which checks each partly delivered message has pinged; bounded, the oldest messages forgotten first. */
export class RetryLedger {
  readonly #pinged = new Map<string, Set<string>>(); // message digest → check uuids, oldest message first
  readonly #maxEntries: number;
  #entries = 0;

  /** `maxEntries`: most (message, check) pairs kept; a message beyond it may ping its earlier checks again. */
  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
  }

  /** Returns true when this message already pinged this check. */
  pinged(digest: string, checkUuid: string): boolean {
    return this.#pinged.get(digest)?.has(checkUuid) ?? false;
  }

  /** Remembers that this message pinged these checks (and is expected back: it was answered 451). */
  remember(digest: string, checkUuids: readonly string[]): void {
    let checks = this.#pinged.get(digest);
    if (checks === undefined) {
      checks = new Set();
      this.#pinged.set(digest, checks);
    }
    for (const uuid of checkUuids) {
      if (checks.has(uuid)) continue;
      checks.add(uuid);
      this.#entries++;
    }
    for (const [oldest, its] of this.#pinged) {
      if (this.#entries <= this.#maxEntries) break;
      this.#pinged.delete(oldest);
      this.#entries -= its.size;
    }
  }

  /** Forgets a message that has now been delivered whole. */
  forget(digest: string): void {
    const checks = this.#pinged.get(digest);
    if (checks === undefined) return;
    this.#pinged.delete(digest);
    this.#entries -= checks.size;
  }

  /** How many (message, check) pairs are remembered. */
  get size(): number {
    return this.#entries;
  }
}
