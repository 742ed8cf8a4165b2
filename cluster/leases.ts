// Partition leases, judged without a clock of their own: every function takes `now`, so the decisions
// (who may claim, who still owns, what a node does on its next round) are plain data in, plain data out.
//
// Debian's nats-server 2.9 has no per-key TTL in KV, so a lease carries its own expiry: the writer's clock
// at the write plus the lease length. A claimant may take a partition once its own clock has passed that
// expiry; the claim is a compare-and-set on the revision it read, so of two claimants only one can win,
// and a renewal that lands first makes both claims fail. The owner stops counting itself owner a margin
// before the expiry (skewMarginMs), which covers clocks that differ between machines by less than that.
//
// Sharing: every node also renews a presence key; with `live` nodes present, a node aims to hold
// ceil(partitions / live). It claims free partitions up to that, starting at a point derived from its name
// so that claimants spread out instead of all racing for partition 0, and releases what it holds above it,
// so a node that joins late gets its share.
import { fnv1a32 } from "../host/routing.ts";

export type Lease = { readonly node: string; readonly writtenAt: number; readonly expiresAt: number };

/** A partition's key as read: at a revision, with a lease or none (released, or never claimed). */
export type LeaseKey = { readonly revision: number; readonly lease: Lease | null };

export type Step =
  | { readonly kind: "claim"; readonly partition: number; readonly revision: number } // free or expired: CAS
  | { readonly kind: "renew"; readonly partition: number; readonly revision: number }
  | { readonly kind: "release"; readonly partition: number; readonly revision: number };

const NODE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Node names become KV key tokens: letters, digits, "_" and "-". */
export function validNodeName(node: string): boolean {
  return NODE_NAME.test(node);
}

export function newLease(node: string, now: number, leaseMs: number): Lease {
  return { node, writtenAt: now, expiresAt: now + leaseMs };
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** A released partition's value is empty. */
export function encodeLease(lease: Lease | null): Uint8Array {
  return lease === null ? new Uint8Array(0) : utf8.encode(JSON.stringify(lease));
}

/** Reads a stored value; empty or unreadable counts as no lease (a claim over it is still a CAS). */
export function decodeLease(bytes: Uint8Array): Lease | null {
  if (bytes.length === 0) return null;
  try {
    const value = JSON.parse(fromUtf8.decode(bytes)) as Partial<Lease>;
    if (typeof value.node !== "string" || !Number.isFinite(value.writtenAt) || !Number.isFinite(value.expiresAt)) return null;
    return { node: value.node, writtenAt: value.writtenAt!, expiresAt: value.expiresAt! };
  } catch {
    return null;
  }
}

/** Whether a claimant whose clock reads `now` may take over this lease. */
export function leaseExpired(lease: Lease, now: number): boolean {
  return now >= lease.expiresAt;
}

/** Whether the lease's holder still counts itself owner at `now`: it stops a margin before the expiry. */
export function leaseHeld(lease: { expiresAt: number }, now: number, skewMarginMs: number): boolean {
  return now < lease.expiresAt - skewMarginMs;
}

/** How many partitions each of `live` nodes aims to hold. */
export function fairShare(partitionCount: number, live: number): number {
  return Math.ceil(partitionCount / Math.max(1, live));
}

/**
 * What `me` does this round, given every partition's key (index = partition; null when it could not be
 * read this round, and then it is left alone) and the live node count (me included).
 */
export function planRound(view: { me: string; now: number; keys: readonly (LeaseKey | null)[]; live: number }): Step[] {
  const { me, now, keys } = view;
  const steps: Step[] = [];
  const mine: { partition: number; revision: number }[] = [];
  const free: { partition: number; revision: number }[] = [];
  keys.forEach((key, partition) => {
    if (key === null) return;
    if (key.lease?.node === me) mine.push({ partition, revision: key.revision });
    else if (key.lease === null || leaseExpired(key.lease, now)) free.push({ partition, revision: key.revision });
  });
  const share = fairShare(keys.length, view.live);
  const surplus = Math.max(0, mine.length - share);
  // keep the lowest partitions, let the highest go: every node agrees which ones move, so they move once
  mine.forEach(({ partition, revision }, i) => {
    steps.push(i < mine.length - surplus ? { kind: "renew", partition, revision } : { kind: "release", partition, revision });
  });
  const wanted = Math.max(0, share - mine.length);
  const start = fnv1a32(me) % Math.max(1, keys.length);
  const byDistance = free.slice().sort((a, b) => rotated(a.partition, start, keys.length) - rotated(b.partition, start, keys.length));
  for (const { partition, revision } of byDistance.slice(0, wanted)) {
    steps.push({ kind: "claim", partition, revision });
  }
  return steps;
}

function rotated(partition: number, start: number, count: number): number {
  return (partition - start + count) % count;
}
