// The command log: the one durable record of every commit, in order. The store appends to it and
// answers only once it is durable; the tables are written from it later, in large batches (checkpoints),
// and what they hold is let go. A replicated log (a stream of a distributed engine) can take the file
// log's place behind this interface.

/** An ordered, durable log of records, each with a position that grows with every append. */
export interface CommandLog {
  /**
   * Appends records in order; resolves with each record's position once durable. Rejects when they can't
   * all be made durable: the file log then keeps none of them; a replicated log may keep the records before
   * the one that failed (cluster/jetstream-log.ts), so a writer treats a rejected batch as stored in part:
   * it reads the log back from the position it has applied, and each record carries its own id.
   */
  append(records: readonly Uint8Array[]): Promise<number[]>;
  /** Yields the records with position >= from, in order. */
  readFrom(from: number): AsyncIterable<LogRecord>;
  /** Lets records below `position` go (the tables hold them). */
  truncateBelow(position: number): Promise<void>;
}

/** One record of a log and its position. */
export type LogRecord = { readonly position: number; readonly bytes: Uint8Array };
