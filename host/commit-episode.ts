// A shard host's failed-commit episode: the shard applied the failed commit's changes, so it is rebuilt from
// the store once no commit is in flight, and nothing is applied until a probe write as large as the failed
// record succeeds (every PROBE_EVERY_MS).

// After a failed commit, how often the host tries a write of the same size to learn that the store
// accepts writes again (changes are refused until then).
const PROBE_EVERY_MS = 1_000;

/** What the episode asks of its host. */
export type EpisodeHooks = {
  /** Replaces the shard with one loaded from the store; false when that failed (the next probe tries again). */
  rebuild(): boolean;
  /** Whether a write of `bytes` may be tried now (the store's write-failure backoff). */
  mayTry(bytes: number): boolean;
  probeWrite(bytes: number): Promise<void>;
  /** The probe's write succeeded: changes are accepted again. */
  recovered(): void;
  probeFailed(error: unknown): void;
};

export class CommitEpisode {
  readonly #hooks: EpisodeHooks;
  #committing = 0; // commits in flight
  #stale = false; // the shard holds changes of a failed commit: rebuild once no commit is in flight
  #probeBytes = 0; // the size of the largest failed commit's record this episode
  #probing: ReturnType<typeof setInterval> | null = null;

  constructor(hooks: EpisodeHooks) {
    this.#hooks = hooks;
  }

  /** True from a failed commit until a probe write succeeds: changes are refused meanwhile. */
  get failing(): boolean {
    return this.#probing !== null;
  }

  /** A commit is under way. */
  started(): void {
    this.#committing++;
  }

  /** A commit ended (stored or failed): the last one out rebuilds a stale shard. */
  settled(): void {
    this.#committing--;
    if (this.#stale && this.#committing === 0) this.#rebuild();
  }

  /** A commit of `bytes` failed after the shard applied it: the episode begins (or goes on). */
  failed(bytes: number): void {
    this.#stale = true;
    this.#probeBytes = Math.max(this.#probeBytes, bytes);
    this.#startProbing();
  }

  stop(): void {
    if (this.#probing !== null) clearInterval(this.#probing);
    this.#probing = null;
  }

  #rebuild(): void {
    if (this.#hooks.rebuild()) this.#stale = false;
  }

  #startProbing(): void {
    if (this.#probing !== null) return;
    let busy = false;
    this.#probing = setInterval(() => {
      if (busy || this.#committing > 0) return;
      if (this.#stale) this.#rebuild();
      if (this.#stale || !this.#hooks.mayTry(this.#probeBytes)) return;
      busy = true;
      this.#hooks
        .probeWrite(this.#probeBytes)
        .then(
          () => {
            this.stop();
            this.#probeBytes = 0;
            this.#hooks.recovered();
          },
          (error: unknown) => this.#hooks.probeFailed(error),
        )
        .finally(() => {
          busy = false;
        });
    }, PROBE_EVERY_MS);
    this.#probing.unref();
  }
}
