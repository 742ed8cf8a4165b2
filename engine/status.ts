// Status and deadlines, derived from a stored check and an instant: the one place they are computed
// (reference hc/api/models.py: get_grace_start, going_down_after, get_status).
import type { Check, Millis, Status } from "./model.ts";
import { assertNever } from "./model.ts";
import { nextAfter } from "./schedule.ts";

/** Returns the instant (epoch ms) the check becomes late, or null when it never does (reference get_grace_start). */
export function graceStartAt(check: Check, opts: { withStarted: boolean }): Millis | null {
  const expectedAt = check.status === "up" ? expectedAfterLastPing(check) : null;
  // fact sheet §4: an open run counts as "expected now" unless the check is already down
  if (!opts.withStarted || check.lastStartAt === null || check.status === "down") return expectedAt;
  return expectedAt === null ? check.lastStartAt : Math.min(expectedAt, check.lastStartAt);
}

/** Returns the status the API shows at `at` (v3 get_status); "grace" is derived here and nowhere else. */
export function statusAt(check: Check, at: Millis): Status | "grace" {
  const status = statusIgnoringDowntime(check, at);
  // a deadline that fell while hcd was not running waits for the check's grace since hcd came back
  if (status === "down" && check.status !== "down" && at < (heldUntilAt(check) ?? -Infinity)) return "grace";
  return status;
}

/**
 * Returns the instant before which the check is not judged down because its deadline fell in hcd's own
 * downtime (its end plus the check's grace), or null when none holds it.
 */
export function heldUntilAt(check: Check): Millis | null {
  const downtime = check.alert?.downtime;
  return downtime === undefined ? null : downtime.toAt + check.graceMs;
}

/**
 * Returns when an open run has taken too long under max_duration (its start plus max_duration), or null
 * when no run is open, the check is stored down, or max_duration is off (then grace bounds the run).
 * A started run answers the wait for the check's ping: while it is open, only this limit applies.
 */
export function runLimitAt(check: Check): Millis | null {
  const maxMs = check.maxDurationMs ?? 0;
  if (maxMs === 0 || check.lastStartAt === null || check.status === "down") return null;
  return check.lastStartAt + maxMs;
}

function statusIgnoringDowntime(check: Check, at: Millis): Status | "grace" {
  const limitAt = runLimitAt(check);
  if (limitAt !== null) return at >= limitAt ? "down" : check.status;
  // a run that outlives its grace is down whatever the stored status (new and paused too)
  if (check.lastStartAt !== null && at >= check.lastStartAt + check.graceMs) return "down";
  if (check.status !== "up") return check.status;
  const expectedAt = graceStartAt(check, { withStarted: false });
  if (expectedAt === null || at < expectedAt) return "up";
  return at < expectedAt + check.graceMs ? "grace" : "down";
}

/** Returns the API's next_ping instant (epoch ms): the grace start counting an open run; null when none. */
export function nextPingAt(check: Check): Millis | null {
  return graceStartAt(check, { withStarted: true });
}

/** Returns the instant (epoch ms) the check goes down if nothing happens; null when it never will (or is stored down). */
export function downAt(check: Check): Millis | null {
  const dueAt = dueDownAt(check);
  if (dueAt === null) return null;
  const held = heldUntilAt(check);
  return held === null ? dueAt : Math.max(dueAt, held);
}

/** As downAt, ignoring hcd's own downtime: when the check's job was due plus its grace, or its open run's max_duration ran out. */
export function dueDownAt(check: Check): Millis | null {
  const limitAt = runLimitAt(check);
  if (limitAt !== null) return limitAt;
  const startAt = graceStartAt(check, { withStarted: true });
  return startAt === null ? null : startAt + check.graceMs;
}

/** The next expected ping of an up check from its last ping: timeout or schedule; null when never. */
function expectedAfterLastPing(check: Check): Millis | null {
  if (check.lastPingAt === null) return null; // stored up always has a last ping; stay total anyway
  switch (check.kind) {
    case "simple":
      return check.lastPingAt + check.timeoutMs;
    case "cron":
    case "oncalendar":
      return nextAfter(check.schedule, check.tz, check.lastPingAt);
    default:
      return assertNever(check.kind);
  }
}
