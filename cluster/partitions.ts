// Which partition a project belongs to (host/routing.ts's FNV-1a of its id, as a single node's shards), and
// the partitions' defaults; the count is fixed for the life of a cluster.
import { fnv1a32 } from "../host/routing.ts";

/**
 * The partition count a new cluster takes unless configured otherwise: a few per node of three (each
 * partition's log messages hold the pings that reach it together, so fewer partitions mean fuller
 * messages: docs/cluster.md, "Measured, and on paper"), with room for more nodes.
 */
export const DEFAULT_PARTITION_COUNT = 16;

/** Records between a partition's snapshots unless configured (CLUSTER_SNAPSHOT_EVERY): a takeover replays at most this many. */
export const DEFAULT_SNAPSHOT_EVERY = 10_000;

/** The partition (0 ≤ p < count) that owns the project with this id. */
export function partitionOf(projectId: string, count: number = DEFAULT_PARTITION_COUNT): number {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`partition count must be a positive integer, not ${count}`);
  return fnv1a32(projectId) % count;
}
