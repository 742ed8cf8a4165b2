// Failures of background work that no request reports (a cluster partition's takeover, snapshot or
// advance, an ownership round) as episodes, one per subject (host/retried-failure.ts): the first failure
// of a subject is logged, the ones after it only counted, and the first success after them ends the
// episode with one more line. /metrics reads the counts: how many failed in all, how many subjects are
// failing now, and the longest streak.
import { log } from "./log.ts";
import { RetriedFailure } from "./retried-failure.ts";

export const BACKGROUND_WORK = ["takeover", "snapshot", "advance", "ownership_round"] as const;
export type BackgroundWork = (typeof BACKGROUND_WORK)[number];

/** Per kind of work: failures in all, subjects failing now, and the most failures in a row among them. */
export type EpisodeCounts = Record<BackgroundWork, { readonly failures: number; readonly failing: number; readonly streak: number }>;

/** Where an episode's two lines go (default: the log, a warning and an info line). */
export type EpisodeLog = (level: "warn" | "info", fields: Record<string, unknown>, message: string) => void;

export class FailureEpisodes {
  readonly #failures = new Map<BackgroundWork, number>();
  readonly #ongoing = new Map<string, RetriedFailure>(); // by `${work} ${subject}`, while an episode lasts
  readonly #log: EpisodeLog;

  constructor(write: EpisodeLog = (level, fields, message) => log[level](fields, message)) {
    this.#log = write;
  }

  /** Counts a failure of `work` on `subject` (a partition, or the node); logs only the first of an episode. */
  failed(work: BackgroundWork, subject: string, error: unknown): void {
    this.#failures.set(work, (this.#failures.get(work) ?? 0) + 1);
    const key = `${work} ${subject}`;
    let episode = this.#ongoing.get(key);
    if (episode === undefined) {
      episode = new RetriedFailure({
        started: (err) =>
          this.#log(
            "warn",
            { work, subject, err },
            "cluster: background work failed; further failures are counted in /metrics until it succeeds",
          ),
        ended: (failures, seconds) => this.#log("info", { work, subject, failures, seconds }, "cluster: background work succeeds again"),
      });
      this.#ongoing.set(key, episode);
    }
    episode.failed(error);
  }

  /** Ends the episode of `work` on `subject`, if one lasts. */
  succeeded(work: BackgroundWork, subject: string): void {
    const key = `${work} ${subject}`;
    this.#ongoing.get(key)?.succeeded();
    this.#ongoing.delete(key);
  }

  /** Ends every episode on `subject` without a word (a partition that went to another node: its work is not this one's). */
  forget(subject: string): void {
    for (const key of [...this.#ongoing.keys()]) if (key.slice(key.indexOf(" ") + 1) === subject) this.#ongoing.delete(key);
  }

  counts(): EpisodeCounts {
    const counts = Object.fromEntries(
      BACKGROUND_WORK.map((work) => [work, { failures: this.#failures.get(work) ?? 0, failing: 0, streak: 0 }]),
    ) as Record<BackgroundWork, { failures: number; failing: number; streak: number }>;
    for (const [key, episode] of this.#ongoing) {
      const entry = counts[key.slice(0, key.indexOf(" ")) as BackgroundWork];
      entry.failing += 1;
      entry.streak = Math.max(entry.streak, episode.streak);
    }
    return counts;
  }
}
