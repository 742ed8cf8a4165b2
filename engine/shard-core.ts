// What a shard's commands share (its state, wheel and pending changes) and the one way a check's step is
// stored: deadlines caught up, flips settled under the mutes in effect, notices queued, dependents held or released.
import type { Check, EscalationStep, Millis, Project } from "./model.ts";
import { freshCheck } from "./model.ts";
import type { Outcome } from "./outcome.ts";
import { fail, ok } from "./outcome.ts";
import type { Notice } from "./alerting.ts";
import { deadlineAt, isMuted, muteEndOf, onNoticeDue, replanNotices, setHeldBy, settleFlips } from "./alerting.ts";
import { escalatedChannels, onEscalationDue, planEscalation, policyOf } from "./escalation.ts";
import { Dependents, downDependencyOf } from "./dependencies.ts";
import { MaintenanceStarts, maintenanceEndAt } from "./maintenance.ts";
import { downFacts } from "./outbox-entries.ts";
import type { LastPing } from "./outbox-entries.ts";
import { PendingChanges } from "./pending-changes.ts";
import { NoticeQueue } from "./shard-notices.ts";
import { ShardState } from "./shard-state.ts";
import type { Step } from "./transition.ts";
import { onDeadline } from "./transition.ts";
import { downAt } from "./status.ts";
import { TimerWheel } from "./wheel.ts";

const WHEEL = { tickMs: 1_000, slots: 4_096 };

export class ShardCore {
  readonly state = new ShardState();
  readonly wheel: TimerWheel<string>;
  readonly dependents = new Dependents(); // depends_on, reversed: the checks a check's flip holds or releases
  readonly changes = new PendingChanges();
  readonly notices = new NoticeQueue(this.state, this.changes);
  readonly maintenance: MaintenanceStarts;
  readonly startedAt: Millis;
  readonly #newId: () => string;
  // the latest instant a command was applied at, or a loaded check had an event at: a command stamped
  // earlier (a clock stepped back, a request that waited) is applied at this instant instead
  lastAt: Millis = -Infinity;

  constructor(newId: () => string, now: Millis) {
    this.#newId = newId;
    this.startedAt = now;
    this.wheel = new TimerWheel<string>({ ...WHEEL, now });
    this.maintenance = new MaintenanceStarts(this.wheel);
  }

  /** Returns a check of the project: not_found when unknown, forbidden when another project owns it. */
  check(projectId: string, uuid: string): Outcome<Check> {
    const check = this.state.check(uuid);
    if (!check) return fail({ code: "not_found", what: "check" });
    if (check.projectId !== projectId) return fail({ code: "forbidden" });
    return ok(check);
  }

  /** As check(), after applying the check's own deadlines due by `at` (before a command changes it). */
  dueCheck(projectId: string, uuid: string, at: Millis): Outcome<Check> {
    const found = this.check(projectId, uuid);
    return found.ok ? ok(this.catchUp(found.value, at)) : found;
  }

