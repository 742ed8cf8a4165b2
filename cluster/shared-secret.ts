// Values every node must share, in replicated KV buckets: the badge secret (a badge URL from one node must be
// valid on every other) and the partition count; the first node writes one, the others read it.
import { randomBytes } from "node:crypto";
import { jetstream } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import { openBucket, retriedWhileSettling } from "./jetstream-setup.ts";
import { wrongLastSequence } from "./nats-errors.ts";

// The first write expects the key's stream to be empty (the stream-wide expected last sequence, which the
// server serializes: docs/cluster.md, NATS server notes), so only one is stored when two nodes start at once.

/** Returns the cluster's secret `name` (letters, digits, "-"), creating it on first use. */
export function sharedSecret(connection: NatsConnection, replicas: number, name: string, bucket = "hcd-secret"): Promise<string> {
  return sharedValue(connection, replicas, `${bucket}-${name}`, () => randomBytes(32).toString("base64url"));
}

/**
 * Returns the value kept in bucket `kvName`; when there is none yet, writes `first()`'s, unless another
 * node's write came first (then that one is returned).
 */
export async function sharedValue(
  connection: NatsConnection,
  replicas: number,
  kvName: string,
  first: () => string | Promise<string>,
): Promise<string> {
  const kv = await openBucket(connection, kvName, { replicas, history: 1, allow_direct: false });
  // written before anything is read: a message get on a bucket another node is creating at that moment can
  // crash a lone server (docs/cluster.md, NATS server notes), while a publish is stored only once the stream
  // is up; it is sent again while unanswered
  try {
    const value = await first();
    await retriedWhileSettling(() =>
      jetstream(connection).publish(`$KV.${kvName}.value`, value, { expect: { lastSequence: 0 }, timeout: 5_000 }),
    );
  } catch (error) {
    if (!wrongLastSequence(error)) throw error; // another node's write came first: read back below
  }
  const written = await kv.get("value");
  if (written === null || written.operation !== "PUT") throw new Error(`${kvName}: no value after the first write`);
  return written.string();
}
