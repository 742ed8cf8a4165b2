// Writes to a partition's history stream (partition-history.ts): a record's flips and deleted checks,
// held pings as segments, each check's oldest segments trimmed; all in position order, as chained publishes.
import { randomUUID } from "node:crypto";
import { PubHeaders } from "@nats-io/jetstream";
import type { PubAck } from "@nats-io/jetstream";
import { headers } from "@nats-io/nats-core";
import type { MsgHdrs } from "@nats-io/nats-core";
import type { Changes } from "../engine/changes.ts";
import { LIMITS } from "../engine/model.ts";
import { log } from "../host/log.ts";
import type { PartitionStream } from "./jetstream-setup.ts";
import { unanswered } from "./nats-errors.ts";
import type { HeldPing } from "./ping-tail.ts";
import { replyInboxOf } from "./reply-inbox.ts";
import {
  encodeDeletedMessage,
  encodeFlipMessage,
  encodeSegmentMessage,
  historySubject,
  POSITION_HEADER,
  segmentsOf,
} from "./history-codec.ts";
import type { HistoryKind } from "./history-codec.ts";

/** How many times a chain's last message is sent while its PubAck does not come. */
const PUBLISH_ATTEMPTS = 3;
/** Most messages sent as one chain (one PubAck); the records beyond it go in the next. */
const GROUP_MESSAGES = 256;
/**
 * How long the records applied after a chain's first one may join it (measured: docs/cluster.md, NATS server notes). A ping
 * is answered before its history is stored (partition-host.ts), so the wait delays only the owner's reads.
 */
export const GROUP_WAIT_MS = 25;

type Outgoing = { readonly subject: string; readonly data: Uint8Array; readonly id: string; readonly position: number };

/** A record's changes that its history stores; its pings are held and stored as segments (storeSegments). */
export type HistoryRecord = Pick<Changes, "flips" | "deletedChecks">;

/**
 * A record refused because an earlier one failed: messages sent after a lost one are missing too, so the
 * owner must open the history again and replay from lastRecorded() (a takeover's replay).
 */
export class HistoryGapError extends Error {
  override name = "HistoryGapError";
}

/** The headers of a chain's message: its position, its id (duplicates dropped) and the id it must follow. */
function messageHeaders(message: Outgoing, expectId: string | null): MsgHdrs {
  const h = headers();
  h.set(POSITION_HEADER, String(message.position));
  h.set(PubHeaders.MsgIdHdr, message.id);
  if (expectId !== null) h.set(PubHeaders.ExpectedLastMsgIdHdr, expectId);
  return h;
}

