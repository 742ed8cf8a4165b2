// Reads of a partition's history stream (partition-history.ts): a check's newest pings and a ping's body by
// a binary search of message gets, its flips, and the last position stored, each seeing every acknowledged write.
import { AckPolicy, DeliverPolicy } from "@nats-io/jetstream";
import type { ConsumerInfo, StoredMsg } from "@nats-io/jetstream";
import { nanos } from "@nats-io/nats-core";
import type { Flip, PingRecord } from "../engine/model.ts";
import type { FlipQuery } from "../host/pool-api.ts";
import type { PartitionStream } from "./jetstream-setup.ts";
import { decodeFlip, decodePings, historySubject, newestFirst, newestOf, positionOf } from "./history-codec.ts";
import type { DecodedPing, HistoryKind } from "./history-codec.ts";
import { within } from "./within.ts";

/** How long a read waits for its consumer, or for its next message, before it fails. */
const READ_IDLE_MS = 10_000;

type StoredMsgLike = { readonly seq: number; readonly data: Uint8Array };

/**
 * Every read starts with a message get of the subject's newest message (answered by the stream's leader,
 * never by a lagging replica), then reads up to that message's sequence, which waits for a lagging
 * replica to catch up: a read sees every acknowledged write.
 */
export class HistoryReader {
  readonly #stream: PartitionStream;

  constructor(stream: PartitionStream) {
    this.#stream = stream;
  }

