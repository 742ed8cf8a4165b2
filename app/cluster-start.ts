// Starting a cluster node (NATS_URL set): the notification queue this node delivers from, and the pool
// over the cluster's partitions, on a connection cluster/connect.ts opened.
import type { FailureEpisodes } from "../host/failure-episodes.ts";
import type { Pool } from "../host/pool-api.ts";
import { log } from "../host/log.ts";
import { createClusterPool } from "../cluster/cluster-pool.ts";
import type { ClusterConnection } from "../cluster/connect.ts";
import { DashboardSessions } from "../cluster/dashboard-sessions.ts";
import { openReplicatedAccounts } from "../cluster/replicated-accounts.ts";
import { openReplicatedAudit } from "../cluster/replicated-audit.ts";
import { openSignInBucket } from "../cluster/sign-in-bucket.ts";
import { openSentStream } from "../cluster/sent-stream.ts";
import type { SignInStore } from "../host/sign-in-store.ts";
import { AuditTrail, storedLimits } from "../host/audit.ts";
import type { AccountsOptions } from "../host/accounts.ts";
import { Accounts } from "../host/accounts.ts";
import { SESSION_IDLE_MS } from "../http/dashboard/sessions.ts";
import { PartitionHistory } from "../cluster/partition-history.ts";
import { NotificationQueue } from "../notify/cluster-queue.ts";
import type { ServiceSettings } from "../notify/kinds/settings.ts";
import type { ClusterSettings } from "./config.ts";

export type NotifySettings = {
  readonly siteRoot: string;
  readonly allowPrivateIps: boolean;
  readonly smtpUrl: string | null;
  readonly fromAddress?: string; // DEFAULT_FROM_EMAIL (default hcd@localhost)
  readonly services?: ServiceSettings; // the kinds of notify/kinds/: tokens and endpoints
};

/**
 * Starts the node's pool, its share of notification delivery, and the dashboard sessions, users, sign-in state and audit log every node shares;
 * the pool's close() stops all of it and closes the connection.
 */
export async function startClusterNode(
  cluster: ClusterSettings,
  connected: ClusterConnection,
  notify: NotifySettings,
  auditLimits: { maxAgeDays: number; maxEvents: number },
  accountsOptions: AccountsOptions,
): Promise<{
  pool: Pool;
  sessions: DashboardSessions;
  failures: FailureEpisodes;
  accounts: Accounts;
  audit: AuditTrail;
  signIn: SignInStore;
}> {
  const { connection } = connected;
  const audit = new AuditTrail(await openReplicatedAudit({ connection, replicas: cluster.replicas, limits: storedLimits(auditLimits) })); // every node's changes, listed on any
  const accountsStore = await openReplicatedAccounts({ connection, replicas: cluster.replicas }); // users and roles, on every node
  const sent = await openSentStream({ connection, replicas: cluster.replicas }); // delivered notifications, for the checks' pages
  const notifications = await NotificationQueue.open({ connection, replicas: cluster.replicas, sent });
  const sessions = await DashboardSessions.open({ connection, replicas: cluster.replicas, idleMs: SESSION_IDLE_MS });
  const signIn = await openSignInBucket({ connection, replicas: cluster.replicas }); // sign-in limits and second-factor steps, on every node
  const node = await createClusterPool({
    connection,
    node: cluster.nodeId,
    replicas: cluster.replicas,
    partitionCount: connected.partitionCount,
    notifications,
    sent,
    snapshotEvery: cluster.snapshotEvery,
    openHistory: (partition) => PartitionHistory.open({ connection, partition, replicas: cluster.replicas }),
    onClose: async () => {
      sessions.close();
      accountsStore.close();
      await notifications.close();
      await connection.drain().catch(() => connection.close());
    },
  });
  notifications.startDelivering(
    {
      siteRoot: notify.siteRoot,
      allowPrivateIps: notify.allowPrivateIps,
      smtpUrl: notify.smtpUrl ?? undefined,
      fromAddress: notify.fromAddress ?? "hcd@localhost",
      services: notify.services,
      channels: (projectId) => node.pool.listChannels(projectId),
      onResult: (entry, result, error) => {
        if (result === "sent") return;
        // ids only: a channel's value (a webhook URL, an address) may hold a secret
        const fields = {
          channel: entry.channel.id,
          kind: entry.channel.kind,
          check: entry.check.uuid,
          attempts: entry.attempts + 1,
          error,
        };
        if (result === "given_up") log.error(fields, "notification given up");
        else log.warn(fields, "notification delivery failed, will retry");
      },
    },
    Date.now,
  );
  return { pool: node.pool, sessions, failures: node.failures, accounts: new Accounts(accountsStore, accountsOptions), audit, signIn };
}
