// A cluster node's connection to the NATS servers, a trust boundary (credentials, TLS when asked), and the
// secrets every node shares (shared-secret.ts).
import { readFileSync } from "node:fs";
import { credsAuthenticator } from "@nats-io/nats-core";
import type { NatsConnection } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import type { NodeConnectionOptions as ConnectionOptions } from "@nats-io/transport-node";
import { log } from "../host/log.ts";
import { credentialsRefused, tlsFailure, tlsNotOffered } from "./nats-errors.ts";
import { clusterPartitionCount } from "./partition-count.ts";
import { sharedSecret } from "./shared-secret.ts";

/** How long a node waits at start for a NATS server to answer before it gives up (a supervisor restarts it). */
const START_WAIT_MS = 30_000;
/** How long one connection attempt may take (TCP, TLS and the server's answer to the credentials). */
const DIAL_TIMEOUT_MS = 10_000;
const RETRY_MS = 500;

export type ClusterConnection = {
  readonly connection: NatsConnection;
  readonly badgeSecret: string;
  /** The cluster's partition count (cluster/partition-count.ts). */
  readonly partitionCount: number;
};

/** How a node proves itself to NATS and checks the servers. */
export type NatsAccess = {
  /** The servers as URLs without credentials. */
  readonly urls: readonly string[];
  readonly credentials: NatsCredentials | null;
  /** TLS required (tls:// URLs), the server's certificate verified against `caFile` (else the system's CAs). */
  readonly tls: { readonly caFile: string | null } | null;
};

/** A user and password, a token, or a NATS credentials file (user JWT and nkey seed), read again at every connection (a renewed JWT needs no restart). */
export type NatsCredentials =
  | { readonly kind: "password"; readonly user: string; readonly password: string }
  | { readonly kind: "token"; readonly token: string }
  | { readonly kind: "creds"; readonly file: string };

/** The start failed for a reason waiting would not change: refused credentials, an unverified server, an unreadable file. */
export class NatsTrustError extends Error {
  override get name() {
    return "NatsTrustError";
  }
}

/**
 * Connects to the NATS servers and reads (or creates) what every node shares from the start: the badge
 * secret and the partition count (`partitions`: the configured one, null when not set).
 */
export async function connectCluster(options: {
  access: NatsAccess;
  node: string;
  replicas: number;
  partitions: number | null;
}): Promise<ClusterConnection> {
  const connection = await connectAtStart(connectionOptions(options.access, options.node));
  try {
    const [badgeSecret, partitionCount] = await Promise.all([
      sharedSecret(connection, options.replicas, "badge"),
      clusterPartitionCount(connection, options.replicas, options.partitions),
    ]);
    return { connection, badgeSecret, partitionCount };
  } catch (error) {
    await connection.close();
    throw error;
  }
}

/** The client's options for `access`; throws NatsTrustError when a file it names can't be read. */
export function connectionOptions(access: NatsAccess, node: string): ConnectionOptions {
  const base: ConnectionOptions = {
    servers: [...access.urls],
    name: `hcd-${node}`,
    timeout: DIAL_TIMEOUT_MS,
    // reconnect without end (to any server of the list): a node cut off answers 503 until it is back. The
    // client still gives up when a server refuses the credentials twice in a row (main.ts then exits).
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    pingInterval: 2_000,
    maxPingOut: 2,
    // without it the client makes an Error (a stack trace) for every request, a JetStream publish among
    // them, in case it fails (measured: docs/cluster.md, NATS server notes). The errors still say what
    // failed; they lose only the caller's frames.
    noAsyncTraces: true,
  };
  // an object (even empty) makes the client require TLS of every server; rejectUnauthorized is its default
  if (access.tls !== null)
    base.tls = access.tls.caFile === null ? {} : { ca: readFileOf("NATS_TLS_CA", access.tls.caFile).toString("utf8") };
  const credentials = access.credentials;
  if (credentials?.kind === "password") return { ...base, user: credentials.user, pass: credentials.password };
  if (credentials?.kind === "token") return { ...base, token: credentials.token };
  if (credentials?.kind === "creds") {
    const file = credentials.file;
    let last = readFileOf("NATS_CREDS", file);
    try {
      credsAuthenticator(last)("nonce"); // parses the JWT and the seed, and signs with it
    } catch (error) {
      throw new NatsTrustError(`NATS_CREDS=${file}: not a NATS credentials file (a user JWT and its nkey seed): ${messageOf(error)}`);
    }
    return {
      ...base,
      authenticator: credsAuthenticator(() => {
        try {
          last = readFileSync(file);
        } catch {
          // a file being replaced: the last one read still serves
        }
        return last;
      }),
    };
  }
  return base;
}

/**
 * Opens the connection, trying every server, again every RETRY_MS while none answers (they may be
 * starting), for START_WAIT_MS at most. A refusal of trust ends the wait at once, with the refusal.
 */
export async function connectAtStart(options: ConnectionOptions, waitMs = START_WAIT_MS): Promise<NatsConnection> {
  const until = Date.now() + waitMs;
  let waiting = false; // said once
  for (;;) {
    let failure: unknown;
    try {
      return await connect(options);
    } catch (error) {
      failure = error;
    }
    // the client reports the last server's error: with several, an answer from one that is up (a refusal)
    // may be hidden behind one that is down, so each is asked alone
    const refusal =
      trustRefusal(failure) ?? (options.servers !== undefined && options.servers.length > 1 ? await refusalOfAny(options) : null);
    if (refusal !== null) throw refusal;
    if (Date.now() >= until) throw new Error(`no NATS server answered within ${Math.round(waitMs / 1000)} s: ${messageOf(failure)}`);
    if (!waiting) log.warn(`waiting for NATS: ${messageOf(failure)} (for ${Math.round(waitMs / 1000)} s at most)`);
    waiting = true;
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
}

/** Asks each server alone; returns the first refusal of trust among their answers, or null. */
async function refusalOfAny(options: ConnectionOptions): Promise<NatsTrustError | null> {
  for (const server of [options.servers ?? []].flat()) {
    try {
      await (await connect({ ...options, servers: [server], maxReconnectAttempts: 0, ignoreClusterUpdates: true })).close();
    } catch (error) {
      const refusal = trustRefusal(error);
      if (refusal !== null) return refusal;
    }
  }
  return null;
}

/**
 * Returns the error as a NatsTrustError when it is a refusal of trust: the server refused the credentials,
 * its certificate failed verification, or it offers no TLS where TLS is required. Else null (a server not
 * up, a timeout: worth waiting for).
 */
export function trustRefusal(error: unknown): NatsTrustError | null {
  if (error instanceof NatsTrustError) return error;
  const text = messageOf(error).replace(/^'(.*)'$/, "$1");
  if (credentialsRefused(error)) return new NatsTrustError(`NATS refused the credentials: ${text}`);
  if (tlsNotOffered(error)) return new NatsTrustError("TLS required (tls:// in NATS_URL) but the NATS server offers none");
  const tls = tlsFailure(error);
  return tls === null ? null : new NatsTrustError(`TLS verification of the NATS server failed: ${tls.message} (${tls.code})`);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function readFileOf(variable: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new NatsTrustError(`cannot read ${variable}=${file}: ${(error as Error).message}`);
  }
}