  /**
   * The position of the last record that stored something (0: none), asked of the stream's leader. Every
   * message of the records before it is stored; the record at it may be stored in part, so a new owner
   * records it again (its stored messages are duplicates), and every later one.
   */
  async lastRecorded(): Promise<number> {
    let last = (await this.#stream.jsm.streams.info(this.#stream.stream)).state.last_seq; // perhaps a lagging replica's
    // the leader knows of any later message
    for (;;) {
      const later = await this.#get({ seq: last + 1, next_by_subj: `${this.#stream.subject}.>` });
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
    const subject = this.#subjectOf("ping", checkUuid);
    const newest = await this.#get({ last_by_subj: subject });
    if (newest === null) return [];
    const newestPings = decodePings(newest.data);
    const from = Math.max(1, newestOf(newestPings) - limit + 1);
    let messages: StoredMsgLike[] = [newest];
    if (newestPings[0].record.n > from) {
      const first = from === 1 ? 1 : (await this.#firstHolding(subject, from, newest.seq)).message.seq;
      if (first < newest.seq) messages = await this.#read(subject, first, newest.seq);
    }
    return newestFirst(
      messages.flatMap((message) => decodePings(message.data).map((ping) => ping.record)),
      limit,
    );
  }

  /** Ping n's stored body, or null when it has none or is no longer kept. */
  async pingBody(checkUuid: string, n: number): Promise<Uint8Array | null> {
    if (n < 1) return null;
    const subject = this.#subjectOf("ping", checkUuid);
    const newest = await this.#get({ last_by_subj: subject });
    if (newest === null) return null;
    const newestPings = decodePings(newest.data);
    if (n > newestOf(newestPings)) return null;
    const holding = n >= newestPings[0].record.n ? newestPings : (await this.#firstHolding(subject, n, newest.seq)).pings;
    return holding.find((ping) => ping.record.n === n)?.body ?? null; // none: n is no longer kept
  }

  /** The check's flips with fromAt <= at < toAt (either bound optional), newest first. */
  async flips(checkUuid: string, query: FlipQuery): Promise<Flip[]> {
    const fromAt = query.fromAt ?? -Infinity,
      toAt = query.toAt ?? Infinity;
    return (await this.#allFlips(checkUuid)).filter((flip) => flip.at >= fromAt && flip.at < toAt);
  }

  /** The check's flip number n, or null. */
  async flipNumber(checkUuid: string, n: number): Promise<Flip | null> {
    const newest = await this.#get({ last_by_subj: this.#subjectOf("flip", checkUuid) });
    if (newest === null) return null;
    // nearly always the newest or the one before (a notification's flip and its predecessor)
    const flip = decodeFlip(newest.data);
    if (flip.n === n) return flip;
    return (await this.#allFlips(checkUuid, newest)).find((f) => f.n === n) ?? null;
  }

  /** Every kept flip of the check, newest first (by time, then number, as flip-log.ts orders them). */
  async #allFlips(checkUuid: string, newest?: StoredMsg): Promise<Flip[]> {
    const subject = this.#subjectOf("flip", checkUuid);
    const last = newest ?? (await this.#get({ last_by_subj: subject }));
    if (last === null) return [];
    const flips = (await this.#read(subject, 1, last.seq)).map((message) => decodeFlip(message.data));
    return flips.sort((a, b) => b.at - a.at || b.n - a.n);
  }

  /**
   * The first kept message of the subject whose newest ping is numbered `n` or above (the oldest kept when
   * all are), by a binary search of message gets over the sequences up to `newestSeq` (its newest ping is
   * at least n): log2 of the stream's length in gets, instead of reading the whole subject.
   *
   * Invariant: the newest ping of a subject's messages never falls from one message to the next (segments
   * hold pings one after another, stored in the order sent; a replay's copy ends no earlier than what was
   * stored before it), so the message found holds ping n if it is kept.
   */
  async #firstHolding(subject: string, n: number, newestSeq: number): Promise<{ message: StoredMsg; pings: DecodedPing[] }> {
    let low = 1,
      high = newestSeq;
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
    if (best === null) throw new Error(`${this.#stream.stream}: ${subject} holds no ping from ${n} up to sequence ${newestSeq}`);
    return best;
  }

  /**
   * The subject's messages from sequence `from` up to `to` (inclusive; the caller has seen `to` stored),
   * through an ephemeral consumer of its own, which waits however far behind the replica it reads is; by
   * message gets when no consumer can be made.
   */
  async #read(subject: string, from: number, to: number): Promise<StoredMsgLike[]> {
    const { stream, js, jsm } = this.#stream;
    let created: ConsumerInfo;
    try {
      // a consumer created by a request whose answer was lost is removed once inactive
      created = await jsm.consumers.add(stream, {
        filter_subject: subject,
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: Math.max(1, from),
        ack_policy: AckPolicy.None,
        mem_storage: true,
        inactive_threshold: nanos(30_000), // left behind by a reader that died: removed
      });
    } catch {
      // the meta leader answers consumer creation, and after a server's loss the cluster may have none for
      // many seconds while the stream's own leader answers gets already (docs/cluster.md, NATS server notes)
      return this.#readByGets(subject, from, to);
    }
    const drop = () => void jsm.consumers.delete(stream, created.name).catch(() => {});
    const starting = js.consumers.get(stream, created.name).then((consumer) => consumer.consume({ max_messages: 1_000 }));
    const messages = await within(starting, READ_IDLE_MS, `${stream}: no consumer of ${subject} after ${READ_IDLE_MS} ms`).catch(
      (error: unknown) => {
        void starting.then(
          (late) => late.stop(),
          () => {},
        );
        drop();
        throw error;
      },
    );
    const out: StoredMsgLike[] = [];
    const iterator = messages[Symbol.asyncIterator]();
    try {
      for (;;) {
        const step = await within(
          iterator.next(),
          READ_IDLE_MS,
          `${stream}: no message of ${subject} for ${READ_IDLE_MS} ms reading ${from}..${to}`,
        ).catch(async (error: unknown) => {
          // purged meanwhile (the check deleted): what was read is all there is
          if ((await this.#get({ seq: to })) === null) return null;
          throw error;
        });
        if (step === null) break;
        if (step.done) throw new Error(`${stream}: the read of ${subject} ended before sequence ${to}`);
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

  /** The subject's messages from `from` up to `to`, one message get after another (slower than a consumer: docs/cluster.md, NATS server notes). */
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
    return this.#stream.jsm.streams.getMessage(this.#stream.stream, query);
  }

  #subjectOf(kind: HistoryKind, checkUuid: string): string {
    return historySubject(this.#stream.subject, kind, checkUuid);
  }
}
