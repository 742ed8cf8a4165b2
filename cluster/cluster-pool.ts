// A cluster node's pool: the single-node Pool (host/pool.ts) over PartitionHandles, lookups from the replicated
// directory, pings by check uuid answered from the intake stream; the wiring of one node's cluster parts.
import type { NatsConnection } from "@nats-io/nats-core";
import type { Millis } from "../engine/model.ts";
import type { OutboxEntry } from "../engine/changes.ts";
import { FailureEpisodes } from "../host/failure-episodes.ts";
import { ShardedPool } from "../host/pool.ts";
import type { Pool } from "../host/pool-api.ts";
import { log } from "../host/log.ts";
import type { SentStream } from "./sent-stream.ts";
import { DirectoryReplica } from "./directory-replica.ts";
import type { NotificationSink, PartitionHistoryStore } from "./partition-host.ts";
import { PartitionHost } from "./partition-host.ts";
import { PartitionNode } from "./partition-node.ts";
import { NotOwnerError } from "./partition-replica.ts";
import { NodeForwarder, serveNode } from "./node-forwarding.ts";
import { PartitionHandle, PartitionSubscriptions, stopServingPartition } from "./partition-rpc.ts";
import { DEFAULT_PARTITION_COUNT, partitionOf } from "./partitions.ts";
import { UnknownTimeBucket } from "./unknown-time-bucket.ts";
import { mergeSpans } from "../persistence/unknown-time.ts";
import { PingWatermarks } from "./ping-watermarks.ts";
import { IntakeFollower } from "./intake-follower.ts";
import { INTAKE_STREAM, IntakePublisher, intakeEndOf, openIntakeStream } from "./intake-stream.ts";
import { managerOf } from "./jetstream-setup.ts";

/** How often the intake stream is purged below what every partition's log holds. */
const PURGE_EVERY_MS = 30_000;

export type ClusterPoolOptions = {
  readonly connection: NatsConnection;
  readonly node: string;
  /** 3 on a three-server cluster. */
  readonly replicas: number;
  readonly partitionCount?: number;
  /** Where notifications wait (the whole cluster's queue) and what is waiting in it. */
  readonly notifications: NotificationSink & { pending(): Promise<OutboxEntry[]> };
  /** Delivered notifications, listed on each check's page (cluster/sent-stream.ts). */
  readonly sent?: Pick<SentStream, "list">;
  /** Opens a partition's history of pings and flips (cluster/partition-history.ts). */
  readonly openHistory: (partition: number) => Promise<PartitionHistoryStore>;
  readonly clock?: () => Millis;
  readonly leaseMs?: number;
  readonly renewEveryMs?: number;
  readonly advanceEveryMs?: number;
  /** Records between a partition's snapshots (default DEFAULT_SNAPSHOT_EVERY, partitions.ts). */
  readonly snapshotEvery?: number;
  /** How often the node serving partition 0 purges the intake stream below what every partition's log holds (default 30 s). */
  readonly intakePurgeEveryMs?: number;
  /** Where failed takeovers, snapshots, advances and ownership rounds are logged and counted (default: a fresh one). */
  readonly failures?: FailureEpisodes;
  /** Run by the pool's close() after the node has stopped (what the caller opened for it). */
  readonly onClose?: () => Promise<void>;
};

/** A started cluster node: its pool, and what tests and operators look at. */
export type ClusterPool = {
  readonly pool: Pool;
  /** The partitions this node serves now, lowest first. */
  served(): number[];
  /** Failed takeovers, snapshots, advances and ownership rounds, for /metrics. */
  readonly failures: FailureEpisodes;
  /** Stops claiming, releases this node's partitions (others take them at once), closes the pool, then runs onClose. */
  close(): Promise<void>;
};

/**
 * Starts a node: it claims its share of the partitions, takes each over, makes the directory's keys of the
 * partition exactly its state, and only then serves it. A partition's routing is the pool's shard routing
 * (shardOf and partitionOf are the same FNV-1a hash for the ASCII uuids project ids are).
 */
