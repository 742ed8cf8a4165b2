// What a shard's commands want stored until the host takes it, and how narrowly the store may log it: a
// take whose check changes were all one kind of step says so (Changes' statusOnly, alertOnly, stateOnly).
import type { Changes, GatheredChanges, OutboxEntry } from "./changes.ts";
import { noChanges } from "./changes.ts";
import type { Check } from "./model.ts";

export class PendingChanges {
  #changes: GatheredChanges = noChanges();
  #deadlineSteps = 0; // how many of #changes.checks a deadline step made (only status and nFlips change)
  #stateSteps = 0; // how many of #changes.checks a step made (pings, deadlines, pause, resume: only state fields change)
  #noticeSteps = 0; // how many of #changes.checks an outage's notice made (only the alerting state changes)

  /** The changes gathered so far, to add projects, channels, flips, pings, deletions and outbox entries to. */
  get gathered(): GatheredChanges {
    return this.#changes;
  }

  /** The outbox entries gathered so far. */
  get outbox(): OutboxEntry[] {
    return this.#changes.outbox;
  }

  /** A check changed in any way (settings, alerting state, a new one). */
  check(check: Check): void {
    this.#changes.checks.push(check);
  }

  /** A check changed by a step: its state fields only (a ping, a deadline, pause, resume). */
  step(check: Check): void {
    this.#changes.checks.push(check);
    this.#stateSteps++;
  }

  /** The step just recorded was a deadline's that planned no notice: only its status and nFlips changed. */
  deadlineOnly(): void {
    this.#deadlineSteps++;
  }

  /** A check changed by an outage's notice or escalation step: its alerting state only. */
  notice(check: Check): void {
    this.#changes.checks.push(check);
    this.#stateSteps++; // the store may log just the state fields,
    this.#noticeSteps++; // or just the alerting state when every change since the last take is a notice's
  }

  /** Returns how many notifications the changes not yet taken hold (a host commits those without delay). */
  get notifications(): number {
    return this.#changes.outbox.length;
  }

  /** Returns and clears what was gathered since the last call, each check's last state once. */
  take(): Changes {
    const taken = this.#changes,
      n = taken.checks.length;
    // the narrowest that holds when every check change since the last take was one kind of step (see
    // Changes): deadline steps only (just each check's status), notices only (just the alerting state),
    // or steps (just the state fields); notices and deadline steps are steps too, so the order decides
    const changes =
      n === 0
        ? taken
        : this.#deadlineSteps === n
          ? { ...taken, statusOnly: true }
          : this.#noticeSteps === n
            ? { ...taken, alertOnly: true }
            : this.#stateSteps === n
              ? { ...taken, stateOnly: true }
              : taken;
    this.#changes = noChanges();
    this.#deadlineSteps = 0;
    this.#stateSteps = 0;
    this.#noticeSteps = 0;
    // a batch of pings steps the same checks many times: store each check's last state once
    const last = new Map<string, Check>();
    for (const check of changes.checks) last.set(check.uuid, check);
    return { ...changes, checks: [...last.values()] };
  }
}
