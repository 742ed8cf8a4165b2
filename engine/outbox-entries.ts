// The outbox entries of a flip or a notice: one per channel the notification goes to, in the project's channel
// order, each carrying what its message needs (the check as the kind renders it, the last ping, the facts).
import type { NoticeChannel, NoticeCheck, OutboxEntry } from "./changes.ts";
import { noticeChannelOf, noticeCheckOf, rendersCheckJson } from "./changes.ts";
import type { Notice } from "./alerting.ts";
import type { Channel, Check, Flip, Millis, PingRecord } from "./model.ts";
import { outboxEntryId } from "./model.ts";
import type { Step } from "./transition.ts";

/** The ping that caused a step and its body, for the notifications it raises. */
export type LastPing = { readonly record: PingRecord; readonly body: Uint8Array | null };

/**
 * What an entry says beyond its flip: hcd's own downtime its deadline fell in, the start of a run that
 * took too long, the run rule that made it fail, the escalation step it is, the ping it failed again at.
 */
export type EntryFacts = Pick<OutboxEntry, "downtime" | "runStartedAt" | "run" | "escalation" | "failedAgain">;

/** How a notification differs from a flip's to the check's channels: other channels, an id suffix (outboxEntryId's notice), facts. */
export type Extra = {
  readonly channels?: readonly string[];
  readonly notice?: string;
  readonly downSinceAt?: Millis | null;
  readonly facts?: EntryFacts;
};

/** Returns the facts of a down flip of a step (its check before the flip settled: a downtime hold still on it), or null when none. */
export function downFacts(step: Step, flip: Flip): Extra | null {
  const check = step.check;
  const facts: { -readonly [K in keyof EntryFacts]: EntryFacts[K] } = {};
  if (check.alert?.downtime !== undefined) facts.downtime = check.alert.downtime;
  if (flip.reason === "duration" && check.lastStartAt !== null) facts.runStartedAt = check.lastStartAt;
  if (step.facts != null) facts.run = step.facts;
  return facts.downtime === undefined && facts.runStartedAt === undefined && facts.run === undefined ? null : { facts };
}

/** What one notification is: the check, its flip, its notice (a reminder, a held down), and how it differs from a flip's. */
export type Notification = {
  readonly check: Check;
  readonly flip: Flip;
  readonly lastPing: LastPing | null;
  readonly notice: Notice | null;
  readonly extra: Extra | null;
  readonly projectName: string;
  /** The project's channels, in their order. */
  readonly channels: readonly Channel[];
  /** Each channel's part of an entry, made once per channel object and shared by its entries. */
  readonly kept: WeakMap<Channel, NoticeChannel>;
};

/**
 * Pushes onto `outbox` the notification's entry for each channel assigned to the check (or, with
 * `extra.channels`, for those), in the project's channel order; `extra` adds what the entry says beyond it.
 */
export function pushOutboxEntries(outbox: OutboxEntry[], n: Notification): void {
  const { check, flip, notice, extra, projectName } = n;
  const assigned = extra?.channels ?? check.channels;
  // a notice's id differs from its flip's: "-r<n>" for the n-th reminder, "-m" for the down notification a mute held
  const reminder = notice?.reminder ?? null;
  const noticeN = extra?.notice ?? (notice === null ? null : (reminder ?? 0));
  let shown: NoticeCheck | null = null; // one per check, shared by the entries of its channels
  const lastRecord = n.lastPing?.record ?? null,
    lastBody = n.lastPing?.body ?? null;
  const downSinceAt = extra?.downSinceAt ?? notice?.downSinceAt ?? null; // the host fills in what the log knows
  const facts = extra?.facts ?? null;
  for (const channel of n.channels) {
    if (!assigned.includes(channel.id)) continue; // a check's channels are few: no Set
    const id = outboxEntryId(flip.at, check.uuid, flip.n, channel.id, noticeN);
    const carried = rendersCheckJson(channel) ? check : (shown ??= noticeCheckOf(check));
    let kept = n.kept.get(channel);
    if (kept === undefined) n.kept.set(channel, (kept = noticeChannelOf(channel)));
    // one literal each (a reminder's "reminder" absent on a flip's notification), no copy to add it
    outbox.push(
      facts !== null
        ? {
            id,
            projectId: check.projectId,
            check: carried,
            flip,
            channel: kept,
            lastPing: lastRecord,
            lastPingBody: lastBody,
            projectName,
            downSinceAt,
            attempts: 0,
            nextAttemptAt: flip.at,
            lastError: null,
            ...facts,
          }
        : reminder === null
          ? {
              id,
              projectId: check.projectId,
              check: carried,
              flip,
              channel: kept,
              lastPing: lastRecord,
              lastPingBody: lastBody,
              projectName,
              downSinceAt,
              attempts: 0,
              nextAttemptAt: flip.at,
              lastError: null,
            }
          : {
              id,
              projectId: check.projectId,
              check: carried,
              flip,
              channel: kept,
              lastPing: lastRecord,
              lastPingBody: lastBody,
              projectName,
              downSinceAt,
              attempts: 0,
              nextAttemptAt: flip.at,
              lastError: null,
              reminder,
            },
    );
  }
}
