// Alerting beyond the reference (CONTRACT "Alerting fields of a check", "Alerting, second part"): failure
// thresholds, reminders while down, mutes (a check's own and its project's), acknowledgements, and holds
// by a dependency that is down. Pure: every instant and the mute in effect
// are passed in. A reminder and a mute's end are deadlines like a missed ping: the check's AlertState
// keeps the one notice of its outage still to come (dueAt), the shard's wheel fires it at that instant,
// and a replay of the same events gives the same notices.
import type { Acknowledgement, AlertState, Check, Downtime, Flip, Millis, RunPeriod } from "./model.ts";
import { checkWith } from "./model.ts";
import { downAt } from "./status.ts";

/**
 * A notification an outage calls for besides its flips: the n-th reminder ("still down"), or, with
 * reminder null, the down notification a mute held back, sent when the mute ends.
 */
export type Notice = { readonly at: Millis; readonly reminder: number | null; readonly downSinceAt: Millis | null };

const NO_FLIPS: readonly Flip[] = Object.freeze([]);

/** Returns when the check's wheel entry fires: its down deadline, its outage's next notice or escalation step, the earliest; null = never. */
export function deadlineAt(check: Check): Millis | null {
  const down = downAt(check);
  const alert = check.alert; // one read for a check without alerting state
  if (alert === undefined) return down;
  const due = earlier(alert.dueAt, alert.escalateAt ?? null);
  return earlier(down, due);
}

function earlier(a: Millis | null, b: Millis | null): Millis | null {
  if (a === null) return b;
  return b === null || a <= b ? a : b;
}

/**
 * Returns the check held for hcd's own `downtime` when its deadline (a hold of an earlier downtime
 * included) fell inside it, or null when the downtime does not concern it (down, paused, or due outside).
 */
export function holdForDowntime(check: Check, downtime: Downtime): Check | null {
  if (check.status === "down" || check.status === "paused") return null;
  const dueAt = downAt(check);
  if (dueAt === null || dueAt <= downtime.fromAt || dueAt > downtime.toAt) return null;
  return withAlert(check, { ...alertOf(check), downtime });
}

/** A success or failure signal: the check's deadlines count from it again, and no downtime holds it. */
export function endDowntimeHold(check: Check): Check {
  const alert = check.alert;
  if (alert?.downtime === undefined) return check;
  const { downtime: _ended, ...rest } = alert;
  return withAlert(check, rest);
}

/** Returns the mute in effect: the later of the check's own and its project's ends; null = not muted. */
export function muteEndOf(checkMutedUntilAt: Millis | null, projectMutedUntilAt: Millis | null): Millis | null {
  if (checkMutedUntilAt === null) return projectMutedUntilAt;
  if (projectMutedUntilAt === null) return checkMutedUntilAt;
  return Math.max(checkMutedUntilAt, projectMutedUntilAt);
}

/** Returns true when notifications wait at `at` (a mute ends at its instant: at that instant they are sent again). */
export function isMuted(mutedUntilAt: Millis | null, at: Millis): boolean {
  return mutedUntilAt !== null && at < mutedUntilAt;
}

/**
 * Counts a failure signal; `goesDown` says whether it is the N-th consecutive one (N = failure_threshold):
 * with the default threshold, always (the reference).
 */
export function countFailure(check: Check): { check: Check; goesDown: boolean } {
  const threshold = check.failureThreshold ?? 1;
  // counted under any threshold: a threshold raised in the middle of a streak counts the failures before it
  const failures = alertOf(check).failures + 1;
  return { check: withAlert(check, { ...alertOf(check), failures }), goesDown: failures >= threshold };
}

/** A success signal: the failure count starts over. */
export function resetFailures(check: Check): Check {
  const alert = check.alert;
  return alert === undefined || alert.failures === 0 ? check : withAlert(check, { ...alert, failures: 0 });
}

/** Returns the check with its max_runs_per_period count (undefined: none counted). */
export function withPeriod(check: Check, period: RunPeriod | undefined): Check {
  const alert = check.alert;
  if (alert?.period === period) return check;
  if (period !== undefined) return withAlert(check, { ...alertOf(check), period });
  const { period: _dropped, ...rest } = alertOf(check);
  return withAlert(check, rest);
}

/**
 * Settles the flips of one step: those that notify now (flip.notify, and not while muted), and the
 * outage's next notice: a down flip plans the first reminder (or, while muted, the held down
 * notification at the mute's end); any other flip ends the outage and whatever it had planned.
 */
