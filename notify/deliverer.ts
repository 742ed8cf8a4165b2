// Delivers due outbox entries (Project decision, fact sheet §2): each channel independently, at least
// once, retried with exponential backoff, in flip order per check and channel. Time is passed in.
//
// Ordering: entries of one (check, channel) pair form a queue, sent one after another in flip order.
// When one fails, the later ones of its queue wait until its retry time, so a receiver never hears
// "up" before the "down" that preceded it. Queues run concurrently, at most `concurrency` sends at
// once; a queue still busy from an earlier call is skipped, so a hanging endpoint never holds up
// another queue or the next call.
import type { OutboxEntry } from "../engine/changes.ts";
import { GAVE_UP_AT, hasGivenUp } from "../engine/changes.ts";
import type { Channel, Millis, NtfySpec } from "../engine/model.ts";
import { HOUR } from "../engine/model.ts";
import type { Delivery } from "./delivery.ts";
import { isPermanentResponse, ntfyTarget, render } from "./render.ts";
import type { SendResult } from "./delivery.ts";
import { retryAfterOf, sendEmail, sendRequests } from "./send.ts";
import { serviceRefusal } from "./kinds/service.ts";
import { groupMembers, memberEntry } from "./kinds/group.ts";
import type { ServiceSettings } from "./kinds/settings.ts";
import { DEFAULT_SERVICE_SETTINGS } from "./kinds/settings.ts";
import { log } from "../host/log.ts";
import { BoundedMap } from "../lib/bounded-map.ts";

/**
 * The store methods the deliverer needs; outboxAll (optional) restores the ordering memory after a restart;
 * outboxHas (optional) tells whether an entry read earlier is still to send (its channel may have been
 * removed while the queue waited for a slot or for the entry before it).
 */
export type Outbox = {
  outboxDue(at: Millis, limit: number): OutboxEntry[];
  outboxUpdate(entry: OutboxEntry): Promise<void>;
  outboxDelete(id: string): Promise<void>;
  /** Removes a delivered entry and keeps its record (the check's events show it); absent: deleted like any other. */
  outboxDelivered?(entry: OutboxEntry, sentAt: Millis): Promise<void>;
  outboxAll?(): OutboxEntry[];
  outboxHas?(id: string): boolean;
};

export type DelivererOptions = {
  readonly outbox: Outbox;
  readonly siteRoot: string;
  readonly siteName?: string; // default "hcd": Slack username, "View on …"
  readonly allowPrivateIps: boolean;
  readonly smtpUrl?: string;
  readonly fromAddress: string;
  readonly maxAttempts?: number; // default 8
  readonly baseBackoffMs?: number; // default 10 s, doubled per failed attempt
  readonly maxBackoffMs?: number; // default 1 h
  readonly timeoutMs?: number; // default 10 s per delivery, redirects included
  readonly concurrency?: number; // default 16 sends at once
  readonly batchSize?: number; // default 200 entries per call
  readonly maxResponseBytes?: number; // default 64 KiB read from an answer
  readonly services?: ServiceSettings; // the kinds of notify/kinds/: tokens and endpoints; default the real services, no tokens
  /** A project's channels now, for a group's members; absent: group entries are given up. */
  readonly channels?: (projectId: string) => Promise<readonly Channel[]>;
  /** Hears every attempt's result (metrics and logs); `error` is the stored last_error of a failure. */
  readonly onResult?: (entry: OutboxEntry, result: DeliveryResult, error: string | null) => void;
};

/** A failed send: its stored error, whether retrying can help, and how long the receiver asked to wait. */
type Failure = { readonly error: string; readonly permanent: boolean; readonly retryAfterMs: number | null };

/** What one attempt came to: sent, failed (to be retried) or given up. */
export type DeliveryResult = "sent" | "failed" | "given_up";

// ntfy's rate limit (fact sheet §6: 6 messages per server+topic per minute) is counted for at most this many
// topics, the least recently used forgotten first: memory stays bounded however many topics channels name
const NTFY_TOPICS_KEPT = 10_000;
const NTFY_PER_MINUTE = 6;
const RETRY_AFTER_MAX_MS = 24 * HOUR; // a Retry-After longer than a day is taken as a day

