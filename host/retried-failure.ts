// A failure that is retried until it succeeds, as an episode (the pattern of host/write-failures.ts):
// the first failure is reported, the retries that fail again are only counted (a retry a second would
// otherwise log a line a second), and the first success after them ends the episode with one more
// report. The one home of that rule: a shard's rebuilds use it, and the cluster's background work
// (host/failure-episodes.ts) keeps one per subject.
import { log } from "./log.ts";

/** What an episode reports: its first failure, and its end after `failures` failed attempts in `seconds`. */
export type EpisodeReports = {
  readonly started: (error: unknown) => void;
  readonly ended: (failures: number, seconds: string) => void;
};

export class RetriedFailure {
  readonly #reports: EpisodeReports;
  #failures = 0; // in the episode that lasts, 0 when none does
  #since = 0;

  /**
   * `what`: the operation, as the log lines name it ("shard 0: rebuilding from the store"), written as
   * lines by `write` (default: the log, as errors); or the reports themselves.
   */
  constructor(what: string | EpisodeReports, write: (line: string) => void = (line) => log.error(line)) {
    this.#reports =
      typeof what !== "string"
        ? what
        : {
            started: (error) =>
              write(
                `${what} failed (${error instanceof Error ? error.message : String(error)}); retrying, further failures are counted, not logged`,
              ),
            ended: (failures, seconds) => write(`${what} succeeded after ${failures} failed attempts in ${seconds} s`),
          };
  }

  /** True while an episode lasts. */
  get failing(): boolean {
    return this.#failures > 0;
  }

  /** The failed attempts of the episode that lasts (0 when none does). */
  get streak(): number {
    return this.#failures;
  }

  /** Records a failed attempt; reports only the first of an episode. */
  failed(error: unknown): void {
    if (this.#failures++ > 0) return;
    this.#since = Date.now();
    this.#reports.started(error);
  }

  /** Records a successful attempt; ends the episode, if one lasts, with one report. */
  succeeded(): void {
    if (this.#failures === 0) return;
    const seconds = ((Date.now() - this.#since) / 1000).toFixed(1);
    this.#reports.ended(this.#failures, seconds);
    this.#failures = 0;
  }
}
