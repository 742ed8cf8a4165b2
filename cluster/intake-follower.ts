// An owner's reading of the intake stream (intake-stream.ts): one ordered consumer per node hands each
// partition this node serves its pings in stream order, appended to its log a group at a time.
import { DeliverPolicy, jetstream } from "@nats-io/jetstream";
import type { ConsumerMessages, JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import type { PingCommand } from "../engine/commands.ts";
import { log } from "../host/log.ts";
import { ServiceUnavailableError } from "../host/unavailable.ts";
import { watchStalled } from "./bucket-follower.ts";
import type { WatchLook } from "./bucket-follower.ts";
import { decodeIntake, INTAKE_STREAM } from "./intake-stream.ts";
import { managerOf } from "./jetstream-setup.ts";
import { NotOwnerError } from "./partition-replica.ts";
import type { PartitionReplica } from "./partition-replica.ts";

/** How long a read waits for the pings acknowledged before it to be applied before it is answered 503. */
const REACHED_TIMEOUT_MS = 10_000;

/**
 * How long a partition's pings wait for others to share its next append (at most 256 wait). Nothing waits
 * on it: a ping is answered once in the intake stream, and a read or an advance sends the waiting pings at
 * once (the node's timer asks every second: partition-node.ts). Fewer and fuller appends cost the cluster
 * less (measured: docs/cluster.md, NATS server notes).
 */
const LINGER_MS = 1_000;
/** How often the stream is looked at to tell whether the reading went silent. */
const CHECK_EVERY_MS = 2_000;

/** What the follower needs of a partition's replica. */
export type IntakeReplica = Pick<PartitionReplica, "submitIntake">;

type Waiter = {
  readonly seq: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
  readonly timer: ReturnType<typeof setTimeout>;
};

/** A partition this node serves, as the follower hands it pings. */
type Joined = {
  readonly partition: number;
  /** Where its pings go: the replica taking it over or owning it. */
  readonly replica: IntakeReplica;
  /** The last position handed to it: its pings up to here are lingering, appended or on their way. */
  mark: number;
  lingering: { readonly seq: number; readonly ping: PingCommand }[];
  timer: ReturnType<typeof setTimeout> | null;
  /** The first position of each append not yet answered, oldest first. */
  readonly appending: { readonly first: number }[];
  readonly waiters: Waiter[];
};

export type IntakeFollowerOptions = {
  readonly connection: NatsConnection;
  /** How long a partition's pings wait for others to share an append (default LINGER_MS). */
  readonly lingerMs?: number;
  /** How often the stream is looked at to tell whether the reading went silent (default CHECK_EVERY_MS; 0: never). */
  readonly checkEveryMs?: number;
};

/**
 * Invariants: a ping reaches its partition's log once and in stream order (a partition skips what it was
 * handed already, whatever position the consumer starts again from); a partition is joined only while its
 * replica takes its pings (one that refuses them, or whose append failed, is dropped, and its next
 * takeover joins it again from its log's mark).
 */
export class IntakeFollower {
  readonly #options: IntakeFollowerOptions;
  readonly #joined = new Map<number, Joined>();
  #received = 0; // the last position handed out
  #generation = 0; // raised by every start: an older consumer's messages are not handled
  #messages: ConsumerMessages | null = null;
  #closed = false;
  #look: WatchLook = { applied: 0, bucket: 0 };
  #looking: ReturnType<typeof setInterval> | null = null;
  #manager: Promise<JetStreamManager> | null = null;
  #restarts = 0;

  constructor(options: IntakeFollowerOptions) {
    this.#options = options;
  }

  /** The last stream position handed to the partitions. */
  get received(): number {
    return this.#received;
  }

  /** How many times the reading started again after it failed or went silent. */
  get restarts(): number {
    return this.#restarts;
  }

  /**
   * Starts handing `replica` its partition's pings after `mark` (where its log holds them up to), until
   * it refuses them or the partition leaves; the consumer goes back there if it has passed it. A partition
   * joins during its replica's takeover, before anything is judged (PartitionReplica.takeOver's catchUp).
   */
  join(partition: number, mark: number, replica: IntakeReplica): void {
    this.leave(partition);
    this.#joined.set(partition, { partition, replica, mark, lingering: [], timer: null, appending: [], waiters: [] });
    if (this.#generation === 0 || mark < this.#received) this.#start(Math.min(mark, this.#received) + 1);
  }

  /** Stops handing `partition` pings (lost, or its append failed); what waits on it is refused (NotOwnerError: asked again). */
  leave(partition: number): void {
    const joined = this.#joined.get(partition);
    if (joined === undefined) return;
    this.#joined.delete(partition);
    if (joined.timer !== null) clearTimeout(joined.timer);
    for (const waiter of joined.waiters.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(new NotOwnerError(`partition ${partition}: no longer read from the intake stream here`));
    }
  }

  /**
   * Sends `partition`'s lingering pings to its log and returns the last position handed to it (every ping
   * of it up to there is queued for its log: an advance may record it), or null when it is not joined.
   */
  sendLingering(partition: number): number | null {
    const joined = this.#joined.get(partition);
    if (joined === undefined) return null;
    this.#append(joined);
    return joined.mark;
  }

  /** Resolves once every ping of `partition` at or below `seq` is applied; rejects when the partition leaves meanwhile, or after 10 s. */
  reached(partition: number, seq: number): Promise<void> {
    const joined = this.#joined.get(partition);
    if (joined === undefined) return Promise.reject(new NotOwnerError(`partition ${partition}: not read from the intake stream here`));
    if (throughOf(joined) >= seq) return Promise.resolve();
    this.#append(joined);
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const at = joined.waiters.indexOf(waiter);
        if (at >= 0) joined.waiters.splice(at, 1);
        reject(
          new ServiceUnavailableError(
            `partition ${partition}: the pings acknowledged before this request were not applied within ${REACHED_TIMEOUT_MS / 1000} s`,
          ),
        );
      }, REACHED_TIMEOUT_MS);
      const waiter: Waiter = { seq, resolve, reject, timer };
      joined.waiters.push(waiter);
    });
  }

  close(): void {
    this.#closed = true;
    this.#generation += 1;
    this.#messages?.stop();
    if (this.#looking !== null) clearInterval(this.#looking);
    for (const partition of [...this.#joined.keys()]) this.leave(partition);
  }

  /**
   * Reads the stream from position `from` on, in place of any earlier reading; the first start also starts
   * the looks at the stream that start the reading again when it went silent (#lookAtStream).
   */
  #start(from: number): void {
    if (this.#closed) return;
    const generation = ++this.#generation;
    this.#messages?.stop();
    this.#messages = null;
    this.#received = from - 1;
    void this.#run(from, generation).catch((error: unknown) => {
      if (generation !== this.#generation) return;
      log.warn({ err: error, from }, "cluster: reading the intake stream failed; starting again");
      setTimeout(() => {
        if (generation !== this.#generation) return;
        this.#restarts += 1;
        this.#start(this.#received + 1);
      }, 500);
    });
    const every = this.#options.checkEveryMs ?? CHECK_EVERY_MS;
    if (this.#looking === null && every > 0) {
      this.#looking = setInterval(() => void this.#lookAtStream().catch(() => {}), every);
      this.#looking.unref();
    }
  }

  /**
   * A consumer lost with its server while this connection stays up delivers nothing more, and the client
   * notices only after missed heartbeats (docs/cluster.md, NATS server notes). So the stream's last
   * position is looked at every checkEveryMs, and a reading that was handed nothing between two looks while
   * the stream was already ahead of it at the first (watchStalled, the watches' rule) starts again after
   * the last position it handed out.
   */
  async #lookAtStream(): Promise<void> {
    const jsm = await (this.#manager ??= managerOf(this.#options.connection));
    const stream = (await jsm.streams.info(INTAKE_STREAM)).state.last_seq;
    const stalled = watchStalled(this.#look, this.#received);
    this.#look = { applied: this.#received, bucket: stream };
    if (!stalled || this.#closed) return;
    log.warn({ received: this.#received, stream }, "cluster: the intake stream's reading went silent; starting again");
    this.#restarts += 1;
    this.#start(this.#received + 1);
  }

  async #run(from: number, generation: number): Promise<void> {
    const consumer = await jetstream(this.#options.connection).consumers.get(INTAKE_STREAM, {
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: from,
    });
    if (generation !== this.#generation) return;
    const messages = await consumer.consume({ max_messages: 512 });
    if (generation !== this.#generation) {
      messages.stop();
      return;
    }
    this.#messages = messages;
    for await (const message of messages) {
      if (generation !== this.#generation) break;
      this.#handle(message.seq, message.data);
    }
  }

  #handle(seq: number, data: Uint8Array): void {
    if (seq <= this.#received) return;
    let pings: ReturnType<typeof decodeIntake> = [];
    try {
      pings = decodeIntake(data, (partition) => this.#joined.has(partition));
    } catch (error) {
      log.error({ seq, err: error }, "cluster: an intake message that does not read; skipped");
    }
    for (const [partition, , ping] of pings) {
      const joined = this.#joined.get(partition);
      if (joined !== undefined && seq > joined.mark) joined.lingering.push({ seq, ping });
    }
    this.#received = seq;
    for (const joined of this.#joined.values()) {
      if (seq <= joined.mark) continue;
      joined.mark = seq;
      if (joined.lingering.length >= 256) this.#append(joined);
      else if (joined.lingering.length > 0) joined.timer ??= setTimeout(() => this.#append(joined), this.#options.lingerMs ?? LINGER_MS);
      this.#answerWaiters(joined);
    }
  }

  /** Sends the partition's lingering pings to its log as one append. */
  #append(joined: Joined): void {
    if (joined.timer !== null) clearTimeout(joined.timer);
    joined.timer = null;
    if (joined.lingering.length === 0) return;
    const pings = joined.lingering;
    joined.lingering = [];
    const appending = { first: pings[0].seq };
    joined.appending.push(appending);
    // refused (NotOwnerError) once the replica is not the writer: its next owner reads them from its log's mark
    joined.replica.submitIntake(pings).then(
      () => {
        joined.appending.splice(joined.appending.indexOf(appending), 1);
        this.#answerWaiters(joined);
      },
      (error: unknown) => {
        if (!(error instanceof NotOwnerError))
          log.warn(
            { partition: joined.partition, err: error },
            "cluster: a partition's intake pings were not appended; its next takeover reads them again",
          );
        if (this.#joined.get(joined.partition) === joined) this.leave(joined.partition);
      },
    );
  }

  #answerWaiters(joined: Joined): void {
    if (joined.waiters.length === 0) return;
    const through = throughOf(joined);
    for (let i = joined.waiters.length - 1; i >= 0; i--) {
      const waiter = joined.waiters[i];
      if (waiter.seq > through) continue;
      joined.waiters.splice(i, 1);
      clearTimeout(waiter.timer);
      waiter.resolve();
    }
  }
}

/** The last position up to which every ping handed to the partition is applied. */
function throughOf(joined: Joined): number {
  const pending = Math.min(joined.lingering[0]?.seq ?? Infinity, joined.appending[0]?.first ?? Infinity);
  return pending === Infinity ? joined.mark : pending - 1;
}
