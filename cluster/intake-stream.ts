// The cluster's intake stream (HCD_INTAKE, R3): a node appends the pings by check uuid of an event-loop turn
// as one message and answers them once stored; each owner takes its partitions' pings into their logs.
import type { JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import type { PingCommand } from "../engine/commands.ts";
import type { Millis } from "../engine/model.ts";
import { StampCounts } from "../lib/stamp-counts.ts";
import { ServiceUnavailableError } from "../host/unavailable.ts";
import { ensureStream, keptUntilPurged, managerOf } from "./jetstream-setup.ts";
import { replyInboxOf } from "./reply-inbox.ts";
import { wireEnvelopePackr, wirePackr as packr } from "./wire-packr.ts";

export const INTAKE_STREAM = "HCD_INTAKE";
const SUBJECT = "hcd.intake";
/** The first value of every intake message; a future format gets another. */
const INTAKE_RECORD_ID = 1;
/** Most bytes of pings in one message (NATS refuses messages over its max_payload, 1 MiB by default). */
const MAX_MESSAGE_BYTES = 256 * 1024;

/** One ping as the intake stream holds it: its partition, its project, the command. */
export type IntakePing = readonly [partition: number, projectId: string, ping: PingCommand];

/** Creates the intake stream unless it exists: kept until the partitions' owners have taken its pings into their logs (purged then). */
export async function openIntakeStream(connection: NatsConnection, replicas: number): Promise<void> {
  await ensureStream(await managerOf(connection), { ...keptUntilPurged([SUBJECT]), name: INTAKE_STREAM, num_replicas: replicas });
}

/**
 * The stream's last position (0 when it holds nothing: every ping is in its partition's log), asked of
 * the stream's leader by a message get: stream info may be answered by a replica behind or astray.
 */
export async function intakeEndOf(jsm: JetStreamManager): Promise<number> {
  return (await jsm.streams.getMessage(INTAKE_STREAM, { last_by_subj: SUBJECT }))?.seq ?? 0;
}

/**
 * An intake message: its pings in a section per partition, each section encoded on its own, so that a
 * node decodes only the sections of the partitions it serves (every node reads every message).
 */
export function encodeIntake(pings: readonly IntakePing[]): Uint8Array {
  const sections = new Map<number, [string, PingCommand][]>();
  for (const [partition, projectId, ping] of pings) {
    let section = sections.get(partition);
    if (section === undefined) sections.set(partition, (section = []));
    section.push([projectId, ping]);
  }
  return packr.pack([INTAKE_RECORD_ID, [...sections].map(([partition, section]) => [partition, packr.pack(section)])]);
}

/** The pings of an intake message of the partitions `wanted` keeps, in the order they were appended; throws when it is not one. */
export function decodeIntake(bytes: Uint8Array, wanted: (partition: number) => boolean): IntakePing[] {
  const value: unknown = wireEnvelopePackr.unpack(bytes);
  if (!Array.isArray(value) || value[0] !== INTAKE_RECORD_ID || !Array.isArray(value[1])) throw new Error("not an intake message");
  const pings: IntakePing[] = [];
  for (const [partition, section] of value[1] as [unknown, unknown][]) {
    if (typeof partition !== "number" || !(section instanceof Uint8Array)) throw new Error("not an intake section");
    if (!wanted(partition)) continue;
    for (const [projectId, ping] of packr.unpack(section) as [unknown, PingCommand][]) {
      if (typeof projectId !== "string" || typeof ping?.at !== "number") throw new Error("not an intake ping");
      // a decoded body must be the plain Uint8Array the shard compares, not a view into the message's buffer
      pings.push([partition, projectId, ping.body === null ? ping : { ...ping, body: new Uint8Array(ping.body) }]);
    }
  }
  return pings;
}

type Waiting = {
  readonly ping: IntakePing;
  readonly bytes: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
};

export type IntakePublisherOptions = {
  readonly connection: NatsConnection;
  /** False while this node is cut off from NATS: pings are answered 503 at once. */
  readonly connected: () => boolean;
  /** How long an append waits for its PubAck (default 5,000 ms). */
  readonly ackTimeoutMs?: number;
};

/** This node's appends to the intake stream (the pool's intake: host/pool.ts useIntake). */
/**
 * One append in flight at a time: the pings arriving meanwhile go together in the next (group commit), at
 * most MAX_MESSAGE_BYTES a message. An append that fails answers its pings 503; one that timed out may be
 * stored and applied all the same, as a ping a single node answered 503 may have been.
 */
export class IntakePublisher {
  readonly #options: IntakePublisherOptions;
  #queued: Waiting[] = [];
  #sending: Promise<void> | null = null;
  readonly #unanswered = new Map<number, StampCounts>(); // per partition, the stamps of its pings not yet answered
  #storedUpTo = 0;
  #closed = false;

  constructor(options: IntakePublisherOptions) {
    this.#options = options;
  }

  /** The largest position of this node's appended messages: every ping it has answered is at or below it. */
  get storedUpTo(): number {
    return this.#storedUpTo;
  }

  /** Appends the ping to the intake stream and resolves once it is stored; rejects with ServiceUnavailableError when it could not be. */
  send(partition: number, projectId: string, ping: PingCommand): Promise<void> {
    if (this.#closed) return Promise.reject(new ServiceUnavailableError("this node is stopping"));
    if (!this.#options.connected()) return Promise.reject(new ServiceUnavailableError("this node is cut off from the cluster"));
    const entry: IntakePing = [partition, projectId, ping];
    return new Promise<void>((resolve, reject) => {
      this.#queued.push({ ping: entry, bytes: sizeOf(ping), resolve, reject });
      this.#unansweredOf(partition).add(ping.at);
      if (this.#sending === null) this.#sending = this.#sendAll();
    });
  }

  /** The earliest stamp of this node's pings for the partition not yet answered, or null. */
  earliestUnhandedAt(partition: number): Millis | null {
    return this.#unanswered.get(partition)?.earliest() ?? null;
  }

  /** Resolves once every ping sent so far is answered. */
  async drain(): Promise<void> {
    while (this.#sending !== null) await this.#sending;
  }

  async probe(): Promise<void> {
    if (!this.#options.connected()) throw new ServiceUnavailableError("this node is cut off from the cluster");
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.drain();
  }

  /** Appends what is queued, a group at a time (those queued meanwhile go in the next), until nothing is. */
  async #sendAll(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve)); // the rest of this turn's pings join the first group
    while (this.#queued.length > 0) {
      const group = this.#queued;
      this.#queued = [];
      await Promise.all(messagesOf(group).map((message) => this.#append(message)));
    }
    this.#sending = null;
  }

  async #append(group: Waiting[]): Promise<void> {
    try {
      const ack = await replyInboxOf(this.#options.connection).publish(SUBJECT, encodeIntake(group.map((w) => w.ping)), {
        timeoutMs: this.#options.ackTimeoutMs ?? 5_000,
      });
      this.#storedUpTo = Math.max(this.#storedUpTo, ack.seq); // before the answers: a watermark read after one covers it
      for (const waiting of group) waiting.resolve();
    } catch (error) {
      const failure = new ServiceUnavailableError(
        `the intake stream did not store the ping: ${(error as Error)?.message ?? String(error)}`,
      );
      for (const waiting of group) waiting.reject(failure);
    } finally {
      for (const {
        ping: [partition, , ping],
      } of group) {
        const stamps = this.#unansweredOf(partition);
        stamps.remove(ping.at);
        if (stamps.empty) this.#unanswered.delete(partition);
      }
    }
  }

  #unansweredOf(partition: number): StampCounts {
    let stamps = this.#unanswered.get(partition);
    if (stamps === undefined) this.#unanswered.set(partition, (stamps = new StampCounts()));
    return stamps;
  }
}

/** The group as messages of at most MAX_MESSAGE_BYTES each (a larger ping alone). */
function messagesOf(group: Waiting[]): Waiting[][] {
  const messages: Waiting[][] = [];
  let current: Waiting[] = [],
    size = 0;
  for (const waiting of group) {
    if (current.length > 0 && size + waiting.bytes > MAX_MESSAGE_BYTES) {
      messages.push(current);
      current = [];
      size = 0;
    }
    current.push(waiting);
    size += waiting.bytes;
  }
  if (current.length > 0) messages.push(current);
  return messages;
}

/** About how many bytes a ping takes in a message. */
function sizeOf(ping: PingCommand): number {
  return (
    128 +
    ping.ua.length +
    ping.remoteAddr.length +
    (ping.body?.length ?? 0) +
    (ping.email === undefined ? 0 : ping.email.subject.length + ping.email.text.length)
  );
}
