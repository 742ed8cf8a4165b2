// The only code that reads real time. Everything else receives `at` from its caller.
import type { Millis } from "../engine/model.ts";

export type Clock = { readonly kind: "real" | "virtual"; now(): Millis };

/** Returns the real wall clock. */
export const systemClock: Clock = { kind: "real", now: () => Date.now() };

/**
 * Returns the real wall clock, except that it never goes back: not before `floorAt` (the instant a
 * previous run reached) nor before an instant it already returned. A system clock stepped back (NTP,
 * a restart on a machine whose clock is behind) holds time still until it catches up, so no ping, flip
 * or notification is stamped before one already recorded. `wall` is the system clock (a test's own in tests).
 */
export function monotonicClock(floorAt: Millis | null, wall: () => Millis = Date.now): Clock {
  let lastAt = floorAt ?? -Infinity;
  return { kind: "real", now: () => (lastAt = Math.max(lastAt, wall())) };
}

/** A clock that moves only when told (CLOCK=virtual: tests and replay). */
export class VirtualClock implements Clock {
  readonly kind = "virtual" as const;
  #now: Millis;
  constructor(startAt: Millis) {
    this.#now = startAt;
  }
  /** Returns the current virtual instant. */
  now(): Millis {
    return this.#now;
  }
  /** Moves the clock forward by `ms` (never backwards); returns the new instant. */
  advance(ms: Millis): Millis {
    if (!(ms >= 0)) throw new RangeError(`cannot move a clock by ${ms} ms`);
    this.#now += ms;
    return this.#now;
  }
}
