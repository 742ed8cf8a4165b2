// The cluster's partition count: chosen by its first node, kept in the cluster, taken by every later node; a
// node configured with another does not start (it would place projects in other partitions).
import type { NatsConnection } from "@nats-io/nats-core";
import { managerOf } from "./jetstream-setup.ts";
import { LEASE_BUCKET, leasedPartitionOf } from "./lease-buckets.ts";
import { DEFAULT_PARTITION_COUNT } from "./partitions.ts";
import { sharedValue } from "./shared-secret.ts";

const BUCKET = "hcd-partitions";

/** The cluster's partition count differs from the one this node was configured with. */
export class PartitionCountError extends Error {
  override get name() {
    return "PartitionCountError";
  }
}

// A cluster from before the count was kept has none stored: its count is read from the partition leases it
// made (a bucket per partition), so it keeps the one it was started with.

/**
 * Returns the cluster's partition count, storing `configured` (or, when null, the default) if the cluster
 * has none yet; throws PartitionCountError when `configured` is not null and differs from the stored one.
 */
export async function clusterPartitionCount(
  connection: NatsConnection,
  replicas: number,
  configured: number | null,
  leaseBucket = LEASE_BUCKET,
): Promise<number> {
  const stored = Number(
    await sharedValue(connection, replicas, BUCKET, async () =>
      String((await leasedPartitions(connection, leaseBucket)) ?? configured ?? DEFAULT_PARTITION_COUNT),
    ),
  );
  if (!Number.isInteger(stored) || stored < 1)
    throw new PartitionCountError(`the cluster's partition count is not a positive integer (bucket ${BUCKET})`);
  if (configured !== null && configured !== stored) {
    throw new PartitionCountError(
      `CLUSTER_PARTITIONS=${configured}, but this cluster has ${stored} partitions, fixed when it first started: set CLUSTER_PARTITIONS=${stored} or leave it unset`,
    );
  }
  return stored;
}

/** The count a cluster's partition leases were made for (the highest partition's + 1), or null when there are none. */
async function leasedPartitions(connection: NatsConnection, leaseBucket: string): Promise<number | null> {
  let highest = -1;
  for await (const name of (await managerOf(connection)).streams.names())
    highest = Math.max(highest, leasedPartitionOf(name, leaseBucket) ?? -1);
  return highest < 0 ? null : highest + 1;
}
