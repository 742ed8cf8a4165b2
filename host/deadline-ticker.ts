// Deadlines of every shard, judged from the front end's thread once a second, each shard up to its
// watermark: the earliest stamp of a ping for it not yet on its way (PoolDeadlines.watermarkOf). A ping
// acknowledged before a deadline therefore always reaches its shard before the deadline is judged, by
// the order of messages, not by a delay. The instant every shard has judged up to is kept in the clock
// mark, which tells the next start since when hcd was not running.
import type { Clock } from "./clock.ts";
import type { ClockMark } from "../persistence/clock-mark.ts";
import type { Millis } from "../engine/model.ts";
import { log } from "./log.ts";

const TICK_MS = 1_000;

export type DeadlineTicker = { stop(): Promise<void> };

/** What the ticker judges: the pool's deadlines up to `now`, answering the instant every shard has judged up to. */
export type Judged = { judgeDeadlines(now: Millis): Promise<Millis> };

/** Judges the pool's deadlines every second until stopped; `mark` (when given) records how far they were judged. */
export function startDeadlineTicker(pool: Judged, clock: Clock, mark: ClockMark | null): DeadlineTicker {
  let running: Promise<void> | null = null;
  const tick = () => {
    if (running !== null) return; // a slow shard must not pile up ticks
    running = pool
      .judgeDeadlines(clock.now())
      .then((judgedAt) => mark?.record(judgedAt))
      .catch((error: unknown) => log.error({ err: error }, "judging deadlines failed"))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, TICK_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
