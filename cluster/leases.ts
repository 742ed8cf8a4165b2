// Partition leases and node presences, judged without a clock of their own: every function takes `now`, so
// who may claim, who still owns and what a node does on its next round are plain data in, plain data out.
import { fnv1a32 } from "../host/routing.ts";

/**
 * A partition's lease, or a node's presence: its expiry is the writer's clock at the write plus the lease
 * length (the server has no per-key TTL: docs/cluster.md, NATS server notes). A claimant may take it once
 * its own clock has passed the expiry.
 */
export type Lease = { readonly node: string; readonly writtenAt: number; readonly expiresAt: number };

/** A node's presence: whether it hands partitions off now (it then takes none, and shares are counted without it). */
export type Presence = Lease & { readonly handingOff: boolean };

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
  const value = parsed(bytes);
  return value === null ? null : { node: value.node, writtenAt: value.writtenAt, expiresAt: value.expiresAt };
}

/** A presence is stored as a lease, with `handingOff: true` only while the node hands partitions off. */
export function encodePresence(presence: Presence): Uint8Array {
  const { node, writtenAt, expiresAt } = presence;
  return utf8.encode(
    JSON.stringify(presence.handingOff ? { node, writtenAt, expiresAt, handingOff: true } : { node, writtenAt, expiresAt }),
  );
}

/** Reads a stored presence (a lease without the flag hands nothing off); empty or unreadable is none. */
export function decodePresence(bytes: Uint8Array): Presence | null {
  const value = parsed(bytes);
  return value === null
    ? null
    : { node: value.node, writtenAt: value.writtenAt, expiresAt: value.expiresAt, handingOff: value.handingOff === true };
}

function parsed(bytes: Uint8Array): (Lease & { readonly handingOff?: unknown }) | null {
  if (bytes.length === 0) return null;
  try {
    const value = JSON.parse(fromUtf8.decode(bytes)) as Partial<Lease> & { handingOff?: unknown };
    if (typeof value.node !== "string" || !Number.isFinite(value.writtenAt) || !Number.isFinite(value.expiresAt)) return null;
    return value as Lease & { handingOff?: unknown };
  } catch {
    return null;
  }
}

/** Whether a claimant whose clock reads `now` may take over this lease. */
export function leaseExpired(lease: Lease, now: number): boolean {
  return now >= lease.expiresAt;
}

/** Whether the lease's holder still counts itself owner at `now`: it stops a margin before the expiry (clocks of different machines may differ by less than that). */
export function leaseHeld(lease: { expiresAt: number }, now: number, skewMarginMs: number): boolean {
  return now < lease.expiresAt - skewMarginMs;
}

/** How many partitions each of `live` nodes aims to hold. */
export function fairShare(partitionCount: number, live: number): number {
  return Math.ceil(partitionCount / Math.max(1, live));
}

/**
 * How many nodes take partitions at `now`: `me` unless it hands some off, and every other node whose
 * presence has not run out and who hands nothing off. A node handing off is not counted, so the others'
 * shares grow to take what it lets go.
 */
export function takers(presences: Iterable<Presence>, me: string, meHandingOff: boolean, now: number): number {
  let count = meHandingOff ? 0 : 1;
  for (const presence of presences) if (presence.node !== me && !presence.handingOff && !leaseExpired(presence, now)) count += 1;
  return count;
}

/**
 * What `me` does this round, given every partition's key (index = partition; null when it could not be
 * read this round, and then it is left alone), the count of nodes taking partitions (takers()) and the
 * partitions `me` hands off:
 * - a partition handed off is released, and none is claimed while any is;
 * - of the rest, `me` keeps up to its fair share (the lowest: every node agrees which ones move, so they
 *   move once) and releases the others;
 * - it claims free or expired partitions up to its share, nearest first from a point derived from its
 *   name, so that claimants spread out instead of all racing for partition 0.
 */
export function planRound(view: {
  me: string;
  now: number;
  keys: readonly (LeaseKey | null)[];
  live: number;
  handingOff?: ReadonlySet<number>;
}): Step[] {
  const { me, now, keys } = view;
  const handingOff = view.handingOff ?? new Set<number>();
  const steps: Step[] = [];
  const mine: { partition: number; revision: number }[] = [];
  const free: { partition: number; revision: number }[] = [];
  keys.forEach((key, partition) => {
    if (key === null) return;
    if (key.lease?.node === me) {
      if (handingOff.has(partition)) steps.push({ kind: "release", partition, revision: key.revision });
      else mine.push({ partition, revision: key.revision });
    } else if (key.lease === null || leaseExpired(key.lease, now)) free.push({ partition, revision: key.revision });
  });
  const share = fairShare(keys.length, view.live);
  const surplus = Math.max(0, mine.length - share);
  mine.forEach(({ partition, revision }, i) => {
    steps.push(i < mine.length - surplus ? { kind: "renew", partition, revision } : { kind: "release", partition, revision });
  });
  const wanted = handingOff.size > 0 ? 0 : Math.max(0, share - mine.length);
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
