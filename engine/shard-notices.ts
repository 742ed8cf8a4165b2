// The notifications a shard queues for a check: a flip's or a notice's to the check's channels (or to the
// channels an escalation step reaches), and a failure that found the check down to the channels that hear of every failure.
import type { NoticeChannel } from "./changes.ts";
import type { Channel, Check, Flip, Millis } from "./model.ts";
import type { Notice } from "./alerting.ts";
import type { Escalation } from "./escalation.ts";
import type { EntryFacts, Extra, LastPing } from "./outbox-entries.ts";
import { pushOutboxEntries } from "./outbox-entries.ts";
import type { PendingChanges } from "./pending-changes.ts";
import type { ShardState } from "./shard-state.ts";
import type { Step } from "./transition.ts";

export class NoticeQueue {
  readonly #state: ShardState;
  readonly #changes: PendingChanges;
  // what entries keep of each channel, made once per channel record and shared by all its entries
  readonly #kept = new WeakMap<Channel, NoticeChannel>();

  constructor(state: ShardState, changes: PendingChanges) {
    this.#state = state;
    this.#changes = changes;
  }

  /** Queues the flip's (or notice's) notification to each channel assigned to the check (or to `extra.channels`): outbox-entries.ts. */
  flip(check: Check, flip: Flip, lastPing: LastPing | null, notice: Notice | null, extra: Extra | null = null): void {
    if ((extra?.channels ?? check.channels).length === 0) return; // most checks of a burst of flips
    const projectName = this.#state.project(check.projectId)?.name ?? "";
    pushOutboxEntries(this.#changes.outbox, {
      check,
      flip,
      lastPing,
      notice,
      extra,
      projectName,
      channels: this.#state.channels(check.projectId),
      kept: this.#kept,
    });
  }

  /** Queues a notice's notifications: the check's down state at the notice's instant, to every assigned channel. */
  notice(check: Check, notice: Notice): void {
    const flip: Flip = { checkUuid: check.uuid, n: check.nFlips, at: notice.at, from: "down", to: "down", reason: "", notify: true };
    this.flip(check, flip, null, notice);
  }

  /** Queues the notifications of the escalation steps an outage reached at `at`, each to its step's channels. */
  escalation(check: Check, reached: readonly Escalation[], at: Millis): void {
    for (const step of reached) {
      const flip: Flip = { checkUuid: check.uuid, n: check.nFlips, at, from: "down", to: "down", reason: "", notify: true };
      this.flip(check, flip, null, null, {
        channels: step.channels,
        notice: `e${step.level}`,
        downSinceAt: check.alert?.downSinceAt ?? null,
        facts: { escalation: step.level },
      });
    }
  }

  /**
   * Queues a failure that found the check down (no flip of its own) to its integrations that hear of every
   * failure (every_failure); the caller has found that no mute or dependency holds its notifications.
   */
  failedAgain(check: Check, step: Step, lastPing: LastPing): void {
    const channels = this.#state
      .channels(check.projectId)
      .filter((c) => c.everyFailure === true && check.channels.includes(c.id))
      .map((c) => c.id);
    if (channels.length === 0) return;
    const flip: Flip = {
      checkUuid: check.uuid,
      n: check.nFlips,
      at: lastPing.record.at,
      from: "down",
      to: "down",
      reason: step.failure ?? "fail",
      notify: true,
    };
    const facts: EntryFacts = step.facts == null ? { failedAgain: lastPing.record.n } : { failedAgain: lastPing.record.n, run: step.facts };
    this.flip(check, flip, lastPing, null, {
      channels,
      notice: `f${lastPing.record.n}`,
      downSinceAt: check.alert?.downSinceAt ?? null,
      facts,
    });
  }
}
