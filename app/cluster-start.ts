// Starting a cluster node (NATS_URL set): the notification queue this node delivers from, and the pool
// over the cluster's partitions, on a connection cluster/connect.ts opened.
import type { Pool } from "../host/pool-api.ts";
import { log } from "../host/log.ts";
import { createClusterPool } from "../cluster/cluster-pool.ts";
import type { ClusterConnection } from "../cluster/connect.ts";
import { PartitionHistory } from "../cluster/partition-history.ts";
import { NotificationQueue } from "../notify/cluster-queue.ts";
import type { ClusterSettings } from "./config.ts";

export type NotifySettings = { readonly siteRoot: string; readonly allowPrivateIps: boolean; readonly smtpUrl: string | null };

/** Starts the node's pool and its share of notification delivery; the pool's close() stops the node and closes the connection. */
export async function startClusterNode(cluster: ClusterSettings, connected: ClusterConnection, notify: NotifySettings): Promise<Pool> {
  const { connection } = connected;
  const notifications = await NotificationQueue.open({ connection, replicas: cluster.replicas });
  const node = await createClusterPool({
    connection, node: cluster.nodeId, replicas: cluster.replicas, partitionCount: cluster.partitions, notifications,
    openHistory: (partition) => PartitionHistory.open({ connection, partition, replicas: cluster.replicas }),
    onClose: async () => {
      await notifications.close();
      await connection.drain().catch(() => connection.close());
    },
  });
  notifications.startDelivering({
    siteRoot: notify.siteRoot, allowPrivateIps: notify.allowPrivateIps, smtpUrl: notify.smtpUrl ?? undefined, fromAddress: "hcd@localhost",
    onResult: (entry, result, error) => {
      if (result === "sent") return;
      // ids only: a channel's value (a webhook URL, an address) may hold a secret
      const fields = { channel: entry.channel.id, kind: entry.channel.kind, check: entry.check.uuid, attempts: entry.attempts + 1, error };
      if (result === "given_up") log.error(fields, "notification given up");
      else log.warn(fields, "notification delivery failed, will retry");
    },
  }, Date.now);
  return node.pool;
}
