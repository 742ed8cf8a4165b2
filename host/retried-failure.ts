// A failure that is retried until it succeeds, as an episode (the pattern of host/write-failures.ts):
// the first failure is logged, the retries that fail again are counted and not logged (a retry a second
// would otherwise log a line a second), and the first success after them ends the episode with one line.
import { log } from "./log.ts";

export class RetriedFailure {
  readonly #what: string;
  readonly #log: (line: string) => void;
  #failures = 0; // in the episode that lasts, 0 when none does
  #since = 0;

  /** `what`: the operation, as the log lines name it ("shard 0: rebuilding from the store"). */
  constructor(what: string, write: (line: string) => void = (line) => log.error(line)) {
    this.#what = what;
    this.#log = write;
  }

  /** True while an episode lasts. */
  get failing(): boolean {
    return this.#failures > 0;
  }

  /** Records a failed attempt; logs only the first of an episode. */
  failed(error: unknown): void {
    if (this.#failures++ > 0) return;
    this.#since = Date.now();
    this.#log(`${this.#what} failed (${error instanceof Error ? error.message : String(error)}); retrying, further failures are counted, not logged`);
  }

  /** Records a successful attempt; ends the episode, if one lasts, with one line. */
  succeeded(): void {
    if (this.#failures === 0) return;
    const seconds = ((Date.now() - this.#since) / 1000).toFixed(1);
    this.#log(`${this.#what} succeeded after ${this.#failures} failed attempts in ${seconds} s`);
    this.#failures = 0;
  }
}
