// Which node owns which partition: leases in replicated KV buckets (one per partition), claimed, renewed and
// released by compare-and-set on their revision each round, as leases.ts plans it.
import { jetstream } from "@nats-io/jetstream";
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { BucketFollower } from "./bucket-follower.ts";
import { managerOf, openBucket } from "./jetstream-setup.ts";
import { LeaseBuckets, LEASE_BUCKET, leaseBucket, presenceKey } from "./lease-buckets.ts";
import type { Lease, LeaseKey, Presence, Step } from "./leases.ts";
import {
  decodePresence,
  encodeLease,
  encodePresence,
  leaseExpired,
  leaseHeld,
  newLease,
  planRound,
  takers,
  validNodeName,
} from "./leases.ts";

export type OwnershipOptions = {
  connection: NatsConnection;
  node: string;
  partitionCount: number;
  /** 3 on a three-server cluster. */
  replicas: number;
  bucket?: string;
  leaseMs?: number;
  renewEveryMs?: number;
  /** The owner stops counting itself owner this long before its lease's expiry (clock differences between machines). */
  skewMarginMs?: number;
  /** How long a round's reads and writes wait for an answer (default: half of renewEveryMs). */
  requestTimeoutMs?: number;
  /** The wall clock (epoch ms); tests may pass their own. */
  clock?: () => number;
  /** Called once a partition is this node's (with the revision it holds it at), and once it is not any more. */
  /** `previous`: the lease the claim replaced (null when it was released or never written). */
  onGained?: (partition: number, revision: number, previous: Lease | null) => void;
  onLost?: (partition: number) => void;
  /** Called after each round started by start(): its report, or why it failed as a whole. */
  onRound?: (outcome: { report: RoundReport } | { error: unknown }) => void;
};

/** What a round did: the planned steps, which were written, which lost a compare-and-set, which failed, and the reads that went unanswered. */
export type RoundReport = { steps: Step[]; done: Step[]; conflicts: Step[]; errors: { step: Step; error: string }[]; unanswered: string[] };

type Held = { revision: number; expiresAt: number };

/**
 * Each round (every renewEveryMs) a node renews its presence, reads every lease from its stream's leader,
 * and carries out planRound. Invariants:
 * - every lease write is a compare-and-set on the revision just read (the stream-wide expected last
 *   sequence: one bucket per partition, one key; docs/cluster.md, NATS server notes), so two nodes never
 *   both win a partition: the loser drops it;
 * - a round's requests wait half a round at most, and a bucket that does not answer is skipped for that
 *   round: it cannot hold up the renewal of the others;
 * - a node counts itself owner on its own clock, stopping skewMarginMs before its lease's expiry; the
 *   others claim once the lease has run out by theirs (the design assumes clocks within that margin and no
 *   pause between confirm() and the fence longer than a lease);
 * - a renewal left without an answer may have landed: the next round recognises its value and keeps the
 *   partition rather than losing it and claiming it again (a whole takeover);
 * - a partition handed off (handOff) is not owned from then on, released at the next round, and this node
 *   claims none until the hand-off is over.
 */
export class Ownership {
  readonly node: string;
  readonly partitionCount: number;
  readonly #js: JetStreamClient;
  readonly #leaseBuckets: LeaseBuckets;
  readonly #nodes: KV;
  readonly #requestTimeoutMs: number;
  readonly #bucket: string;
  readonly #leaseMs: number;
  readonly #renewEveryMs: number;
  readonly #skewMarginMs: number;
  readonly #clock: () => number;
  readonly #onGained: (partition: number, revision: number, previous: Lease | null) => void;
  readonly #onLost: (partition: number) => void;
  readonly #onRound: NonNullable<OwnershipOptions["onRound"]>;
  readonly #held = new Map<number, Held>();
  /** Lease writes of the last round left without an answer, by partition: the next round's read tells whether they landed. */
  readonly #unanswered = new Map<number, Lease>();
  #timer: NodeJS.Timeout | null = null;
  #round: Promise<RoundReport> | null = null;
  /** Every node's last presence, kept current by a watch on the presence bucket. */
  readonly #presence = new Map<string, Presence>();
  /** The partitions this node hands off, each until when (handOff()). */
  readonly #handingOff = new Map<number, number>();
  /** Every partition's lease as this node last read or wrote it: where its requests are sent first. */
  readonly #leases = new Map<number, Lease>();
  #presenceFollower: BucketFollower | null = null;
  /** The presence bucket's revision of this node's last presence write. */
  #presenceWritten = 0;

