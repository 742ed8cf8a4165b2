// Escalation (CONTRACT "Alerting, third part"): while a check stays down and its outage is not acknowledged,
// each step of its escalation policy (its own, else its project's) notifies one more set of integrations
// once the outage has lasted the step's `after`. Pure: the policy, the mute in effect and the instants are
// passed in. The next step's due time is kept in the check's AlertState (escalateAt), fired by the shard's
// wheel like a reminder, so a restart or a replay neither loses nor repeats a step.
import type { AlertState, Check, EscalationStep, Millis } from "./model.ts";
import { isMuted, withAlert } from "./alerting.ts";

/** No policy: one shared empty list. */
export const NO_ESCALATION: readonly EscalationStep[] = Object.freeze([]);

/** The policy in effect for a check: its own when it has one ([] = none), else its project's. */
export function policyOf(check: Check, projectPolicy: readonly EscalationStep[] | undefined): readonly EscalationStep[] {
  return check.escalation ?? projectPolicy ?? NO_ESCALATION;
}

/** A step reached: its number (1 = the policy's first) and the integrations it notifies. */
export type Escalation = { readonly level: number; readonly channels: readonly string[] };

/**
 * Plans the outage's next step at `at` (a down flip, a policy changed, a dependency or a mute released):
 * due `after` since the check went down (`downSinceAt`, else `at`: an outage older than its alerting
 * state counts from now), never before `at`. None while the check is not down, acknowledged, held by a
 * dependency, or past its policy's last step.
 */
export function planEscalation(check: Check, policy: readonly EscalationStep[], at: Millis): Check {
  const alert = check.alert;
  const step = policy[alert?.escalated ?? 0];
  const waits = check.status !== "down" || step === undefined || alert?.acknowledged !== undefined || alert?.heldBy !== undefined;
  const downSinceAt = alert?.downSinceAt ?? at;
  const dueAt = waits ? undefined : Math.max(downSinceAt + step.afterMs, at);
  if (alert?.escalateAt === dueAt) return check;
  const base: AlertState = alert ?? { failures: 0, downSinceAt: null, dueAt: null, held: false, reminders: 0 };
  // the outage's start is kept with the plan: the steps after the first count from it too
  return withAlert(check, withEscalateAt(dueAt === undefined ? base : { ...base, downSinceAt }, dueAt));
}

/**
 * The outage's escalation is due at `at` (its escalateAt): every step due by then is reached at once (a
 * mute or a dependency may have held several), unless the outage is over or acknowledged (nothing), or
 * muted at `at` (it waits for the mute's end). Returns the check with the next step planned.
 */
export function onEscalationDue(
  check: Check,
  policy: readonly EscalationStep[],
  at: Millis,
  mutedUntilAt: Millis | null,
): { check: Check; reached: readonly Escalation[] } {
  const alert = check.alert;
  if (alert === undefined) return { check, reached: [] };
  if (isMuted(mutedUntilAt, at) && check.status === "down" && alert.acknowledged === undefined && alert.heldBy === undefined) {
    return { check: withAlert(check, withEscalateAt(alert, mutedUntilAt ?? undefined)), reached: [] };
  }
  const downSinceAt = alert.downSinceAt ?? at;
  const reached: Escalation[] = [];
  let level = alert.escalated ?? 0;
  const active = check.status === "down" && alert.acknowledged === undefined && alert.heldBy === undefined;
  while (active && level < policy.length && downSinceAt + policy[level].afterMs <= at) {
    reached.push({ level: level + 1, channels: policy[level].channels });
    level++;
  }
  const escalated: Check = reached.length === 0 ? check : withAlert(check, { ...alert, escalated: level });
  return { check: planEscalation(escalated, policy, at), reached };
}

/**
 * The integrations an outage's escalation reached that the check does not notify anyway: they hear of
 * its end too (the up notification).
 */
export function escalatedChannels(check: Check, policy: readonly EscalationStep[]): readonly string[] {
  const ids = new Set<string>();
  for (const step of policy.slice(0, check.alert?.escalated ?? 0))
    for (const id of step.channels) if (!check.channels.includes(id)) ids.add(id);
  return [...ids];
}

function withEscalateAt(alert: AlertState, escalateAt: Millis | undefined): AlertState {
  const { escalateAt: _before, ...rest } = alert;
  return escalateAt === undefined ? rest : { ...rest, escalateAt };
}
