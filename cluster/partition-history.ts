// A partition's ping logs and flips in JetStream, so that whichever node owns the partition next reads
// what the previous owner stored (single-node mode keeps them in LMDB: persistence/ping-log.ts,
// flip-log.ts).
//
// One R3 file stream per partition, a subject per check and kind: `<prefix>.<p>.ping.<uuid>` (a segment:
// many pings of the check, records and bodies, in one message; or, as stored before segments, one ping),
// `<prefix>.<p>.flip.<uuid>` and `<prefix>.<p>.del.<uuid>` (a deleted check's tombstone). The owner holds
// the pings it applies in memory (ping-tail.ts) and stores them at each snapshot, a segment per check of
// up to SEGMENT_PINGS: a ping costs a share of a message, not a message (the log holds the pings meanwhile,
// and a new owner's replay holds them again). A check's oldest segments are trimmed by a purge that keeps
// its newest ones holding LIMITS.maxPingsListed (1,000, the most the API ever lists) and one more; behind
// that, max_msgs_per_subject = 1,000 with discard Old caps every subject, so flips are capped the same way:
// a check keeps its newest 1,000 flips (single-node mode keeps them by age, pruneFlips). A project's
// ping_log_limit is below 1,000 or equal to it; readers ask for at most that many.
//
// Every message carries the log position of the record that produced it (header Hcd-Position) and a
// message id of stream, position (with the record's index in its log message, when not the first) and
// index within the record, so a record stored again (a new owner's
// replay of what the previous owner had stored in part) is dropped as a duplicate within the stream's
// duplicate window. The window is 10 minutes: a replay repeats the records from lastRecorded() on, the
// newest the previous owner stored, and it comes a lease expiry (15 s) and a takeover (snapshot, fence,
// replay: seconds) after that record was stored; minutes while the servers elect leaders or lose a
// quorum (then nothing is written, nor owned). A longer window costs the servers memory: they keep every
// id of the window (at 1,000 messages a second, 600,000 ids per partition).
//
// Deleting a check publishes its tombstone first, then purges its ping and flip subjects (a purge with a
// filter, never by sequence: Debian's 2.9.10 empties the whole stream on a purge with seq <= 1). In that
// order the stream's last message is never one a purge removes, so lastRecorded() (the last message's
// position) always finds it, and a takeover between the two stores the tombstone again (a duplicate)
// and purges again. A deletion first waits for every earlier record's PubAcks, so no ping of the check
// lands after its purge.
//
// Publishes are pipelined and grouped: the records applied within GROUP_WAIT_MS of each other go out as one
// chain of messages, and only the chain's last message asks for a PubAck;
// a chain sent while earlier ones wait for theirs goes right after them. What is stored is always the
// start of what was sent, never with a hole: a message sent while earlier ones are unanswered expects the
// one sent before it to be the stream's last (Nats-Expected-Last-Msg-Id, checked after the duplicate
// check, so a replay's duplicates pass), so when one is lost (a leader change) every later one is refused
// too, and the last one's PubAck means the whole chain is stored; lastRecorded() is a position before
// which nothing is missing. (A PubAck a message at a time cost as much again: a request, its timer and
// its answer per ping, on the node and on the servers.) After a failed record() every later one is
// refused (HistoryGapError): the owner opens the history again and replays from lastRecorded(), as it
// does at a takeover. A chain sent when nothing is in flight expects nothing: every earlier one is
// stored, and a leader elected after a quiet spell longer than the duplicate window no longer knows the
// last id. A chain's last message left unanswered (the stream electing a leader) is sent again with the
// same message id, so it is stored once.
//
// Reads see every acknowledged write: each starts with a message get (answered by the stream's leader,
// never by a lagging replica; jetstream-log.ts lastPosition) of the subject's newest message, then reads
// the subject with an ephemeral consumer until that message's sequence, which waits for a lagging
// replica to catch up. A ping stored twice (segments of pings a new owner's replay held again) is listed once. There is no batch get on 2.9.10, and a walk of single gets is slower (measured
// here on three local servers: a check's 1,000 pings in 50-120 ms through a consumer, 480-660 ms by
// 1,000 gets), so gets are the way only when no consumer can be made (the cluster without a meta leader
// after a server's loss, which leaves the stream's own leader answering gets). The newest ping of a subject's
// messages never falls from one message to the next (stored in the order sent; a replay's segment ends no
// earlier than what was stored before it), so the newest `limit` pings, or one ping's body, are found by a
// binary search of single message gets (next_by_subj from a sequence) instead of reading the whole subject:
// log2 of the stream's length.
import { randomUUID } from "node:crypto";
import { wirePackr as packr } from "./wire-packr.ts";
import { AckPolicy, DeliverPolicy, DiscardPolicy, PubHeaders, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import type { ConsumerInfo, JetStreamClient, JetStreamManager, StoredMsg } from "@nats-io/jetstream";
import { headers, nanos } from "@nats-io/nats-core";
import type { MsgHdrs, NatsConnection } from "@nats-io/nats-core";
import type { Changes } from "../engine/changes.ts";
import { LIMITS } from "../engine/model.ts";
import type { Flip, PingRecord } from "../engine/model.ts";
import type { FlipQuery } from "../host/pool-api.ts";
import { openPartitionStream } from "./jetstream-setup.ts";
import type { PartitionStream, PartitionStreamOptions } from "./jetstream-setup.ts";
import { log } from "../host/log.ts";
import { unanswered } from "./nats-errors.ts";
import { sizeOf } from "./ping-tail.ts";
import type { HeldPing } from "./ping-tail.ts";
import { replyInboxOf } from "./reply-inbox.ts";
import type { PubAck } from "./reply-inbox.ts";
import { within } from "./within.ts";

/**
 * Stream `${streamPrefix}_${partition}` (default HCD_HIST), subjects
 * `${subjectPrefix}.${partition}.ping|flip|del.<check uuid>` (default hcd.hist). A publish left without its
 * PubAck for ackTimeoutMs is sent again (twice), then rejects. Records join a chain for groupWaitMs
 * (default GROUP_WAIT_MS).
 */
export type PartitionHistoryOptions = PartitionStreamOptions & { readonly groupWaitMs?: number };

/** The first value of every message: what the rest is. Never renumbered; a new format gets a new id. */
const MESSAGE_IDS = { ping: 1, flip: 2, deleted: 3, segment: 4 } as const;
const POSITION_HEADER = "Hcd-Position";
const DUPLICATE_WINDOW_MS = 10 * 60_000;
const PUBLISH_ATTEMPTS = 3;
const READ_IDLE_MS = 10_000;

type Outgoing = { readonly subject: string; readonly data: Uint8Array; readonly id: string; readonly position: number };

/** Most pings, and bytes of them, in one segment message (a larger ping goes alone: it fit in the log's message). */
const SEGMENT_PINGS = 250;
const SEGMENT_BYTES = 256 * 1024;

/** Most messages sent as one chain (one PubAck); the records beyond it go in the next. */
const GROUP_MESSAGES = 256;
/**
 * How long the records applied after a chain's first one may join it. A ping is answered before its
 * history is stored (partition-host.ts), so the wait delays no answer, only the owner's reads of the
 * history; messages sent together reach the stream's leader together, which replicates them together:
 * measured at 30 connections (bench/RESULTS.md), 25 ms against one turn of the event loop cut the servers'
 * messages per ping by a quarter and the CPU per ping by a seventh.
 */
const GROUP_WAIT_MS = 25;

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
  const promise = new Promise<void>((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}

/**
 * A record refused because an earlier one failed: messages sent after a lost one are missing too, so the
 * owner must open the history again and replay from lastRecorded() (a takeover's replay).
 */
export class HistoryGapError extends Error {
  override name = "HistoryGapError";
}

export class PartitionHistory {
  readonly stream: string;
  readonly #subject: string;
  readonly #connection: NatsConnection;
  readonly #js: JetStreamClient;
  readonly #jsm: JetStreamManager;
  readonly #ackTimeoutMs: number;
  /** Resolves once the previous record's messages have all been sent (their PubAcks may still be coming). */
  #sent: Promise<void> = Promise.resolve();
  /** The records whose PubAcks are still coming (settled or not, each removes itself). */
  readonly #inFlight = new Set<Promise<unknown>>();
  /** The records waiting to be sent together (for at most GROUP_WAIT_MS). */
  #group: { messages: Outgoing[]; done: ReturnType<typeof deferred> } | null = null;
  /** The id of the last message sent, and how many units sent are still unanswered. */
  #lastSentId: string | null = null;
  #unanswered = 0;
  /** Why an earlier record failed; from then on every record is refused. */
  #failed: Error | null = null;

  readonly #groupWaitMs: number;
  /** Makes this opening's segment ids its own: a segment is never dropped as another's duplicate. */
  readonly #openingId = randomUUID();
  #segmentsSent = 0;
  /** Per check, how many pings each segment this opening stored holds, oldest first (what trimming counts). */
  readonly #segmentSizes = new Map<string, number[]>();

  private constructor(options: PartitionStream, groupWaitMs: number) {
    this.#groupWaitMs = groupWaitMs;
    this.stream = options.stream;
    this.#subject = options.subject;
    this.#connection = options.connection;
    this.#js = options.js;
    this.#jsm = options.jsm;
    this.#ackTimeoutMs = options.ackTimeoutMs;
  }

  /** Creates the partition's history stream unless it exists. */
  static async open(options: PartitionHistoryOptions): Promise<PartitionHistory> {
    // not keptUntilPurged, as the log's streams are: a check keeps its newest pings only
    return new PartitionHistory(await openPartitionStream(options, { streamPrefix: "HCD_HIST", subjectPrefix: "hcd.hist" }, (subject) => ({
      subjects: [`${subject}.>`], storage: StorageType.File, retention: RetentionPolicy.Limits, discard: DiscardPolicy.Old,
      max_msgs_per_subject: LIMITS.maxPingsListed, max_msgs: -1, max_bytes: -1, max_age: 0, duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    })), options.groupWaitMs ?? GROUP_WAIT_MS);
  }

  /**
   * Stores what the record at `position` changed: its pings (record and body), its flips, and its
   * deleted checks (their pings and flips purged). Resolves once every message is acknowledged (or
   * dropped as a duplicate: the same record stored before); rejects otherwise, and from then on every
   * record is refused (HistoryGapError) until the history is opened again. Calls may overlap and come in
   * increasing position order (and, within a log message of several records, increasing `index`). An
   * empty change publishes nothing.
   */
  record(position: number, changes: Pick<Changes, "pings" | "flips" | "deletedChecks">, index = 0): Promise<void> {
    const deleted = new Set(changes.deletedChecks.map((d) => d.uuid));
    const outgoing: Outgoing[] = [];
    // the first record of a message keeps the ids of the time each record was a message of its own
    const place = index === 0 ? `${position}` : `${position}.${index}`;
    const add = (subject: string, data: Uint8Array) => outgoing.push({ subject, data, id: `${this.stream}:${place}:${outgoing.length}`, position });
    // a check deleted by the same record keeps nothing of it
    for (const ping of changes.pings) {
      if (deleted.has(ping.checkUuid)) continue;
      const body = ping.body === null || ping.body.length === 0 ? null : ping.body;
      add(this.#kindSubject("ping", ping.checkUuid), encodePingMessage(ping.record, body));
    }
    for (const flip of changes.flips) {
      if (!deleted.has(flip.checkUuid)) add(this.#kindSubject("flip", flip.checkUuid), encodeFlipMessage(flip));
    }
    for (const uuid of deleted) {
      add(this.#kindSubject("del", uuid), encodeDeletedMessage(uuid));
      this.#segmentSizes.delete(uuid);
    }
    if (outgoing.length === 0) return Promise.resolve();
    if (deleted.size > 0) {
      this.#sendGroup(); // the records before it go first
      return this.#sendUnit(outgoing, deleted);
    }
    // the records applied within GROUP_WAIT_MS go out as one chain with one PubAck
    const group = this.#group ??= { messages: [], done: deferred() };
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
      const subject = this.#kindSubject("ping", uuid);
      for (const segment of segmentsOf(pings)) {
        outgoing.push({ subject, data: encodeSegmentMessage(segment), id: `${this.stream}:segment:${this.#openingId}:${this.#segmentsSent++}`, position });
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
    for (let i = sizes.length - 1, pings = 0; i >= 0 && pings < LIMITS.maxPingsListed; i--) { pings += sizes[i]; keep++; }
    if (sizes.length <= keep + 1) return;
    sizes.splice(0, sizes.length - (keep + 1));
    try {
      await this.#jsm.streams.purge(this.stream, { filter: this.#kindSubject("ping", uuid), keep: keep + 1 });
    } catch (error) {
      log.warn({ stream: this.stream, err: error }, "cluster: a check's oldest ping segments could not be trimmed");
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
   * flips. Every message but the last goes without asking for a PubAck: each expects the one before it to
   * be the stream's last, so the last one's PubAck says the whole chain is stored (a message lost on the
   * way makes every later one refused, the last one too).
   */
  #sendUnit(outgoing: readonly Outgoing[], deleted: ReadonlySet<string>): Promise<void> {
    const previousSent = this.#sent;
    const earlier = deleted.size === 0 ? [] : [...this.#inFlight];
    let markSent!: () => void;
    this.#sent = new Promise((resolve) => { markSent = resolve; });
    const stored = (async () => {
      try {
        await previousSent; // in position order, after the records before
        if (earlier.length > 0) await Promise.allSettled(earlier); // no ping of a deleted check lands after its purge
      } finally {
        // sent now (synchronously, below) or never: either way the next unit may go
        queueMicrotask(markSent);
      }
      if (this.#failed !== null) throw new HistoryGapError(`${this.stream}: position ${outgoing[0].position} refused, an earlier record failed (${this.#failed.message})`);
      try {
        // chained to the unit before while that one is unanswered: stored only right after it
        let expectId = this.#unanswered > 0 ? this.#lastSentId : null;
        for (const message of outgoing.slice(0, -1)) {
          this.#connection.publish(message.subject, message.data, { headers: messageHeaders(message, expectId) });
          expectId = message.id;
        }
        const last = outgoing[outgoing.length - 1];
        this.#lastSentId = last.id;
        this.#unanswered++;
        const answered = () => { this.#unanswered--; };
        const ack = this.#publish(last, expectId);
        ack.then(answered, answered);
        await ack;
        for (const uuid of deleted) {
          for (const kind of ["ping", "flip"] as const) await this.#jsm.streams.purge(this.stream, { filter: this.#kindSubject(kind, uuid) });
        }
      } catch (error) {
        // a message not sent (too large, the connection closed) or refused: the later ones are refused too
        this.#failed ??= error as Error;
        throw error;
      }
    })();
    this.#inFlight.add(stored);
    const forget = () => { this.#inFlight.delete(stored); };
    stored.then(forget, forget);
    return stored;
  }

  /**
   * The position of the last record that stored something (0: none), asked of the stream's leader. Every
   * message of the records before it is stored; the record at it may be stored in part, so a new owner
   * records it again (its stored messages are duplicates), and every later one.
   */
  async lastRecorded(): Promise<number> {
    let last = (await this.#jsm.streams.info(this.stream)).state.last_seq; // perhaps a lagging replica's
    // the leader knows of any later message
    for (;;) {
      const later = await this.#get({ seq: last + 1, next_by_subj: `${this.#subject}.>` });
      if (later === null) break;
      last = later.seq;
    }
    // the last message stays (a deletion's purge comes after its tombstone, and a per-subject cap never
    // drops a subject's newest), but walk back over any gone all the same
    for (let seq = last; seq >= 1; seq--) {
      const message = await this.#get({ seq });
      if (message !== null) return positionOf(message);
    }
    return 0;
  }

  /** The check's newest stored pings, newest first, at most `limit` (at most 1,000 are kept). */
  async pings(checkUuid: string, limit: number): Promise<PingRecord[]> {
    if (limit < 1) return [];
    const subject = this.#kindSubject("ping", checkUuid);
    const newest = await this.#get({ last_by_subj: subject });
    if (newest === null) return [];
    const newestPings = decodePings(newest.data);
    const from = Math.max(1, newestOf(newestPings) - limit + 1);
    let messages: StoredMsgLike[] = [newest];
    if (newestPings[0].record.n > from) {
      const first = from === 1 ? 1 : (await this.#firstHolding(subject, from, newest.seq)).message.seq;
      if (first < newest.seq) messages = await this.#read(subject, first, newest.seq);
    }
    return newestFirst(messages.flatMap((message) => decodePings(message.data).map((ping) => ping.record)), limit);
  }

  /** Ping n's stored body, or null when it has none or is no longer kept. */
  async pingBody(checkUuid: string, n: number): Promise<Uint8Array | null> {
    if (n < 1) return null;
    const subject = this.#kindSubject("ping", checkUuid);
    const newest = await this.#get({ last_by_subj: subject });
    if (newest === null) return null;
    const newestPings = decodePings(newest.data);
    if (n > newestOf(newestPings)) return null;
    const holding = n >= newestPings[0].record.n ? newestPings : (await this.#firstHolding(subject, n, newest.seq)).pings;
    return holding.find((ping) => ping.record.n === n)?.body ?? null; // none: n is no longer kept
  }

  /** The check's flips with fromAt <= at < toAt (either bound optional), newest first. */
  async flips(checkUuid: string, query: FlipQuery): Promise<Flip[]> {
    const fromAt = query.fromAt ?? -Infinity, toAt = query.toAt ?? Infinity;
    return (await this.#allFlips(checkUuid)).filter((flip) => flip.at >= fromAt && flip.at < toAt);
  }

  /** The check's flip number n, or null. */
  async flipNumber(checkUuid: string, n: number): Promise<Flip | null> {
    const newest = await this.#get({ last_by_subj: this.#kindSubject("flip", checkUuid) });
    if (newest === null) return null;
    // nearly always the newest or the one before (a notification's flip and its predecessor)
    const flip = decodeFlip(newest.data);
    if (flip.n === n) return flip;
    return (await this.#allFlips(checkUuid, newest)).find((f) => f.n === n) ?? null;
  }

  /** Every kept flip of the check, newest first (by time, then number, as flip-log.ts orders them). */
  async #allFlips(checkUuid: string, newest?: StoredMsg): Promise<Flip[]> {
    const subject = this.#kindSubject("flip", checkUuid);
    const last = newest ?? await this.#get({ last_by_subj: subject });
    if (last === null) return [];
    const flips = (await this.#read(subject, 1, last.seq)).map((message) => decodeFlip(message.data));
    return flips.sort((a, b) => b.at - a.at || b.n - a.n);
  }

  /**
   * The first kept message of the subject whose newest ping is numbered `n` or above (the oldest kept when
   * all are), by a binary search of message gets over the sequences up to `newestSeq` (its newest ping is at
   * least n). The newest ping of a subject's messages never falls from one to the next (segments hold
   * pings one after another, a replay's copy ends no earlier), so that message holds ping n if it is kept.
   */
  async #firstHolding(subject: string, n: number, newestSeq: number): Promise<{ message: StoredMsg; pings: DecodedPing[] }> {
    let low = 1, high = newestSeq;
    let best: { message: StoredMsg; pings: DecodedPing[] } | null = null;
    while (low <= high) {
      const middle = Math.floor((low + high) / 2);
      const message = await this.#get({ seq: middle, next_by_subj: subject });
      if (message === null || message.seq > newestSeq) {
        high = middle - 1; // nothing of the subject from here on up to the newest (purged meanwhile)
        continue;
      }
      const pings = decodePings(message.data);
      if (newestOf(pings) >= n) {
        best = { message, pings };
        high = middle - 1;
      } else {
        low = message.seq + 1;
      }
    }
    if (best === null) throw new Error(`${this.stream}: ${subject} holds no ping from ${n} up to sequence ${newestSeq}`);
    return best;
  }

  /**
   * The subject's messages from sequence `from` up to `to` (inclusive; the caller has seen `to` stored),
   * through an ephemeral consumer of its own, which waits however far behind the replica it reads is; by
   * message gets when no consumer can be made.
   */
  async #read(subject: string, from: number, to: number): Promise<StoredMsgLike[]> {
    let created: ConsumerInfo;
    try {
      // a consumer created by a request whose answer was lost is removed once inactive
      created = await this.#jsm.consumers.add(this.stream, {
        filter_subject: subject, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: Math.max(1, from),
        ack_policy: AckPolicy.None, mem_storage: true, inactive_threshold: nanos(30_000), // left behind by a reader that died: removed
      });
    } catch {
      // the meta leader answers consumer creation, and after a server's loss the cluster may have none for
      // many seconds (seen here: up to a minute) while the stream's own leader answers gets already
      return this.#readByGets(subject, from, to);
    }
    const drop = () => void this.#jsm.consumers.delete(this.stream, created.name).catch(() => {});
    const starting = this.#js.consumers.get(this.stream, created.name).then((consumer) => consumer.consume({ max_messages: 1_000 }));
    const messages = await within(starting, READ_IDLE_MS, `${this.stream}: no consumer of ${subject} after ${READ_IDLE_MS} ms`).catch((error: unknown) => {
      void starting.then((late) => late.stop(), () => {});
      drop();
      throw error;
    });
    const out: StoredMsgLike[] = [];
    const iterator = messages[Symbol.asyncIterator]();
    try {
      for (;;) {
        const step = await within(iterator.next(), READ_IDLE_MS, `${this.stream}: no message of ${subject} for ${READ_IDLE_MS} ms reading ${from}..${to}`).catch(async (error: unknown) => {
          // purged meanwhile (the check deleted): what was read is all there is
          if (await this.#get({ seq: to }) === null) return null;
          throw error;
        });
        if (step === null) break;
        if (step.done) throw new Error(`${this.stream}: the read of ${subject} ended before sequence ${to}`);
        const message = step.value;
        if (message.seq > to) break;
        out.push({ seq: message.seq, data: message.data });
        if (message.seq === to) break;
      }
    } finally {
      messages.stop();
      drop();
    }
    return out;
  }

  /** The subject's messages from `from` up to `to`, one message get after another (slower than a consumer: 1,000 in 480-660 ms here). */
  async #readByGets(subject: string, from: number, to: number): Promise<StoredMsgLike[]> {
    const out: StoredMsgLike[] = [];
    for (let seq = Math.max(1, from); seq <= to;) {
      const message = await this.#get({ seq, next_by_subj: subject });
      if (message === null || message.seq > to) break; // nothing more of the subject up to `to` (purged meanwhile)
      out.push({ seq: message.seq, data: message.data });
      seq = message.seq + 1;
    }
    return out;
  }

  /** A message get (answered by the stream's leader); null when there is no such message. */
  #get(query: { seq: number; next_by_subj?: string } | { last_by_subj: string }): Promise<StoredMsg | null> {
    // next_by_subj: the first message at or after seq on the subject; the client's types lack it
    return this.#jsm.streams.getMessage(this.stream, query as { seq: number });
  }

  /** Sends a chain's last message (or a lone one) and waits for its PubAck: the same headers as the others. */
  async #publish(message: Outgoing, expectId: string | null): Promise<PubAck> {
    const h = messageHeaders(message, expectId);
    for (let attempt = 1; ; attempt++) {
      try {
        return await replyInboxOf(this.#connection).publish(message.subject, message.data, { headers: h, timeoutMs: this.#ackTimeoutMs });
      } catch (error) {
        if (attempt >= PUBLISH_ATTEMPTS || !unanswered(error)) throw error;
      }
    }
  }

  #kindSubject(kind: "ping" | "flip" | "del", checkUuid: string): string {
    if (!/^[A-Za-z0-9_-]+$/.test(checkUuid)) throw new Error(`not a check uuid a subject can carry: ${JSON.stringify(checkUuid)}`);
    return `${this.#subject}.${kind}.${checkUuid}`;
  }
}

type StoredMsgLike = { readonly seq: number; readonly data: Uint8Array };
type DecodedPing = { readonly record: PingRecord; readonly body: Uint8Array | null };

/** A ping's message: [1, its record, its body or null]. */
export function encodePingMessage(record: PingRecord, body: Uint8Array | null): Uint8Array {
  return packr.pack([MESSAGE_IDS.ping, record, body]);
}

/** A flip's message: [2, the flip]. */
export function encodeFlipMessage(flip: Flip): Uint8Array {
  return packr.pack([MESSAGE_IDS.flip, flip]);
}

/** A deleted check's message: [3, its uuid]. */
export function encodeDeletedMessage(uuid: string): Uint8Array {
  return packr.pack([MESSAGE_IDS.deleted, uuid]);
}

/** A segment's message: [4, its pings' records, their bodies (null for none)], pings in increasing number. */
export function encodeSegmentMessage(pings: readonly HeldPing[]): Uint8Array {
  return packr.pack([MESSAGE_IDS.segment, pings.map((ping) => ping.record), pings.map((ping) => ping.body)]);
}

export function decodePing(bytes: Uint8Array): DecodedPing {
  const [record, body] = open(bytes, "ping", 2);
  return { record: record as PingRecord, body: body === null ? null : new Uint8Array(body as Uint8Array) };
}

/** The pings of a message on a ping subject, in increasing number: a segment's, or the one of a ping's message. */
export function decodePings(bytes: Uint8Array): DecodedPing[] {
  const value: unknown = packr.unpack(bytes);
  if (Array.isArray(value) && value[0] === MESSAGE_IDS.ping && value.length === 3) return [{ record: value[1] as PingRecord, body: value[2] === null ? null : new Uint8Array(value[2] as Uint8Array) }];
  const [id, records, bodies] = Array.isArray(value) ? value as [unknown, unknown, unknown] : [];
  if (id !== MESSAGE_IDS.segment || !Array.isArray(records) || !Array.isArray(bodies) || records.length === 0 || records.length !== bodies.length) {
    throw new Error(`not a history ping or segment message (message id ${Array.isArray(value) ? String(value[0]) : typeof value})`);
  }
  return records.map((record: PingRecord, i) => ({ record, body: bodies[i] === null ? null : new Uint8Array(bodies[i] as Uint8Array) }));
}

/** Splits a check's held pings into segments of at most SEGMENT_PINGS and SEGMENT_BYTES (a larger ping alone). */
function segmentsOf(pings: readonly HeldPing[]): HeldPing[][] {
  const segments: HeldPing[][] = [];
  let current: HeldPing[] = [], bytes = 0;
  for (const ping of pings) {
    const size = sizeOf(ping);
    if (current.length > 0 && (current.length >= SEGMENT_PINGS || bytes + size > SEGMENT_BYTES)) {
      segments.push(current);
      current = [];
      bytes = 0;
    }
    current.push(ping);
    bytes += size;
  }
  if (current.length > 0) segments.push(current);
  return segments;
}

function newestOf(pings: readonly DecodedPing[]): number {
  return pings[pings.length - 1].record.n;
}

/** The newest `limit` of the records, newest first, each number once (a replay may have stored some twice). */
export function newestFirst(records: readonly PingRecord[], limit: number): PingRecord[] {
  const byNumber = new Map(records.map((record) => [record.n, record]));
  return [...byNumber.values()].sort((a, b) => b.n - a.n).slice(0, limit);
}

export function decodeFlip(bytes: Uint8Array): Flip {
  return open(bytes, "flip", 1)[0] as Flip;
}

function positionOf(message: StoredMsg): number {
  const value = Number(message.header?.get(POSITION_HEADER));
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`message ${message.seq} of ${message.subject} carries no position`);
  return value;
}

/** Decodes a message of the given kind and returns its values after the message id; throws on any other kind. */
function open(bytes: Uint8Array, kind: keyof typeof MESSAGE_IDS, fields: number): unknown[] {
  const value: unknown = packr.unpack(bytes);
  if (!Array.isArray(value) || value[0] !== MESSAGE_IDS[kind] || value.length !== fields + 1) {
    throw new Error(`not a history ${kind} message (message id ${Array.isArray(value) ? String(value[0]) : typeof value})`);
  }
  return value.slice(1);
}