  /** A new check of the project with fresh ids (not stored yet). */
  newCheck(projectId: string, at: Millis): Check {
    const uuid = this.#newId(); // the uuid first, then the badge key: the order a cluster's record hands them out
    return freshCheck({ uuid, badgeKey: this.#newId(), projectId }, at);
  }

  /** Stores a changed check (in memory and in the pending changes) and re-arms its deadline. */
  store(check: Check): Check {
    this.state.putCheck(check);
    this.arm(check);
    this.changes.check(check);
    return check;
  }

  arm(check: Check): void {
    const at = deadlineAt(check);
    if (at === null) this.wheel.delete(check.uuid);
    else this.wheel.set(check.uuid, at);
  }

  /** Stores a step's check and flips, and queues the notifications its flips call for. */
  apply(step: Step, lastPing: LastPing | null, rearm = true): Check {
    // flips notify unless muted, and start or end an outage (engine/alerting.ts)
    const settled = step.flips.length === 0 ? null : settleFlips(step.check, step.flips, this.muteOf(step.check, step.flips[0].at));
    // a down flip plans the outage's first escalation step (engine/escalation.ts); any other flip ended it
    const policy = settled === null ? null : this.policyOf(step.check);
    const check =
      settled === null
        ? step.check
        : step.flips[0].to === "down" && policy !== null
          ? planEscalation(settled.check, policy, step.flips[0].at)
          : settled.check;
    this.state.putCheck(check);
    if (rearm) this.arm(check);
    this.changes.step(check); // a step changes state fields only: the store may log just those
    for (const flip of step.flips) this.changes.gathered.flips.push(flip);
    if (settled !== null) {
      for (const flip of settled.notify) {
        this.notices.flip(check, flip, lastPing, null, flip.to === "down" ? downFacts(step, flip) : null);
        // the integrations an escalation reached hear of the outage's end too
        const escalated = flip.to === "up" && policy !== null ? escalatedChannels(step.check, policy) : null;
        if (escalated !== null && escalated.length > 0) this.notices.flip(check, flip, lastPing, null, { channels: escalated });
      }
    }
    for (const flip of step.flips) if ((flip.from === "down") !== (flip.to === "down")) this.#holdDependents(check.uuid, flip.at);
    return check;
  }

  /** Applies the check's deadlines that fell due by `at`, each stamped with its own due time. */
  catchUp(check: Check, at: Millis): Check {
    let current = check;
    for (let dueAt = deadlineAt(current); dueAt !== null && dueAt <= at;) {
      current = this.fire(current, dueAt, true);
      const next = deadlineAt(current);
      if (next === null || next <= dueAt) break; // settled
      dueAt = next;
    }
    return current;
  }

  /** Applies the deadline due at `at` (deadlineAt): the missed ping's, else the outage's next escalation step and notice. */
  fire(check: Check, at: Millis, rearm: boolean): Check {
    // `at` is deadlineAt(check): the notice's or escalation's when it is their due time (a check with one is down: no down deadline)
    const escalating = check.alert?.escalateAt === at;
    if (check.alert?.dueAt !== at && !escalating) {
      const fired = this.apply(onDeadline(check, at), null, rearm);
      // a flip that planned no notice changed only status and nFlips (`check` is the stored one): the store may log just those
      if (fired.alert === check.alert) this.changes.deadlineOnly();
      return fired;
    }
    // a notice changes the check's alerting state only (no flips to settle): stored as is, no step around it
    const mute = this.muteOf(check, at);
    const escalated = escalating ? onEscalationDue(check, this.policyOf(check), at, mute) : { check, reached: [] };
    const due = escalated.check.alert?.dueAt === at ? onNoticeDue(escalated.check, at, mute) : { check: escalated.check, notice: null };
    this.state.putCheck(due.check);
    if (rearm) this.arm(due.check);
    this.changes.notice(due.check);
    if (due.notice !== null) this.notices.notice(due.check, due.notice);
    this.notices.escalation(due.check, escalated.reached, at);
    return due.check;
  }

  /**
   * A settings change (a shorter timeout or grace, another schedule) that moved the check's deadline before
   * `at` makes it due at once, at `at`: a flip stamped at the deadline itself would come before pings the
   * check logged since (ignored ones too), and before the change that caused it.
   */
  dueAfterChange(check: Check, at: Millis): Check {
    const dueAt = downAt(check);
    if (dueAt === null || dueAt >= at) return check;
    return this.apply(onDeadline(check, at, at), null);
  }

  /** Queues a failure that found the check down to its every_failure integrations, unless a mute or a dependency holds its notifications. */
  failedAgain(check: Check, step: Step, lastPing: LastPing): void {
    const at = lastPing.record.at;
    if (check.alert?.heldBy !== undefined || isMuted(this.muteOf(check, at), at)) return;
    this.notices.failedAgain(check, step, lastPing);
  }

  /** Returns the mute in effect for the check: the latest of its own, its project's and its project's running maintenance window; null = none. */
  muteOf(check: Check, at: Millis): Millis | null {
    const project = this.state.project(check.projectId);
    const muted = muteEndOf(check.mutedUntilAt ?? null, project?.mutedUntilAt ?? null);
    return project?.maintenance === undefined ? muted : muteEndOf(muted, maintenanceEndAt(project.maintenance, at));
  }

  /** The escalation policy in effect for the check: its own, else its project's. */
  policyOf(check: Check): readonly EscalationStep[] {
    return policyOf(check, this.state.project(check.projectId)?.escalation);
  }

  /**
   * Stores a project whose mutes or escalation policy changed at `at`: deadlines due before `at` are applied
   * first, under the mutes in effect then; then each down check's notices are planned again under the new ones.
   */
  changeProject(changed: Project, at: Millis): Project {
    const due = this.state.checkUuids(changed.id).flatMap((uuid) => {
      const check = this.state.check(uuid);
      return check ? [this.catchUp(check, at)] : [];
    });
    this.state.putProject(changed);
    this.changes.gathered.projects.push(changed);
    this.maintenance.arm(changed, at);
    for (const check of due) this.replan(check, at);
    return changed;
  }

  /** Plans a down check's notices (and its next escalation step) again at `at` under the mutes in effect then. */
  replan(check: Check, at: Millis): void {
    const planned = replanNotices(check, check, at, this.muteOf(check, at));
    const escalating = planEscalation(planned.check, this.policyOf(planned.check), at);
    if (escalating !== check) this.store(escalating);
    if (planned.notice !== null) this.notices.notice(escalating, planned.notice);
  }

  /** Sets the check's hold by a dependency that is down (or its release) at `at`, and plans its next escalation step; not stored. */
  heldByDependencies(check: Check, at: Millis): { check: Check; notice: Notice | null } {
    const held = setHeldBy(
      check,
      downDependencyOf(check, (id) => this.state.check(id)),
      at,
      this.muteOf(check, at),
    );
    return { check: planEscalation(held.check, this.policyOf(held.check), at), notice: held.notice }; // released: the next step counts on
  }

  /** A check went down or came back up at `at`: the checks depending on it are held or released. */
  #holdDependents(uuid: string, at: Millis): void {
    for (const dependent of this.dependents.of(uuid)) {
      const found = this.state.check(dependent);
      if (found === undefined) continue;
      const check = this.catchUp(found, at);
      const held = this.heldByDependencies(check, at);
      if (held.check !== check) this.store(held.check);
      if (held.notice !== null) this.notices.notice(held.check, held.notice);
    }
  }
}
