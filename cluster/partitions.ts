// Which partition a project belongs to. In cluster mode each partition has one owning node at a time and
// its own command log, so a project's commands are applied in one order by one node. The count is fixed
// for the life of a cluster: changing it would move projects between partitions (their logs and
// snapshots with them), so it is a setting chosen once, not something nodes negotiate.
//
// The hash is host/routing.ts's 32-bit FNV-1a over the id's UTF-8 bytes, the one a single node's shards
// use: stable across processes, Node versions and machines, cheap, and even enough over uuid-shaped ids
// for 16-256 partitions (test/cluster/partitions.test.ts measures the spread).

import { fnv1a32 } from "../host/routing.ts";

/**
 * The partition count a new cluster takes unless configured otherwise: a few per node of three (each
 * partition's log messages hold the pings that reach it together, so fewer partitions mean fuller
 * messages: bench/RESULTS.md "Cluster efficiency"), with room for more nodes.
 */
export const DEFAULT_PARTITION_COUNT = 16;

/** Records between a partition's snapshots unless configured (CLUSTER_SNAPSHOT_EVERY): a takeover replays at most this many. */
export const DEFAULT_SNAPSHOT_EVERY = 10_000;

/** The partition (0 ≤ p < count) that owns the project with this id. */
export function partitionOf(projectId: string, count: number = DEFAULT_PARTITION_COUNT): number {
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`partition count must be a positive integer, not ${count}`);
  return fnv1a32(projectId) % count;
}