export async function createClusterPool(options: ClusterPoolOptions): Promise<ClusterPool> {
  const { connection, replicas } = options;
  const partitionCount = options.partitionCount ?? DEFAULT_PARTITION_COUNT;
  const directory = await DirectoryReplica.open({ connection, replicas, partitionCount });
  const unknownTime = await UnknownTimeBucket.open({ connection, replicas, clock: options.clock });
  const failures = options.failures ?? new FailureEpisodes();
  const hosts = new Map<number, PartitionHost>();
  let pool: ShardedPool | null = null; // made below, once the partitions' handles exist
  await openIntakeStream(connection, replicas);
  let connected = true;
  const intake = new IntakePublisher({ connection, connected: () => connected });
  const follower = new IntakeFollower({ connection });
  // this node's host of a partition while it serves it (PartitionNode.replica(), the one rule): requests from
  // this node and from others reach it, the latter through a subscription kept to the same rule
  const local = (partition: number) => (node.replica(partition) !== null ? (hosts.get(partition) ?? null) : null);
  const subscriptions = new PartitionSubscriptions(connection, local);

  const node: PartitionNode = await PartitionNode.open({
    connection,
    node: options.node,
    partitionCount,
    replicas,
    clock: options.clock,
    leaseMs: options.leaseMs,
    renewEveryMs: options.renewEveryMs,
    advanceEveryMs: options.advanceEveryMs,
    replica: { snapshotEvery: options.snapshotEvery },
    failures,
    intakeMark: (partition) => follower.sendLingering(partition),
    judgeUpTo: (partition, now, handed) => watermarks.judgeUpTo(partition, now, handed),
    // before a new owner judges anything: every ping acknowledged before the takeover is in its log, at its own stamp
    catchUp: async (partition, replica, now) => {
      const end = await intakeEnd();
      follower.join(partition, replica.intakeMark, replica);
      await follower.reached(partition, end);
      return watermarks.judgeUpTo(partition, now, follower.sendLingering(partition) ?? 0);
    },
    prepare: async (partition) => {
      const host = new PartitionHost(partition, {
        openHistory: () => options.openHistory(partition),
        notifications: options.notifications,
        directory,
        replica: () => node.replica(partition),
        pendingNotifications: () => options.notifications.pending(),
        sent: options.sent,
        intakeReached: (seq) => follower.reached(partition, seq),
      });
      hosts.set(partition, host);
      return host.replicaOptions();
    },
    onTakeover: async (partition, report, replica) => {
      // the time without an owner is stored before the partition is served: status pages show it as unknown
      if (report.unowned !== null) await unknownTime.record(partition, report.unowned);
      const [projects, routes, pushTokens] = replica.read(
        (shard) => [shard.projects(), [...shard.routes()], [...shard.pushTokens()]] as const,
      );
      const reconciled = await directory.reconcile(partition, projects, routes, pushTokens);
      await directory.caughtUpTo(reconciled.revision);
      if (replica.state !== "owner") throw new NotOwnerError(`partition ${partition}: lost during its takeover`); // onLost ran meanwhile
      log.info(
        { partition, replayed: report.replayed, snapshot: report.snapshotSequence, flips: report.flips.length },
        "cluster: partition taken over",
      );
    },
    onServed: (partition) => subscriptions.follow(partition),
    onDropped: (partition) => hosts.delete(partition), // its caches go with its shard; a later gain prepares a fresh host
    onLost: (partition) => {
      follower.leave(partition);
      subscriptions.follow(partition);
      log.info({ partition }, "cluster: partition lost");
    },
  });

  // made once the node is: its first publication lists the partitions served (none yet)
  const watermarks = new PingWatermarks({
    connection,
    node: options.node,
    partitionCount,
    clock: options.clock ?? Date.now,
    unansweredSince: (partition) => pool?.earliestUnansweredPingAt(partition) ?? null,
    storedUpTo: () => intake.storedUpTo,
    floors: () => node.ready().map((partition) => [partition, node.replica(partition)?.intakeStored ?? 0] as const),
  });
  void (async () => {
    for await (const status of connection.status()) {
      if (status.type === "disconnect") connected = false;
      else if (status.type === "reconnect") connected = true;
    }
  })().catch(() => {}); // ends with the connection
  const servingNode = serveNode(connection, options.node, local);
  const forwarder = new NodeForwarder(connection);
  // the intake stream's last position: every ping answered before a request was asked is at or below it
  const intakeManager = managerOf(connection);
  const intakeEnd = async () => {
    try {
      return await intakeEndOf(await intakeManager);
    } catch {
      return Math.max(intake.storedUpTo, watermarks.newestSeq()); // what this node knows of without asking
    }
  };
  const handles = Array.from(
    { length: partitionCount },
    (_, partition) =>
      new PartitionHandle({
        connection,
        partition,
        connected: () => connected,
        local: () => local(partition),
        directorySynced: () => directory.synced(),
        intakeAfter: () => intakeEnd(),
        forward: {
          leaseholder: () => {
            const holder = node.leaseholder(partition);
            return holder === options.node ? null : holder;
          },
          send: (to, request) => forwarder.send(to, partition, request),
        },
      }),
  );
  pool = new ShardedPool(
    handles,
    async () => {
      clearInterval(followServed);
      clearInterval(purging);
      follower.close();
      watermarks.close();
      await node.stop();
      subscriptions.close();
      stopServingPartition(servingNode); // drained, as a partition's: what arrived is answered (NotOwnerError)
      await directory.close();
      await options.onClose?.();
    },
    directory,
  );
  // a partition stops being served without an event too (its lease lapsed by the clock, its replica stopped
  // after a failed write): its subscription follows within a second
  const followServed = setInterval(() => {
    for (let partition = 0; partition < partitionCount; partition++) subscriptions.follow(partition);
  }, 1_000);
  pool.useIntake(intake);
  pool.useUnknownTime(async (projectId) =>
    projectId !== null
      ? unknownTime.spans(partitionOf(projectId, partitionCount))
      : mergeSpans((await Promise.all(Array.from({ length: partitionCount }, (_, partition) => unknownTime.spans(partition)))).flat()),
  );
  // the node serving partition 0 lets go of the intake messages every partition's log holds
  const purging = setInterval(() => {
    const floor = watermarks.floor((options.clock ?? Date.now)());
    if (floor === null || floor <= 0 || node.replica(0) === null) return;
    void intakeManager
      .then((jsm) => jsm.streams.purge(INTAKE_STREAM, { seq: floor + 1 }))
      .catch((error: unknown) => log.warn({ err: error, floor }, "cluster: the intake stream could not be purged; tried again later"));
  }, options.intakePurgeEveryMs ?? PURGE_EVERY_MS);
  node.start();
  return {
    pool,
    served: () => node.ready(),
    failures,
    close: () => pool.close(),
  };
}
