// A cluster node's connection to the NATS servers, and the secrets every node shares (shared-secret.ts).
import { connect } from "nats";
import type { NatsConnection } from "nats";
import { sharedSecret } from "./shared-secret.ts";

/** How long a node waits for NATS at start before it gives up (a supervisor restarts it). */
const CONNECT_TIMEOUT_MS = 30_000;

export type ClusterConnection = { readonly connection: NatsConnection; readonly badgeSecret: string };

/** Connects to the NATS servers (`urls`) and reads (or creates) the cluster's badge secret. */
export async function connectCluster(options: { urls: readonly string[]; node: string; replicas: number }): Promise<ClusterConnection> {
  const connection = await connect({
    servers: [...options.urls], name: `hcd-${options.node}`, timeout: CONNECT_TIMEOUT_MS,
    // reconnect without end (to any server of the list): a node cut off answers 503 until it is back
    maxReconnectAttempts: -1, reconnectTimeWait: 250, pingInterval: 2_000, maxPingOut: 2,
  });
  try {
    return { connection, badgeSecret: await sharedSecret(connection, options.replicas, "badge") };
  } catch (error) {
    await connection.close();
    throw error;
  }
}