  private constructor(
    stores: { js: JetStreamClient; jsm: JetStreamManager; nodes: KV; requestTimeoutMs: number },
    options: OwnershipOptions,
  ) {
    this.#js = stores.js;
    this.#leaseBuckets = new LeaseBuckets(stores.js, stores.jsm, options.bucket ?? LEASE_BUCKET, stores.requestTimeoutMs);
    this.#nodes = stores.nodes;
    this.#requestTimeoutMs = stores.requestTimeoutMs;
    this.#bucket = options.bucket ?? LEASE_BUCKET;
    this.node = options.node;
    this.partitionCount = options.partitionCount;
    this.#leaseMs = options.leaseMs ?? 6_000;
    this.#renewEveryMs = options.renewEveryMs ?? 2_000;
    this.#skewMarginMs = options.skewMarginMs ?? 500;
    this.#clock = options.clock ?? Date.now;
    this.#onGained = options.onGained ?? (() => {});
    this.#onLost = options.onLost ?? (() => {});
    this.#onRound = options.onRound ?? (() => {});
  }

  /** Opens (or creates) the buckets, one by one; no round runs until start() or round(). */
  static async open(options: OwnershipOptions): Promise<Ownership> {
    if (!validNodeName(options.node)) throw new Error(`node name "${options.node}": letters, digits, "_" and "-" only`);
    if (!Number.isInteger(options.partitionCount) || options.partitionCount < 1)
      throw new Error("partitionCount must be a positive integer");
    const leaseMs = options.leaseMs ?? 6_000,
      renewEveryMs = options.renewEveryMs ?? 2_000;
    if (renewEveryMs * 2 > leaseMs) throw new Error("renewEveryMs must be at most half of leaseMs: one late round must not lose the lease");
    const js = jetstream(options.connection);
    const bucket = options.bucket ?? LEASE_BUCKET;
    // allow_direct off: reads come from the stream leader, so a round sees the latest revisions (a stale read
    // would only make a CAS fail, but every failure costs a round)
    const open = (name: string) => openBucket(options.connection, name, { replicas: options.replicas, history: 1, allow_direct: false });
    const nodes = await open(`${bucket}-nodes`);
    for (let p = 0; p < options.partitionCount; p++) await open(leaseBucket(bucket, p));
    // a round's own requests wait at most half a round: a bucket whose leader is being elected again (its
    // server lost) must not hold up the renewal of the others past their leases
    const requestTimeoutMs = options.requestTimeoutMs ?? renewEveryMs / 2;
    const jsm = await managerOf(options.connection, requestTimeoutMs);
    const ownership = new Ownership({ js, jsm, nodes, requestTimeoutMs }, options);
    await ownership.#watchPresence();
    return ownership;
  }

