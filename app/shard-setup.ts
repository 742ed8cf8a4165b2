// Builds a ShardHost the same way in a worker thread and in-process: store, deadlines timer, deliverer.
import type { Durability } from "../persistence/open.ts";
import { randomUUID } from "node:crypto";
import type { Millis } from "../engine/model.ts";
import { Deliverer } from "../notify/deliverer.ts";
import type { ServiceSettings } from "../notify/kinds/settings.ts";
import { shardOutbox } from "./shard-outbox.ts";
import { ShardHost } from "../host/shard-host.ts";
import { isStoreUnavailable } from "../host/write-failures.ts";
import { log } from "../host/log.ts";

/** Everything a shard needs to start; plain data, so it can travel as workerData. */
export type ShardSetup = {
  readonly dataDir: string;
  readonly durability: Durability;
  readonly index: number;
  readonly count: number;
  readonly startAt: Millis;
  /** real: the shard's own timer applies deadlines; virtual: only `advance` calls do. */
  readonly clock: "real" | "virtual";
  readonly notify: {
    readonly siteRoot: string;
    readonly allowPrivateIps: boolean;
    readonly smtpUrl: string | null;
    readonly fromAddress?: string; // default hcd@localhost
    readonly services?: ServiceSettings; // the kinds of notify/kinds/: tokens and endpoints
  };
  /** Maintenance access (the CLI on a stopped server's DATA_DIR): no deliveries, no deadlines applied. */
  readonly passive?: boolean;
  /** Intake logs a crash left (ping-intake.ts): the shard applies their pings it does not hold yet. */
  readonly intakeLeft?: readonly string[];
};

/** Logs a failure, except the refusals of a store write failure, which the host logs once per episode. */
const report = (what: string) => (error: unknown) => {
  if (!isStoreUnavailable(error)) log.error({ err: error }, `${what} failed`);
};

/**
 * Opens a shard host and its deliverer. It judges no deadline by itself: the pool does, once every shard
 * is open (app/pools.ts startJudging), from then on through the deadline ticker (host/deadline-ticker.ts).
 */
export async function openShardHost(setup: ShardSetup): Promise<ShardHost> {
  const startAt = setup.startAt;
  const host = await ShardHost.open({ ...setup, startAt, newId: randomUUID, applyMissedDeadlines: false });
  if (setup.passive === true) return host;
  const deliverer = new Deliverer({
    outbox: shardOutbox(host.store(), setup.index, setup.count),
    siteRoot: setup.notify.siteRoot,
    allowPrivateIps: setup.notify.allowPrivateIps,
    smtpUrl: setup.notify.smtpUrl ?? undefined,
    fromAddress: setup.notify.fromAddress ?? "hcd@localhost",
    services: setup.notify.services,
    channels: (projectId) => host.apply({ kind: "channels", projectId }),
    onResult: (entry, result, error) => {
      const key = `${entry.channel.kind}\t${result}`;
      host.counters.notifications[key] = (host.counters.notifications[key] ?? 0) + 1;
      if (result === "sent") return;
      // ids only: a channel's value (a webhook URL, an address) may hold a secret
      const fields = { channel: entry.channel.id, kind: entry.channel.kind, check: entry.check.uuid, attempts: entry.attempts + 1, error };
      if (result === "given_up") log.error(fields, "notification given up");
      else log.warn(fields, "notification delivery failed, will retry");
    },
  });
  // Delivery runs beside the shard: it never blocks pings or deadlines, and failures stay in the outbox.
  // The deliverer reads the outbox from the tables: checkpoint the log first.
  const inFlight = new Set<Promise<void>>();
  const deliver = (now: Millis) => {
    const run = host
      .checkpointForOutbox()
      .then(() => deliverer.deliverDue(now))
      .catch(report("notification delivery"))
      .finally(() => inFlight.delete(run));
    inFlight.add(run);
  };
  host.onOutbox = deliver;
  host.onClose(async () => {
    host.onOutbox = null;
    await Promise.all(inFlight); // deliveries record their outcome before the store closes
  });
  deliver(startAt); // a restart resumes pending deliveries
  return host;
}
