// Creating the cluster's streams and buckets idempotently (every node does at start, often at once), asking
// again while they settle, and opening a partition's streams at each takeover.
import { DiscardPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import type { JetStreamClient, JetStreamManager, StreamConfig } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { KV, KvOptions } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { nanos } from "@nats-io/nats-core";
import { streamNotFound, subjectsOverlap, unanswered } from "./nats-errors.ts";

/**
 * The connection's JetStream manager, without the account-info request the client sends by default to
 * check that JetStream is there: the meta leader answers that one, and after a NATS server's loss the
 * cluster may have none for many seconds, while the streams' own leaders (which answer everything this
 * code asks) are already back. A takeover opened in that window must not fail on the check.
 */
export function managerOf(connection: NatsConnection, timeoutMs?: number): Promise<JetStreamManager> {
  return jetstreamManager(connection, timeoutMs === undefined ? { checkAPI: false } : { checkAPI: false, timeout: timeoutMs });
}

/** Opens KV bucket `name`, creating it with `options` unless it exists (whatever configuration it has then). */
export function openBucket(connection: NatsConnection, name: string, options: Partial<KvOptions>): Promise<KV> {
  return retriedWhileSettling(() => new Kvm(jetstream(connection)).create(name, options));
}

/**
 * Runs `ask` (a stream's or bucket's creation, a watch, a first write) again, 100 ms later and more each
 * time, while what it needs is still settling: when it went unanswered (a timeout; no responders: also a
 * publish to a stream still being set up), or when another node creating the same stream at that moment got
 * in its way (seen as a "stream not found" out of a bucket's create while two nodes opened it, and as
 * "subjects overlap with an existing stream"), up to `attempts` times; other errors are thrown at once.
 */
export async function retriedWhileSettling<T>(ask: () => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ask();
    } catch (error) {
      if (attempt >= attempts || !(unanswered(error) || streamNotFound(error) || subjectsOverlap(error))) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
}

/** Creates stream `config.name` with `config` unless it exists (whatever configuration it has then). */
export async function ensureStream(jsm: JetStreamManager, config: Partial<StreamConfig> & { name: string }): Promise<void> {
  await retriedWhileSettling(async () => {
    try {
      await jsm.streams.info(config.name);
    } catch (error) {
      if (!streamNotFound(error)) throw error;
      await jsm.streams.add(config);
    }
  });
}

/** The settings of a stream whose messages are kept until the code lets them go (a purge), never dropped for space or age. */
export function keptUntilPurged(subjects: string[]): Partial<StreamConfig> {
  return {
    subjects,
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.New,
    max_msgs: -1,
    max_bytes: -1,
    max_age: 0,
  };
}

/** The settings of a stream with a subject per key (`<prefix>.<key>`), each keeping its newest `perSubject` for at most `maxAgeMs` (the audit log, sent notices). */
export function newestPerSubject(prefix: string, perSubject: number, maxAgeMs: number): Partial<StreamConfig> {
  return {
    subjects: [`${prefix}.*`],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    max_msgs_per_subject: perSubject,
    max_age: nanos(maxAgeMs),
    max_msgs: -1,
    max_bytes: -1,
  };
}

/** How to reach one of a partition's streams (its log, its snapshots, its history). */
export type PartitionStreamOptions = {
  connection: NatsConnection;
  partition: number;
  /** 3 on a three-server cluster (a quorum of two holds a message before it is acknowledged), 1 alone. */
  replicas: number;
  /** How long a publish waits for its PubAck before it rejects (or, where the stream says so, is sent again). Default 5,000. */
  ackTimeoutMs?: number;
  /** The stream is `${streamPrefix}_${partition}`, its subjects start with `${subjectPrefix}.${partition}`. */
  streamPrefix?: string;
  subjectPrefix?: string;
};

/** One of a partition's streams, opened: its name, the start of its subjects, and the clients that use it. */
export type PartitionStream = {
  readonly connection: NatsConnection;
  readonly stream: string;
  readonly subject: string;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  readonly ackTimeoutMs: number;
};

/**
 * Opens one of a partition's streams (names from `defaults` unless the options give prefixes), creating
 * it with the settings `settings` gives for its subject unless it exists.
 */
export async function openPartitionStream(
  options: PartitionStreamOptions,
  defaults: { streamPrefix: string; subjectPrefix: string },
  settings: (subject: string) => Partial<StreamConfig>,
): Promise<PartitionStream> {
  const stream = `${options.streamPrefix ?? defaults.streamPrefix}_${options.partition}`;
  const subject = `${options.subjectPrefix ?? defaults.subjectPrefix}.${options.partition}`;
  const jsm = await managerOf(options.connection);
  await ensureStream(jsm, { ...settings(subject), name: stream, num_replicas: options.replicas });
  return {
    connection: options.connection,
    stream,
    subject,
    js: jetstream(options.connection),
    jsm,
    ackTimeoutMs: options.ackTimeoutMs ?? 5_000,
  };
}
