// Recurring maintenance windows (CONTRACT "Alerting, second part"): when a project's windows mute it, and
// when the next one starts. Each window starts every time its cron or OnCalendar schedule fires in its
// time zone (engine/schedule.ts, exact across DST) and lasts its duration in real time.
import type { MaintenanceWindow, Millis, Project } from "./model.ts";
import { MINUTE } from "./model.ts";
import { nextAfter } from "./schedule.ts";
import type { TimerWheel } from "./wheel.ts";

/** Returns when the windows in effect at `at` end (the latest end of those started and not over), or null when none is. */
export function maintenanceEndAt(windows: readonly MaintenanceWindow[] | undefined, at: Millis): Millis | null {
  let endAt: Millis | null = null;
  for (const window of windows ?? []) {
    const startAt = lastStartAt(window, at);
    if (startAt !== null && (endAt === null || startAt + window.durationMs > endAt)) endAt = startAt + window.durationMs;
  }
  return endAt;
}

/** Returns the first instant after `afterAt` at which one of the windows starts, or null when none ever does. */
export function nextMaintenanceAt(windows: readonly MaintenanceWindow[] | undefined, afterAt: Millis): Millis | null {
  let next: Millis | null = null;
  for (const window of windows ?? []) {
    const startAt = nextAfter(window.schedule, window.tz, afterAt);
    if (startAt !== null && (next === null || startAt < next)) next = startAt;
  }
  return next;
}

/**
 * Returns the latest start of the window in (at - duration, at] (the one that mutes at `at`), or null.
 * Looks back a minute, then twice as far each time, so a dense schedule costs a few steps, as a sparse one.
 */
function lastStartAt(window: MaintenanceWindow, at: Millis): Millis | null {
  for (let backMs = Math.min(MINUTE, window.durationMs); ; backMs = Math.min(2 * backMs, window.durationMs)) {
    let startAt = nextAfter(window.schedule, window.tz, at - backMs);
    if (startAt !== null && startAt <= at) {
      for (
        let next = nextAfter(window.schedule, window.tz, startAt);
        next !== null && next <= at;
        next = nextAfter(window.schedule, window.tz, next)
      )
        startAt = next;
      return startAt;
    }
    if (backMs >= window.durationMs) return null;
  }
}

// the wheel's key of a project's next maintenance window start (check uuids never start so)
const KEY = "maintenance:";

/** Each project's next maintenance window start, armed in a shard's timer wheel beside its checks' deadlines. */
export class MaintenanceStarts {
  readonly #wheel: TimerWheel<string>;
  readonly #next = new Map<string, Millis>();

  constructor(wheel: TimerWheel<string>) {
    this.#wheel = wheel;
  }

  /** Arms the wheel for the project's next maintenance window start after `afterAt` (none: disarmed). */
  arm(project: Project, afterAt: Millis): void {
    const key = KEY + project.id;
    const next = nextMaintenanceAt(project.maintenance, afterAt);
    if (next === null) {
      this.#wheel.delete(key);
      this.#next.delete(project.id);
    } else {
      this.#wheel.set(key, next);
      this.#next.set(project.id, next);
    }
  }

  /** The project whose window start a key the wheel handed back is, or null for a check's uuid. */
  projectOf(key: string): string | null {
    return key.startsWith(KEY) ? key.slice(KEY.length) : null;
  }

  /**
   * The wheel found the project's next window start due by `now`: returns its instant, or null when there
   * is none any more or it is still ahead (then armed again at it).
   */
  due(projectId: string, now: Millis): Millis | null {
    const startAt = this.#next.get(projectId);
    if (startAt === undefined) return null;
    if (startAt > now) {
      this.#wheel.set(KEY + projectId, startAt);
      return null;
    }
    return startAt;
  }
}