export function settleFlips(check: Check, flips: readonly Flip[], mutedUntilAt: Millis | null): { check: Check; notify: readonly Flip[] } {
  let current = check;
  let notify: Flip[] | null = null;
  for (const flip of flips) {
    const muted = isMuted(mutedUntilAt, flip.at);
    // a dependency that is down holds the down notification, and the up of an outage whose down it still holds
    const held = current.alert?.heldBy !== undefined && (flip.to === "down" || current.alert.held);
    if (flip.notify && !muted && !held) (notify ??= []).push(flip);
    current = flip.to === "down" ? startOutage(current, flip.at, muted ? mutedUntilAt : null) : endOutage(current);
  }
  return { check: current, notify: notify ?? NO_FLIPS };
}

/**
 * Applies the outage notice due at `at` (its dueAt): still muted → the held down notification waits for the
 * mute's end, and a reminder inside a mute is skipped (the next is one interval after the mute's end: an
 * outage already notified is never notified again as new); the held down notification → sent, and
 * reminders resume from now; else the next reminder. The one after is planned reminder_interval later.
 */
export function onNoticeDue(check: Check, at: Millis, mutedUntilAt: Millis | null): { check: Check; notice: Notice | null } {
  const alert = check.alert;
  if (alert === undefined || alert.dueAt === null) return { check, notice: null };
  if (check.status !== "down") return { check: withAlert(check, { ...alert, dueAt: null, held: false }), notice: null };
  if (alert.heldBy !== undefined) return { check: withAlert(check, { ...alert, dueAt: null, held: true }), notice: null }; // waits for the dependency
  if (mutedUntilAt !== null && isMuted(mutedUntilAt, at))
    return { check: withAlert(check, { ...alert, dueAt: alert.held ? mutedUntilAt : nextReminderAt(check, mutedUntilAt) }), notice: null };
  const next = nextReminderAt(check, at);
  if (alert.held) {
    return {
      check: withAlert(check, { ...alert, dueAt: next, held: false }),
      notice: { at, reminder: null, downSinceAt: alert.downSinceAt },
    };
  }
  const reminders = alert.reminders + 1;
  return {
    check: withAlert(check, { ...alert, dueAt: next, reminders }),
    notice: { at, reminder: reminders, downSinceAt: alert.downSinceAt },
  };
}

/**
 * Re-plans a down check's next notice at `at` after its mute (own or project's) or reminder interval
 * changed (`before` = the check as it was): a down notification not sent yet (held) waits for the end of
 * a mute now in effect, and is sent now once no mute holds it; an outage whose down notification was
 * sent is never notified again as new: a mute only moves its next reminder to one interval after the
 * mute's end, and once no mute holds it the next reminder is at most one interval from now. A check that
 * is not down has nothing to plan.
 */
export function replanNotices(
  before: Check,
  after: Check,
  at: Millis,
  mutedUntilAt: Millis | null,
): { check: Check; notice: Notice | null } {
  if (after.status !== "down") return { check: after, notice: null };
  const alert = alertOf(after);
  if (alert.heldBy !== undefined) {
    // a dependency is down: the down notification waits for it, whatever the mute
    if (alert.held && alert.dueAt === null) return { check: after, notice: null };
    return { check: withAlert(after, { ...alert, dueAt: null, held: true }), notice: null };
  }
  if (mutedUntilAt !== null && isMuted(mutedUntilAt, at)) {
    const dueAt = alert.held ? mutedUntilAt : nextReminderAt(after, mutedUntilAt);
    return alert.dueAt === dueAt ? { check: after, notice: null } : { check: withAlert(after, { ...alert, dueAt }), notice: null };
  }
  if (alert.held) {
    return {
      check: withAlert(after, { ...alert, dueAt: nextReminderAt(after, at), held: false }),
      notice: { at, reminder: null, downSinceAt: alert.downSinceAt },
    };
  }
  const next = nextReminderAt(after, at);
  const sameInterval = (before.reminderIntervalMs ?? 0) === (after.reminderIntervalMs ?? 0);
  // a reminder planned past a mute that no longer holds it comes one interval from now at the latest
  if (sameInterval && (alert.dueAt === null ? next === null : next === null || alert.dueAt <= next)) return { check: after, notice: null };
  return { check: withAlert(after, { ...alert, dueAt: next }), notice: null };
}