type Settings = Required<Omit<DelivererOptions, "smtpUrl" | "channels">> & {
  readonly smtpUrl: string | undefined;
  readonly channels: DelivererOptions["channels"];
};
const IGNORE_RESULT = () => {};

/** Sends due outbox entries; the host calls deliverDue(now) from its timer (or the virtual clock). */
export class Deliverer {
  readonly #settings: Settings;
  readonly #busyQueues = new Set<string>();
  readonly #blockers = new Map<string, OutboxEntry>(); // queue → its earliest entry waiting for a retry
  readonly #ntfySentAt = new BoundedMap<string, Millis[]>(NTFY_TOPICS_KEPT); // server/topic → recent send instants, the least recently used forgotten first
  #running = 0;
  readonly #waitingForSlot: (() => void)[] = [];
  #restored = false;
  readonly #skipped = new Set<string>(); // queues that had due entries while busy: rerun when they finish
  #latestNow: Millis = 0;
  readonly #groupDone = new Map<string, Set<string>>(); // group entry → members that got it

  constructor(options: DelivererOptions) {
    this.#settings = {
      siteName: "hcd",
      maxAttempts: 8,
      baseBackoffMs: 10_000,
      maxBackoffMs: HOUR,
      timeoutMs: 10_000,
      concurrency: 16,
      batchSize: 200,
      maxResponseBytes: 64 * 1024,
      onResult: IGNORE_RESULT,
      services: DEFAULT_SERVICE_SETTINGS,
      ...options,
      smtpUrl: options.smtpUrl,
      channels: options.channels,
    };
  }

  /**
   * Sends every entry due at `now` whose queue is idle; resolves when those sends are recorded.
   * Delivery failures become entry state, never exceptions; a failing store write is rethrown after
   * all other entries were handled.
   */
  async deliverDue(now: Millis): Promise<void> {
    this.#restoreBlockers();
    this.#latestNow = Math.max(this.#latestNow, now);
    const queues = new Map<string, OutboxEntry[]>();
    for (const entry of this.#settings.outbox.outboxDue(now, this.#settings.batchSize)) {
      if (hasGivenUp(entry)) continue;
      const key = queueKey(entry);
      if (this.#busyQueues.has(key)) {
        // still sending from an earlier call: it looks again when done
        this.#skipped.add(key);
        continue;
      }
      queues.set(key, [...(queues.get(key) ?? []), entry]);
    }
    const runs = [...queues].map(([key, entries]) => this.#runQueue(key, entries.sort(byFlipOrder), now));
    const storeErrors = (await Promise.allSettled(runs)).flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
    if (storeErrors.length > 0) throw new AggregateError(storeErrors, "outbox write failed");
  }

  async #runQueue(key: string, entries: OutboxEntry[], now: Millis): Promise<void> {
    this.#busyQueues.add(key);
    try {
      for (let i = 0; i < entries.length; i++) {
        const blocker = this.#blockers.get(key);
        // a blocker due by now but absent from this batch is gone (its check was deleted): it holds nothing back
        if (blocker !== undefined && blocker.nextAttemptAt > now && byFlipOrder(blocker, entries[i]) < 0) {
          await this.#defer(entries.slice(i), blocker.nextAttemptAt); // an earlier flip is still waiting for its retry
          return;
        }
        const after = await this.#attempt(entries[i], now);
        if (after !== null && !hasGivenUp(after)) {
          this.#blockers.set(key, after);
          await this.#defer(entries.slice(i + 1), after.nextAttemptAt);
          return;
        }
        if (this.#blockers.get(key)?.id === entries[i].id) this.#blockers.delete(key);
      }
    } finally {
      this.#busyQueues.delete(key);
      if (this.#skipped.delete(key)) {
        this.deliverDue(this.#latestNow).catch((error: unknown) => log.error({ err: error }, "notification delivery failed"));
      }
    }
  }

  /**
   * Sends one entry at once, outside the outbox ("Test" on the integrations page): the same rendering,
   * group fan-out and reading of answers as a real delivery, no retry. Resolves with null when it was
   * accepted, else the error a real delivery would store.
   */
  async sendOnce(entry: OutboxEntry, now: Millis): Promise<string | null> {
    try {
      const tried = entry.channel.value.kind === "group" ? await this.#tryGroup(entry, now) : await this.#tryOne(entry, now, false);
      if (tried === "sent") return null;
      if (tried === "nothing" || tried === "gone") {
        return entry.channel.value.kind === "group"
          ? "this group has no integrations to send to"
          : `this integration sends nothing for a ${entry.flip.to} notification`;
      }
      return tried.error;
    } finally {
      this.#groupDone.delete(entry.id);
    }
  }

  /** Tries one entry; returns its stored new state after a failure, or null once it is delivered (deleted). */
  async #attempt(entry: OutboxEntry, now: Millis): Promise<OutboxEntry | null> {
    const { outbox } = this.#settings;
    const tried = entry.channel.value.kind === "group" ? await this.#tryGroup(entry, now) : await this.#tryOne(entry, now, true);
    if (tried === "gone") return null;
    if (tried === "nothing" || tried === "sent") {
      if (tried === "sent" && outbox.outboxDelivered !== undefined) await outbox.outboxDelivered(entry, now);
      else await outbox.outboxDelete(entry.id);
      if (tried === "sent") this.#settings.onResult(entry, "sent", null);
      return null;
    }
    return this.#recordFailure(entry, now, tried);
  }

  /**
   * Renders and sends one entry: "nothing" when its channel sends nothing in this direction, "gone" when
   * the entry left the outbox meanwhile (its channel was removed; checked when `checkGone`), else the outcome.
   */
  async #tryOne(entry: OutboxEntry, now: Millis, checkGone: boolean): Promise<"sent" | "nothing" | "gone" | Failure> {
    let delivery: Delivery | null;
    try {
      delivery = render(entry, { siteRoot: this.#settings.siteRoot, siteName: this.#settings.siteName, services: this.#settings.services });
    } catch (error) {
      // a value the renderer cannot use (e.g. a malformed URL, a setting the server lacks) will not improve with retries
      return { error: `Cannot build the message: ${String(error)}`, permanent: true, retryAfterMs: null };
    }
    if (delivery === null) return "nothing";
    const result = await this.#withSlot(() =>
      checkGone && this.#settings.outbox.outboxHas?.(entry.id) === false ? Promise.resolve(null) : this.#send(entry, delivery, now),
    );
    if (result === null) return "gone";
    if (result.ok) return "sent";
    const retryAfterMs = retryAfterOf(result.retryAfter ?? null, now);
    const value = entry.channel.value;
    if ("fields" in value && result.status !== null) {
      // a kind of notify/kinds/: its own reading of the answer
      return { ...serviceRefusal(value.kind, value.fields, this.#settings.services, result.status, result.responseBody), retryAfterMs };
    }
    const permanent =
      result.permanent || (result.status !== null && isPermanentResponse(entry.channel.kind, result.status, result.responseBody));
    return { error: result.error, permanent, retryAfterMs };
  }

  /**
   * A group's entry goes to each of its members as if to that channel; a member that got it is not sent
   * it again on the group's retry (while this process runs: at least once, as every delivery). The group
   * is done when every member got it or refused it for good.
   */
  async #tryGroup(entry: OutboxEntry, now: Millis): Promise<"sent" | "nothing" | "gone" | Failure> {
    const lookup = this.#settings.channels;
    if (lookup === undefined) return { error: "Group notifications cannot be delivered here", permanent: true, retryAfterMs: null };
    if (this.#settings.outbox.outboxHas?.(entry.id) === false) return "gone";
    const members = groupMembers(entry.channel, await lookup(entry.projectId));
    if (members.length === 0) return "nothing";
    const done = this.#groupDone.get(entry.id) ?? new Set<string>();
    const failures: Failure[] = [];
    await Promise.all(
      members
        .filter((member) => !done.has(member.id))
        .map(async (member) => {
          const tried = await this.#tryOne(memberEntry(entry, member), now, false);
          if (typeof tried === "string" || tried.permanent) done.add(member.id);
          if (typeof tried !== "string") failures.push({ ...tried, error: `${member.name || member.kind}: ${tried.error}` });
        }),
    );
    if (failures.length === 0) {
      this.#groupDone.delete(entry.id);
      return "sent";
    }
    const permanent = failures.every((failure) => failure.permanent);
    if (permanent) this.#groupDone.delete(entry.id);
    else this.#groupDone.set(entry.id, done);
    const retryAfterMs = Math.max(0, ...failures.map((failure) => failure.retryAfterMs ?? 0));
    return { error: failures.map((failure) => failure.error).join("; "), permanent, retryAfterMs };
  }

  #send(entry: OutboxEntry, delivery: Delivery, now: Millis): Promise<SendResult> {
    const { timeoutMs, maxResponseBytes, allowPrivateIps, smtpUrl, fromAddress } = this.#settings;
    if (delivery.kind === "email") return sendEmail(delivery, { smtpUrl, from: fromAddress, timeoutMs });
    if (entry.channel.value.kind === "ntfy" && !this.#ntfyAllowed(entry.channel.value.spec, now)) {
      return Promise.resolve({ ok: false, error: "Rate limit exceeded", permanent: false, status: null, responseBody: "" });
    }
    return sendRequests(delivery, { timeoutMs, maxResponseBytes, allowPrivateIps });
  }

  async #recordFailure(entry: OutboxEntry, now: Millis, failure: Failure): Promise<OutboxEntry> {
    const attempts = entry.attempts + 1;
    const { maxAttempts, baseBackoffMs, maxBackoffMs } = this.#settings;
    const done = failure.permanent || attempts >= maxAttempts;
    // a Retry-After longer than the backoff is honoured (up to a day): sooner would only be refused again
    const backoff = Math.max(
      Math.min(baseBackoffMs * 2 ** entry.attempts, maxBackoffMs),
      Math.min(failure.retryAfterMs ?? 0, RETRY_AFTER_MAX_MS),
    );
    const nextAttemptAt = done ? GAVE_UP_AT : now + backoff;
    const updated: OutboxEntry = { ...entry, attempts, nextAttemptAt, lastError: failure.error, lastAttemptAt: now };
    await this.#settings.outbox.outboxUpdate(updated);
    this.#settings.onResult(entry, done ? "given_up" : "failed", failure.error);
    return updated;
  }

  /** Moves entries behind a waiting one to its retry time, so they are sent after it, in order. */
  async #defer(entries: OutboxEntry[], untilAt: Millis): Promise<void> {
    for (const entry of entries) {
      if (entry.nextAttemptAt < untilAt) await this.#settings.outbox.outboxUpdate({ ...entry, nextAttemptAt: untilAt });
    }
  }

  // fact sheet §6: 6 messages per server+topic per minute, else no request
  #ntfyAllowed(spec: NtfySpec, now: Millis): boolean {
    const { server, topic } = ntfyTarget(spec);
    const key = `${server}/${topic}`;
    const recent = (this.#ntfySentAt.get(key) ?? []).filter((at) => at > now - 60_000);
    const allowed = recent.length < NTFY_PER_MINUTE;
    if (allowed) recent.push(now);
    this.#ntfySentAt.set(key, recent);
    return allowed;
  }

  async #withSlot<T>(work: () => Promise<T>): Promise<T> {
    while (this.#running >= this.#settings.concurrency) {
      await new Promise<void>((wake) => this.#waitingForSlot.push(wake));
    }
    this.#running++;
    try {
      return await work();
    } finally {
      this.#running--;
      this.#waitingForSlot.shift()?.();
    }
  }

  // After a restart, entries waiting for a retry still hold back the later flips of their queue
  #restoreBlockers(): void {
    if (this.#restored) return;
    this.#restored = true;
    for (const entry of this.#settings.outbox.outboxAll?.() ?? []) {
      if (entry.attempts === 0 || hasGivenUp(entry)) continue;
      const key = queueKey(entry),
        known = this.#blockers.get(key);
      if (known === undefined || byFlipOrder(entry, known) < 0) this.#blockers.set(key, entry);
    }
  }
}

function queueKey(entry: OutboxEntry): string {
  return `${entry.check.uuid}\u0000${entry.channel.id}`;
}

function byFlipOrder(a: OutboxEntry, b: OutboxEntry): number {
  return a.flip.at - b.flip.at || a.flip.n - b.flip.n || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
