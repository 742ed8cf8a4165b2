// The rebuilding part of a partition's takeover: the newest snapshot, the fence, and a strict replay of the
// log after the snapshot, so that the new owner's shard holds every record any earlier owner appended.
import type { Millis } from "../engine/model.ts";
import { TruncatedError } from "./jetstream-log.ts";
import type { FenceToken, JetStreamLog } from "./jetstream-log.ts";
import { decodeMessage } from "./partition-codec.ts";
import type { AppliedShard } from "./applied-shard.ts";
import type { EffectChain } from "./record-effects.ts";
import type { SnapshotStore, StoredSnapshot } from "./snapshot-store.ts";

/** How many times a replay starts again from a newer snapshot that let the log go under it. */
const MOST_RESTARTS = 5;

export type RestoreParts = {
  readonly log: Pick<JetStreamLog, "fence" | "readFrom">;
  readonly snapshots: Pick<SnapshotStore, "load">;
  readonly shard: AppliedShard;
  readonly effects: EffectChain;
  /** Who writes under which lease, asked right before the fence; throws when the lease is not this node's any more. */
  readonly fenceToken: (() => Promise<FenceToken>) | null;
  /** The position up to which an earlier owner carried out the records' effects. */
  readonly recordedUpTo: () => Promise<number>;
};

export type Restored = {
  readonly stored: StoredSnapshot | null;
  readonly fencedAt: number;
  readonly replayed: number;
  readonly restarts: number;
};

/**
 * Rebuilds the shard for a new owner:
 * 1. load the newest snapshot into the shard (or start empty at `now`);
 * 2. read the lease again (fenceToken) and fence the log: from then on an earlier owner's appends are
 *    refused on the expected last sequence;
 * 3. read, after the fence, how far an earlier owner stored the records' effects: the effects of the
 *    records from there on are carried out again (the stores drop what was stored twice by message id);
 * 4. replay every record after the snapshot strictly: a log let go under the read (TruncatedError) means a
 *    newer snapshot, so back to 1 (at most MOST_RESTARTS times), never skipping a command;
 * 5. wait for the replayed records' missing effects, then count the fence's position as applied.
 */
export async function restoreFromLog(parts: RestoreParts, now: Millis): Promise<Restored> {
  const { log, shard, effects } = parts;
  for (let restarts = 0; ; restarts++) {
    const stored = await parts.snapshots.load();
    shard.reset(stored, now);
    const token = parts.fenceToken === null ? undefined : await parts.fenceToken();
    const fencedAt = await log.fence(token);
    effects.restart(await parts.recordedUpTo());
    let replayed = 0;
    try {
      for await (const { position, bytes } of log.readFrom(shard.applied + 1, { strict: true })) {
        for (const [index, record] of decodeMessage(bytes).entries()) {
          shard.apply(position, index, record, true);
          replayed += 1;
        }
      }
    } catch (error) {
      if (error instanceof TruncatedError && restarts < MOST_RESTARTS) continue;
      throw error;
    }
    await effects.stored; // the replayed records' effects that were missing are stored before anyone is answered
    shard.fenced(fencedAt);
    return { stored, fencedAt, replayed, restarts };
  }
}
