// A partition's ping logs and flips in an R3 stream of its own, so that whichever node owns the partition
// next reads what the previous owner stored (single-node mode keeps them in LMDB). Layout: docs/cluster.md.
import { DiscardPolicy, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { nanos } from "@nats-io/nats-core";
import type { Flip, PingRecord } from "../engine/model.ts";
import { LIMITS } from "../engine/model.ts";
import type { FlipQuery } from "../host/pool-api.ts";
import { HistoryReader } from "./history-reader.ts";
import { GROUP_WAIT_MS, HistoryWriter } from "./history-writer.ts";
import type { HistoryRecord } from "./history-writer.ts";
import { openPartitionStream } from "./jetstream-setup.ts";
import type { PartitionStreamOptions } from "./jetstream-setup.ts";
import type { HeldPing } from "./ping-tail.ts";

export { HistoryGapError } from "./history-writer.ts";

/**
 * How long a record stored again is recognised as a duplicate by its message id: longer than a lease
 * expiry and a takeover (a new owner's replay repeats the records from lastRecorded() on); the servers keep
 * every id of the window in memory (docs/cluster.md, NATS server notes).
 */
const DUPLICATE_WINDOW_MS = 10 * 60_000;

/**
 * Stream `${streamPrefix}_${partition}` (default HCD_HIST), subjects
 * `${subjectPrefix}.${partition}.ping|flip|del.<check uuid>` (default hcd.hist). A publish left without its
 * PubAck for ackTimeoutMs is sent again (twice), then rejects. Records join a chain for groupWaitMs
 * (default GROUP_WAIT_MS).
 */
export type PartitionHistoryOptions = PartitionStreamOptions & { readonly groupWaitMs?: number };

/**
 * The history as its owner uses it: writes in position order (history-writer.ts), reads through the
 * stream's leader (history-reader.ts). A check keeps its newest 1,000 flips (max_msgs_per_subject, discard
 * Old) and its segments holding its newest 1,000 pings and one more (trimmed by the writer).
 */
export class PartitionHistory {
  readonly stream: string;
  readonly #writer: HistoryWriter;
  readonly #reader: HistoryReader;

  private constructor(stream: string, writer: HistoryWriter, reader: HistoryReader) {
    this.stream = stream;
    this.#writer = writer;
    this.#reader = reader;
  }

  /** Creates the partition's history stream unless it exists. */
  static async open(options: PartitionHistoryOptions): Promise<PartitionHistory> {
    // not keptUntilPurged, as the log's streams are: a check keeps its newest pings only
    const opened = await openPartitionStream(options, { streamPrefix: "HCD_HIST", subjectPrefix: "hcd.hist" }, (subject) => ({
      subjects: [`${subject}.>`],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      max_msgs_per_subject: LIMITS.maxPingsListed,
      max_msgs: -1,
      max_bytes: -1,
      max_age: 0,
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    }));
    return new PartitionHistory(opened.stream, new HistoryWriter(opened, options.groupWaitMs ?? GROUP_WAIT_MS), new HistoryReader(opened));
  }

  /** Stores a record's flips and deleted checks (HistoryWriter.record). */
  record(position: number, changes: HistoryRecord, index = 0): Promise<void> {
    return this.#writer.record(position, changes, index);
  }

  /** Stores held pings as segments, then trims each check's oldest (HistoryWriter.storeSegments). */
  storeSegments(position: number, held: ReadonlyMap<string, readonly HeldPing[]>): Promise<void> {
    return this.#writer.storeSegments(position, held);
  }

  /**
   * The position of the last record that stored something (HistoryReader.lastRecorded); a new owner replays
   * from there, so the writer takes the records up to it as possibly stored already.
   */
  async lastRecorded(): Promise<number> {
    const last = await this.#reader.lastRecorded();
    this.#writer.mayBeStoredUpTo(last);
    return last;
  }

  pings(checkUuid: string, limit: number): Promise<PingRecord[]> {
    return this.#reader.pings(checkUuid, limit);
  }

  pingBody(checkUuid: string, n: number): Promise<Uint8Array | null> {
    return this.#reader.pingBody(checkUuid, n);
  }

  flips(checkUuid: string, query: FlipQuery): Promise<Flip[]> {
    return this.#reader.flips(checkUuid, query);
  }

  flipNumber(checkUuid: string, n: number): Promise<Flip | null> {
    return this.#reader.flipNumber(checkUuid, n);
  }
}
