// What a partition replica (partition-replica.ts) hands its callers and hooks, and the errors it refuses with.
import type { Changes } from "../engine/changes.ts";
import type { ShardCommand, ShardResultOf } from "../engine/commands.ts";
import type { Downtime, Flip } from "../engine/model.ts";

/**
 * What a record's effects hook returns: a promise of all of them stored, which its submitter waits for;
 * or, split, all of them stored (`stored`, which snapshots wait for and whose failure stops the replica)
 * and the part its submitter must wait for (`beforeAnswer`): the rest can follow the answer, as a new
 * owner carries it out again from the log. Null: the record has no effect to wait for.
 */
export type RecordEffects = Promise<void> | { readonly stored: Promise<void>; readonly beforeAnswer: Promise<void> } | null;

/**
 * One record as applied: its log position (its message's), its index in that message (0 for a message of
 * one record), the command, what the shard changed, and whether a takeover replayed it.
 */
export type AppliedRecord = {
  readonly position: number;
  readonly index: number;
  readonly command: ShardCommand;
  readonly changes: Changes;
  readonly replayed: boolean;
};

/** A submitted command once applied: its position (its log message's), the shard's answer and what it changed. */
export type Submitted<C extends ShardCommand> = { readonly position: number; readonly result: ShardResultOf<C>; readonly changes: Changes };

/** What a takeover did. */
export type TakeoverReport = {
  /** The log position the loaded snapshot covers, or null when there was none. */
  readonly snapshotSequence: number | null;
  readonly snapshotBytes: number;
  /** The position of this node's fence marker: every record below it was written by earlier owners. */
  readonly fencedAt: number;
  /** Records replayed after the snapshot. */
  readonly replayed: number;
  /** Snapshots loaded again because the log was let go under the replay. */
  readonly restarts: number;
  /** How many checks the partition's time without an owner holds. */
  readonly held: number;
  /** The partition's time without an owner (from the last instant its log shows judged to the takeover), or null when it has no history. */
  readonly unowned: Downtime | null;
  /** The flips of the advance to `now` that ends the takeover (deadlines that fell due meanwhile). */
  readonly flips: readonly Flip[];
};

/** Thrown to submitters while this replica is not the partition's writer: nothing of theirs was appended, so they may send it again. */
export class NotOwnerError extends Error {
  override name = "NotOwnerError";
}

/**
 * Thrown to submitters of a ping stamped at or before an instant whose deadlines this owner has judged:
 * applied now, it could not keep its check up (a down flip would already stand). Nothing of the batch was
 * appended; the ping is answered 503 and its sender tries again with a fresh stamp.
 */
export class LatePingError extends Error {
  override name = "LatePingError";
}

/** Thrown to submitters whose records were appended by an owner that gave the partition up meanwhile: the next takeover applies them. */
export class SupersededError extends Error {
  override name = "SupersededError";
}
