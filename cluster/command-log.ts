// The narrow shape of a partition's command log, shared by the single-node file log and the JetStream
// stream of cluster mode: a writer appends encoded commands and learns their positions once they are
// durable; an owner taking over replays from a snapshot's position; a snapshot lets older records go.

export interface CommandLog {
  /** Appends records in order; resolves with each record's position once durable (replicated). Rejects if it cannot be made durable. */
  append(records: readonly Uint8Array[]): Promise<number[]>;
  /** Yields the records with position >= from, in order. */
  readFrom(from: number): AsyncIterable<{ position: number; bytes: Uint8Array }>;
  /** Lets records below `position` go (a snapshot covers them). */
  truncateBelow(position: number): Promise<void>;
}