  /** Runs a round now and every renewEveryMs after. */
  start(): void {
    if (this.#timer !== null) return;
    // a failed round (no NATS) is retried next time; leases run out on their own
    const run = () =>
      void this.round().then(
        (report) => this.#onRound({ report }),
        (error: unknown) => this.#onRound({ error }),
      );
    run();
    this.#timer = setInterval(run, this.#renewEveryMs);
  }

  /** Stops renewing without releasing anything, as a paused or cut-off process would: the leases run out. */
  pause(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Stops renewing and releases every held partition, so the others need not wait for the leases to run out. */
  async stop(): Promise<void> {
    this.pause();
    await this.#round?.catch(() => {});
    const held = [...this.#held.entries()];
    await Promise.allSettled(held.map(([partition, { revision }]) => this.#apply({ kind: "release", partition, revision }, null)));
    await this.#nodes
      .put(presenceKey(this.node), encodeLease({ node: this.node, writtenAt: this.#clock(), expiresAt: this.#clock() }))
      .catch(() => {});
    this.#presenceFollower?.stop();
  }

  /** The partitions this node counts itself owner of at `now` (not those it hands off), lowest first. */
  owned(now: number = this.#clock()): number[] {
    return [...this.#held.keys()].filter((p) => this.owns(p, now)).sort((a, b) => a - b);
  }

  owns(partition: number, now: number = this.#clock()): boolean {
    const held = this.#held.get(partition);
    return held !== undefined && leaseHeld(held, now, this.#skewMarginMs) && !this.#handsOff(partition, now);
  }

  /**
   * Hands `partition` off for `forMs`: not owned from now on, released at the next round, and not claimed
   * again until then; meanwhile this node's presence says it hands off, so the other nodes' shares are
   * counted without it and one of them takes the partition.
   */
  handOff(partition: number, forMs: number): void {
    this.#handingOff.set(partition, this.#clock() + forMs);
  }

  /** Whether another node takes partitions now (one would take a partition handed off). */
  othersTake(now: number = this.#clock()): boolean {
    return takers(this.#presence.values(), this.node, true, now) > 0;
  }

  /**
   * The node whose lease on the partition this node last read (or wrote), while that lease has not run out
   * by this node's clock; null when none. A hint only: the partition may have changed hands since.
   */
  leaseholder(partition: number, now: number = this.#clock()): string | null {
    const lease = this.#leases.get(partition);
    return lease !== undefined && !leaseExpired(lease, now) ? lease.node : null;
  }

  /** The revision this node holds the partition at (its fencing token), if it holds it. */
  revisionOf(partition: number): number | undefined {
    return this.#held.get(partition)?.revision;
  }

  /**
   * Reads the partition's lease again (from its stream's leader): the revision this node holds it at, when
   * the key still names this node at that revision and the lease has not run out by this node's clock;
   * else null. Asked right before a takeover fences the log, which takes seconds after the claim.
   */
  async confirm(partition: number): Promise<number | null> {
    const held = this.#held.get(partition);
    if (held === undefined || !leaseHeld(held, this.#clock(), this.#skewMarginMs)) return null;
    const key = await this.#leaseBuckets.lastEntry(partition);
    return key !== null && key.revision === held.revision && key.lease?.node === this.node ? held.revision : null;
  }

  /** One round: presence, read, plan, write. Rounds never overlap. */
  round(): Promise<RoundReport> {
    this.#round ??= this.#runRound().finally(() => {
      this.#round = null;
    });
    return this.#round;
  }

  async #runRound(): Promise<RoundReport> {
    const now = this.#clock();
    const unanswered: string[] = [];
    const noted = (what: string) => (error: unknown) => {
      unanswered.push(`${what}: ${String((error as Error)?.message ?? error)}`);
      return null;
    };
    // Each read or write stands alone: while a bucket elects a new leader (its server lost) its requests time
    // out, and the partitions whose buckets answer must still be renewed and claimed meanwhile.
    // a watch that has not applied this node's own presence of a round ago has gone silent: started again
    this.#presenceFollower?.expect(this.#presenceWritten);
    for (const [partition, until] of this.#handingOff) if (until <= now) this.#handingOff.delete(partition);
    const handingOff = new Set(this.#handingOff.keys());
    const presence: Presence = { ...newLease(this.node, now, this.#leaseMs), handingOff: handingOff.size > 0 };
    const written = await this.#js
      .publish(`$KV.${this.#bucket}-nodes.${presenceKey(this.node)}`, encodePresence(presence), { timeout: this.#requestTimeoutMs })
      .catch(noted("presence"));
    if (written !== null) this.#presenceWritten = written.seq;
    // the presences watched (a lookup per round would create a consumer each time, which can wait seconds on
    // a lost server); a watch that falls behind makes others look gone: this node then aims at a larger
    // share, but can still only claim partitions that are free or whose leases ran out
    const live = takers(this.#presence.values(), this.node, presence.handingOff, now);
    const read = await Promise.all(
      Array.from({ length: this.partitionCount }, (_, p) => this.#leaseBuckets.read(p).catch(noted(`read ${p}`))),
    );
    const keys = read.map((key, partition): LeaseKey | null => {
      const held = this.#held.get(partition);
      if (key === null) {
        // not read this round: what it holds it renews at the revision it holds it at (the CAS decides), the rest it leaves
        return held ? { revision: held.revision, lease: { node: this.node, writtenAt: 0, expiresAt: held.expiresAt } } : null;
      }
      const unanswered = this.#unanswered.get(partition);
      this.#unanswered.delete(partition);
      if (
        held &&
        unanswered &&
        key.lease?.node === this.node &&
        key.lease.writtenAt === unanswered.writtenAt &&
        key.lease.expiresAt === unanswered.expiresAt
      ) {
        // this node's own renewal, whose answer was lost, landed: still held, at that write's revision
        this.#held.set(partition, { revision: key.revision, expiresAt: unanswered.expiresAt });
      } else if (held && (key.revision !== held.revision || key.lease?.node !== this.node)) {
        this.#lose(partition); // believed held, but another node has written the key since
      }
      return key;
    });
    read.forEach((key, partition) => {
      if (key === null) return;
      if (key.lease === null) this.#leases.delete(partition);
      else this.#leases.set(partition, key.lease);
    });
    const steps = planRound({ me: this.node, now, keys, live, handingOff });
    const report: RoundReport = { steps, done: [], conflicts: [], errors: [], unanswered };
    await Promise.all(
      steps.map(async (step) => {
        try {
          if (await this.#apply(step, keys[step.partition]?.lease ?? null)) report.done.push(step);
          else report.conflicts.push(step);
        } catch (error) {
          report.errors.push({ step, error: String((error as Error).message ?? error) });
        }
      }),
    );
    return report;
  }

  /** Writes one step by compare-and-set; false when another write got there first (the step lost). */
  async #apply(step: Step, previous: Lease | null): Promise<boolean> {
    const now = this.#clock();
    if (step.kind === "release") {
      this.#lose(step.partition); // stop owning before anyone can see the partition free
      this.#leases.delete(step.partition);
      return (await this.#leaseBuckets.write(step.partition, null, step.revision)) !== null;
    }
    const lease = newLease(this.node, now, this.#leaseMs);
    let revision: number | null;
    try {
      revision = await this.#leaseBuckets.write(step.partition, lease, step.revision);
    } catch (error) {
      this.#unanswered.set(step.partition, lease); // it may have landed (a timeout): the next round reads which
      throw error;
    }
    if (revision === null) {
      if (step.kind === "renew") this.#lose(step.partition);
      return false;
    }
    const gained = !this.#held.has(step.partition);
    this.#held.set(step.partition, { revision, expiresAt: lease.expiresAt });
    this.#leases.set(step.partition, lease);
    if (gained) this.#onGained(step.partition, revision, previous);
    return true;
  }

  #lose(partition: number): void {
    if (this.#held.delete(partition)) this.#onLost(partition);
  }

  #handsOff(partition: number, now: number): boolean {
    return (this.#handingOff.get(partition) ?? -Infinity) > now;
  }

  /** Starts following the presence bucket (the last value of every key, then every change). */
  async #watchPresence(): Promise<void> {
    this.#presenceFollower = await BucketFollower.start(this.#nodes, {
      key: "node.*",
      checkEveryMs: 0, // each round's own presence write tells whether the watch still follows (expect())
      onEntry: (entry) => {
        const presence = entry.operation === "PUT" ? decodePresence(entry.value) : null;
        const node = entry.key.slice("node.".length);
        if (presence) this.#presence.set(node, presence);
        else this.#presence.delete(node);
      },
    });
  }

  /** How many times the presence watch was started again (it went silent or ended). */
  get presenceRewatches(): number {
    return this.#presenceFollower?.restarts ?? 0;
  }
}
