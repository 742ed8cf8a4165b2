// When the pool's shards judge their deadlines: each up to its watermark, just before the earliest stamp of
// a ping for it still on its way, so a ping acknowledged before a deadline always reaches its shard first.
import type { Downtime, Millis } from "../engine/model.ts";
import type { ClockMark } from "../persistence/clock-mark.ts";
import type { Clock } from "./clock.ts";
import type { DeadlineTicker } from "./deadline-ticker.ts";
import { startDeadlineTicker } from "./deadline-ticker.ts";
import type { PingBatches } from "./ping-batches.ts";
import type { PingIntake } from "./ping-intake.ts";
import type { ShardHandle } from "./shard-requests.ts";

/**
 * Where pings by check uuid are acknowledged before their shard applies them: this process's intake log
 * (ping-intake.ts), or in cluster mode the cluster's intake stream (cluster/intake-stream.ts).
 */
export type PingAcknowledger = Pick<PingIntake, "send" | "drain" | "earliestUnhandedAt" | "probe" | "close">;

export class PoolDeadlines {
  readonly #shards: readonly ShardHandle[];
  readonly #pings: PingBatches;
  readonly #intake: () => PingAcknowledger | null;
  #mark: ClockMark | null = null;
  #ticker: DeadlineTicker | null = null;

  /** `intake`: the pool's acknowledger of pings by uuid, once it has one. */
  constructor(shards: readonly ShardHandle[], pings: PingBatches, intake: () => PingAcknowledger | null) {
    this.#shards = shards;
    this.#pings = pings;
    this.#intake = intake;
  }

  /** Applies every deadline due by `now` on every shard, after every ping stamped so far has reached its shard. */
  async advance(now: Millis): Promise<void> {
    await this.#intake()?.drain(); // every ping stamped so far reaches its shard before the deadlines after it
    await Promise.all(this.#shards.map((s) => s.apply({ kind: "advance", at: now })));
    this.#mark?.record(now);
  }

  /**
   * Keeps in `mark` how far deadlines were judged, and with `clock` (a real one) judges them every second
   * from now on (host/deadline-ticker.ts), until stopped.
   */
  judgeFromNowOn(mark: ClockMark | null, clock: Clock | null): void {
    this.#mark = mark;
    if (clock !== null) this.#ticker = startDeadlineTicker(this, clock, mark);
  }

  /**
   * Judges each shard's deadlines up to its watermark (see watermarkOf), then checkpoints the shards that
   * are due; returns the instant every shard has judged up to. The deadline ticker's call.
   */
  async judgeDeadlines(now: Millis): Promise<Millis> {
    const judged = await Promise.all(
      this.#shards.map(async (s, index) => {
        const at = this.watermarkOf(index, now);
        await s.apply({ kind: "tick", at });
        return at;
      }),
    );
    return Math.min(...judged);
  }

  /**
   * Returns how far shard `index` may judge deadlines at `now`: up to just before the earliest stamp of a
   * ping for it that is not yet on its way (its intake write has not returned, or it waits for the batch
   * in flight), else up to `now`. Every ping stamped earlier has been sent to the shard already, and the
   * shard takes its messages in order, so it applies them before judging the deadlines they bear on.
   */
  watermarkOf(index: number, now: Millis): Millis {
    const writing = this.#intake()?.earliestUnhandedAt(index) ?? null;
    const waiting = this.#pings.earliestWaitingAt(index);
    return Math.min(now, writing === null ? now : writing - 1, waiting === null ? now : waiting - 1);
  }

  /**
   * Returns the earliest stamp of this process's pings for shard `index` not yet answered (waiting or in
   * flight), or null. In cluster mode the shard is a partition another node may own; that owner must not
   * judge deadlines past a ping still on its way to it (cluster/ping-watermarks.ts).
   */
  earliestUnansweredPingAt(index: number): Millis | null {
    const batched = this.#pings.earliestUnansweredAt(index),
      acknowledging = this.#intake()?.earliestUnhandedAt(index) ?? null;
    return batched === null ? acknowledging : acknowledging === null ? batched : Math.min(batched, acknowledging);
  }

  /**
   * Starts judging deadlines after a start-up: with `downtime` (hcd was not running then), the checks
   * whose deadline fell in it are held first (engine/alerting.ts holdForDowntime); then every deadline
   * due by `at` is applied. Returns how many checks the downtime holds.
   */
  async resumeAfter(downtime: Downtime | null, at: Millis): Promise<number> {
    const held = downtime === null ? [0] : await Promise.all(this.#shards.map((s) => s.apply({ kind: "holdForDowntime", downtime, at })));
    await this.advance(at);
    return held.reduce((a, b) => a + b, 0);
  }

  /** Stops the ticker, after the judging under way. */
  async stop(): Promise<void> {
    await this.#ticker?.stop();
  }
}