/**
 * Acknowledges the check's outage at `at` (by `by`): reminders stop until it ends; the down notification
 * a mute holds is still sent at the mute's end. Acknowledging again keeps the first acknowledgement.
 * Returns null when the check is not down.
 */
export function acknowledge(check: Check, ack: Acknowledgement): Check | null {
  if (check.status !== "down") return null;
  const alert = alertOf(check);
  if (alert.acknowledged !== undefined) return check;
  const { escalateAt: _stopped, ...rest } = alert; // escalation stops too
  return withAlert(check, { ...rest, acknowledged: ack, dueAt: alert.held ? alert.dueAt : null });
}

/**
 * Sets the dependency that holds the check's notifications (depends_on) at `at`: `heldBy` = one of its
 * dependencies that is down, null = none is. While held, a down check's down notification and reminders
 * wait; released while the check is still down, the down notification is sent once (or, muted, at the
 * mute's end) and reminders count from then.
 */
export function setHeldBy(
  check: Check,
  heldBy: string | null,
  at: Millis,
  mutedUntilAt: Millis | null,
): { check: Check; notice: Notice | null } {
  const alert = alertOf(check);
  if ((alert.heldBy ?? null) === heldBy) return { check, notice: null };
  const { heldBy: _before, ...rest } = alert;
  if (heldBy !== null) {
    const { escalateAt: _waits, ...waiting } = rest; // escalation waits for the dependency too (engine/escalation.ts plans it again)
    return {
      check: withAlert(check, check.status === "down" ? { ...waiting, heldBy, held: true, dueAt: null } : { ...rest, heldBy }),
      notice: null,
    };
  }
  const released = withAlert(check, rest);
  return check.status === "down" ? replanNotices(released, released, at, mutedUntilAt) : { check: released, notice: null };
}

// ---- internals ----

const NOTHING: AlertState = { failures: 0, downSinceAt: null, dueAt: null, held: false, reminders: 0 };

function alertOf(check: Check): AlertState {
  return check.alert ?? NOTHING;
}

function nextReminderAt(check: Check, at: Millis): Millis | null {
  if (check.alert?.acknowledged !== undefined) return null; // an acknowledged outage has no more reminders
  const interval = check.reminderIntervalMs ?? 0;
  return interval > 0 ? at + interval : null;
}

/**
 * A down flip at `at`: the outage starts; its first notice is the held down notification (muted: at the
 * mute's end; a dependency down: when it recovers) or a reminder.
 */
function startOutage(check: Check, at: Millis, heldUntilAt: Millis | null): Check {
  if (heldUntilAt === null && (check.reminderIntervalMs ?? 0) === 0 && check.alert === undefined) return check; // the reference's cost
  const heldBy = check.alert?.heldBy;
  const dueAt = heldBy !== undefined ? null : (heldUntilAt ?? nextReminderAt(check, at));
  const held = heldUntilAt !== null || heldBy !== undefined;
  return withAlert(check, kept(check, { failures: alertOf(check).failures, downSinceAt: at, dueAt, held, reminders: 0 }));
}

/** Any flip but down: the outage is over, and nothing it planned is sent (a dependency's hold stays). */
function endOutage(check: Check): Check {
  if (check.alert === undefined) return check;
  return withAlert(check, kept(check, { ...NOTHING, failures: check.alert.failures }));
}

/** `alert` with what outlives an outage's start and end: a dependency's hold and the period's run count. */
function kept(check: Check, alert: AlertState): AlertState {
  const heldBy = check.alert?.heldBy,
    period = check.alert?.period;
  if (heldBy === undefined && period === undefined) return alert;
  if (period === undefined) return { ...alert, heldBy };
  return heldBy === undefined ? { ...alert, period } : { ...alert, heldBy, period };
}

/** Returns the check with `alert`; a state with nothing in it is left out (undefined). */
export function withAlert(check: Check, alert: AlertState): Check {
  const empty =
    alert.failures === 0 &&
    alert.dueAt === null &&
    alert.downSinceAt === null &&
    alert.reminders === 0 &&
    !alert.held &&
    alert.downtime === undefined &&
    alert.acknowledged === undefined &&
    alert.heldBy === undefined &&
    alert.escalated === undefined &&
    alert.escalateAt === undefined &&
    alert.period === undefined;
  if (!empty) return checkWith(check, { alert });
  return check.alert === undefined ? check : checkWith(check, { alert: undefined });
}