function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: unknown) => void } {
  let resolve!: () => void, reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * The history's writer. Invariants:
 * - what is stored is always the start of what was sent, never with a hole, so lastRecorded() is a
 *   position before which nothing is missing;
 * - a message's id is its stream, its record's position (and index in its log message) and its place in
 *   the record, so a record stored again (a new owner's replay) is dropped as a duplicate;
 * - after a failed record every later one is refused (HistoryGapError) until the history is opened again.
 */
export class HistoryWriter {
  readonly #stream: PartitionStream;
  readonly #groupWaitMs: number;
  /** Resolves once the previous unit's messages have all been sent (their PubAcks may still be coming). */
  #sent: Promise<void> = Promise.resolve();
  /** The units whose PubAcks are still coming (settled or not, each removes itself). */
  readonly #inFlight = new Set<Promise<unknown>>();
  /** The records waiting to be sent together (for at most groupWaitMs). */
  #group: { messages: Outgoing[]; done: ReturnType<typeof deferred> } | null = null;
  /** The id of the last message sent, and how many units sent are still unanswered. */
  #lastSentId: string | null = null;
  #unanswered = 0;
  /** Why an earlier record failed; from then on every record is refused. */
  #failed: Error | null = null;
  /** Makes this opening's segment ids its own: a segment is never dropped as another's duplicate. */
  readonly #openingId = randomUUID();
  #segmentsSent = 0;
  /** Per check, how many pings each segment this opening stored holds, oldest first (what trimming counts). */
  readonly #segmentSizes = new Map<string, number[]>();
  /** Records at or below this position may be stored already: a new owner's replay from lastRecorded(). */
  #mayBeStoredUpTo = 0;

  constructor(stream: PartitionStream, groupWaitMs: number) {
    this.#stream = stream;
    this.#groupWaitMs = groupWaitMs;
  }

  /**
   * Records at or below `position` may be stored already (lastRecorded() answered it: a new owner replays
   * from there): each goes alone (#sendUnit), as its messages may be dropped as duplicates.
   */
  mayBeStoredUpTo(position: number): void {
    this.#mayBeStoredUpTo = Math.max(this.#mayBeStoredUpTo, position);
  }

  /**
   * Stores what the record at `position` changed: its flips, and its deleted checks (a tombstone, then
   * their pings and flips purged). Resolves once every message is acknowledged (or dropped as a
   * duplicate: the same record stored before); rejects otherwise, and from then on every record is refused
   * (HistoryGapError). Calls may overlap and come in increasing position order (and, within a log message
   * of several records, increasing `index`). An empty change publishes nothing.
   */
  record(position: number, changes: HistoryRecord, index = 0): Promise<void> {
    const deleted = new Set(changes.deletedChecks.map((d) => d.uuid));
    const outgoing: Outgoing[] = [];
    // the first record of a message keeps the ids of the time each record was a message of its own
    const place = index === 0 ? `${position}` : `${position}.${index}`;
    const add = (subject: string, data: Uint8Array) =>
      outgoing.push({ subject, data, id: `${this.#stream.stream}:${place}:${outgoing.length}`, position });
    // a check deleted by the same record keeps nothing of it
    for (const flip of changes.flips) {
      if (!deleted.has(flip.checkUuid)) add(this.#subjectOf("flip", flip.checkUuid), encodeFlipMessage(flip));
    }
    for (const uuid of deleted) {
      add(this.#subjectOf("del", uuid), encodeDeletedMessage(uuid));
      this.#segmentSizes.delete(uuid);
    }
    if (outgoing.length === 0) return Promise.resolve();
    const stored = position <= this.#mayBeStoredUpTo;
    if (deleted.size > 0 || stored) {
      this.#sendGroup(); // the records before it go first
      return this.#sendUnit(outgoing, deleted, stored);
    }
    // the records applied within groupWaitMs go out as one chain with one PubAck
    const group = (this.#group ??= { messages: [], done: deferred() });
    group.messages.push(...outgoing);
    if (group.messages.length >= GROUP_MESSAGES) this.#sendGroup();
    else if (group.messages.length === outgoing.length) setTimeout(() => this.#sendGroup(), this.#groupWaitMs);
    return group.done.promise;
  }

  /**
   * Stores held pings (ping-tail.ts) as segments: per check, its pings in messages of up to SEGMENT_PINGS
   * (and SEGMENT_BYTES) on its ping subject, in the chain after every record sent before, each message
   * carrying `position` (the last record whose pings it holds: every earlier record's history was sent
   * before it). Resolves once all are acknowledged; a failure refuses every later record, as record()'s
   * does. A ping stored twice (a takeover's replay of pings an earlier owner had stored) is listed once.
   * Then each check's oldest segments are trimmed once its newer ones hold the most the API lists.
   */
  async storeSegments(position: number, held: ReadonlyMap<string, readonly HeldPing[]>): Promise<void> {
    const outgoing: Outgoing[] = [];
    const sizes = new Map<string, number[]>();
    for (const [uuid, pings] of held) {
      const subject = this.#subjectOf("ping", uuid);
      for (const segment of segmentsOf(pings)) {
        outgoing.push({
          subject,
          data: encodeSegmentMessage(segment),
          id: `${this.#stream.stream}:segment:${this.#openingId}:${this.#segmentsSent++}`,
          position,
        });
        const counts = sizes.get(uuid) ?? [];
        sizes.set(uuid, counts);
        counts.push(segment.length);
      }
    }
    if (outgoing.length === 0) return;
    this.#sendGroup(); // the records before it go first
    await this.#sendUnit(outgoing, new Set());
    await Promise.all([...sizes].map(([uuid, counts]) => this.#trim(uuid, counts)));
  }

  /**
   * Keeps a check's newest segments that hold the most the API lists, and one more (a segment stored while
   * the purge is on its way would otherwise push one of them out): a purge that keeps that many newest
   * messages of the subject. A failed trim only keeps more.
   */
  async #trim(uuid: string, stored: readonly number[]): Promise<void> {
    const sizes = this.#segmentSizes.get(uuid) ?? [];
    this.#segmentSizes.set(uuid, sizes);
    sizes.push(...stored);
    let keep = 0;
    for (let i = sizes.length - 1, pings = 0; i >= 0 && pings < LIMITS.maxPingsListed; i--) {
      pings += sizes[i];
      keep++;
    }
    if (sizes.length <= keep + 1) return;
    sizes.splice(0, sizes.length - (keep + 1));
    try {
      await this.#stream.jsm.streams.purge(this.#stream.stream, { filter: this.#subjectOf("ping", uuid), keep: keep + 1 });
    } catch (error) {
      log.warn({ stream: this.#stream.stream, err: error }, "cluster: a check's oldest ping segments could not be trimmed");
    }
  }

  /** Sends the records waiting to go together, if any. */
  #sendGroup(): void {
    const group = this.#group;
    if (group === null) return;
    this.#group = null;
    this.#sendUnit(group.messages, new Set()).then(group.done.resolve, group.done.reject);
  }

  /**
   * Sends `outgoing` as one chain after the units sent before, then purges the `deleted` checks' pings and
   * flips (never by sequence: docs/cluster.md, NATS server notes). Steps:
   * 1. wait until the unit before has been sent (position order); a unit with deletions also waits for
   *    every unit in flight to be answered, so no ping of a deleted check lands after its purge; so does a
   *    unit `alone` (one that may be stored already: a message dropped as a duplicate does not become the
   *    stream's last, so no chain may expect it), and the unit after it waits for its PubAck (step 4);
   * 2. refuse (HistoryGapError) if an earlier unit failed;
   * 3. publish every message but the last without asking for a PubAck, each expecting the one before it
   *    to be the stream's last (Nats-Expected-Last-Msg-Id, checked after the duplicate check, so a
   *    replay's duplicates pass); the first expects the previous unit's last message while that one is
   *    unanswered, and nothing when none is (every earlier unit is stored, and a leader elected after a
   *    quiet spell longer than the duplicate window no longer knows the last id);
   * 4. send the last message and wait for its PubAck, sending it again with the same id while unanswered:
   *    since a lost message makes every later one refused, that PubAck means the whole chain is stored
   *    (after a unit alone, the next one is sent only now, expecting nothing);
   * 5. purge the deleted checks' ping and flip subjects (the tombstone stays the stream's last message, so
   *    lastRecorded() finds it; a takeover between the two stores it again and purges again).
   * A failure at 3-5 is kept: every later unit is refused at step 2.
   */
  #sendUnit(outgoing: readonly Outgoing[], deleted: ReadonlySet<string>, alone = false): Promise<void> {
    const previousSent = this.#sent;
    const earlier = deleted.size === 0 && !alone ? [] : [...this.#inFlight];
    let markSent!: () => void;
    this.#sent = new Promise((resolve) => {
      markSent = resolve;
    });
    const stored = (async () => {
      try {
        await previousSent; // 1.
        if (earlier.length > 0) await Promise.allSettled(earlier);
      } finally {
        // sent now (synchronously, below) or never: either way the next unit may go (once this one is answered, when alone)
        if (!alone) queueMicrotask(markSent);
      }
      if (this.#failed !== null)
        throw new HistoryGapError(
          `${this.#stream.stream}: position ${outgoing[0].position} refused, an earlier record failed (${this.#failed.message})`,
        );
      try {
        // 3. chained to the unit before while that one is unanswered: stored only right after it
        let expectId = this.#unanswered > 0 ? this.#lastSentId : null;
        for (const message of outgoing.slice(0, -1)) {
          this.#stream.connection.publish(message.subject, message.data, { headers: messageHeaders(message, expectId) });
          expectId = message.id;
        }
        // 4.
        const last = outgoing[outgoing.length - 1];
        this.#lastSentId = last.id;
        this.#unanswered++;
        const answered = () => {
          this.#unanswered--;
        };
        const ack = this.#publish(last, expectId);
        ack.then(answered, answered);
        await ack;
        // 5.
        for (const uuid of deleted) {
          for (const kind of ["ping", "flip"] as const)
            await this.#stream.jsm.streams.purge(this.#stream.stream, { filter: this.#subjectOf(kind, uuid) });
        }
      } catch (error) {
        // a message not sent (too large, the connection closed) or refused: the later ones are refused too
        this.#failed ??= error as Error;
        throw error;
      }
    })();
    this.#inFlight.add(stored);
    const forget = () => {
      this.#inFlight.delete(stored);
      if (alone) markSent();
    };
    stored.then(forget, forget);
    return stored;
  }

  /** Sends a chain's last message (or a lone one) and waits for its PubAck: the same headers as the others. */
  async #publish(message: Outgoing, expectId: string | null): Promise<PubAck> {
    const h = messageHeaders(message, expectId);
    for (let attempt = 1; ; attempt++) {
      try {
        return await replyInboxOf(this.#stream.connection).publish(message.subject, message.data, {
          headers: h,
          timeoutMs: this.#stream.ackTimeoutMs,
        });
      } catch (error) {
        if (attempt >= PUBLISH_ATTEMPTS || !unanswered(error)) throw error;
      }
    }
  }

  #subjectOf(kind: HistoryKind, checkUuid: string): string {
    return historySubject(this.#stream.subject, kind, checkUuid);
  }
}
