// Requests to a partition's owner from any node, over NATS request/reply on `hcd.rpc.<partition>` (only the
// owner subscribes), answered at once when this node is the owner.
import { wirePackr as packr } from "./wire-packr.ts";
import type { Msg, NatsConnection, Subscription } from "@nats-io/nats-core";
import type { HostRequest, HostResultOf, ShardHandle } from "../host/shard-requests.ts";
import { ServiceUnavailableError } from "../host/unavailable.ts";
import { log } from "../host/log.ts";
import { noResponders, timedOut } from "./nats-errors.ts";
import { NotOwnerError } from "./partition-replica.ts";
import type { PartitionHost } from "./partition-host.ts";

// copyBuffers: a decoded body must not point into the message's buffer, which the client reuses

const READS = new Set<HostRequest["kind"]>([
  "channels",
  "projectVersion",
  "checksSince",
  "listChecks",
  "listChecksJson",
  "getCheck",
  "listPings",
  "pingBody",
  "listFlips",
  "probe",
  "stats",
  "outbox",
  "pruneFlips",
]);

/** Requests that need not see the pings answered before them: a ping by slug, and the node's own health and figures. */
const BLIND_TO_INTAKE = new Set<HostRequest["kind"]>(["pingBatch", "probe", "stats", "outbox", "pruneFlips", "close"]);

/** Changes after which the asking node's directory must hold what the owner published before answering. */
const CHANGES_DIRECTORY = new Set<HostRequest["kind"]>([
  "createProject",
  "muteProject",
  "changeProject",
  "addMaintenance",
  "removeMaintenance",
  "createCheck",
  "deleteCheck",
]);

/** A request's answer: its result, or the name and message of what it threw. */
export type Reply =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly name: string; readonly message: string };

/** A request as the owner carries it out: once the partition's intake pings up to `after` are applied. */
export type Asked = { readonly request: HostRequest; readonly after: number };

/**
 * The bytes of a request on the wire: the HostRequest itself as msgpack, its field names inside, and the
 * intake position it waits for (when there is one) as one more field, which a build before it ignores.
 */
export function encodeRequest(request: HostRequest, after = 0): Uint8Array {
  return packr.pack(after > 0 ? { ...request, intakeAfter: after } : request);
}

export function decodeRequest(bytes: Uint8Array): Asked {
  const { intakeAfter, ...request } = packr.unpack(bytes) as HostRequest & { intakeAfter?: unknown };
  return { request, after: typeof intakeAfter === "number" ? intakeAfter : 0 };
}

/** The bytes of an answer on the wire, as msgpack. */
export function encodeReply(reply: Reply): Uint8Array {
  return packr.pack(reply);
}

export function decodeReply(bytes: Uint8Array): Reply {
  return packr.unpack(bytes) as Reply;
}

export function rpcSubject(partition: number): string {
  return `hcd.rpc.${partition}`;
}

/**
 * Answers requests for `partition` from `host` until stopServing. The owners of a partition form one queue
 * group: while an old owner is still subscribed next to the new one, each request reaches one of them only
 * (reaching both, the old one's quick NotOwnerError would make the asker send again what the new one applies).
 */
export function servePartition(connection: NatsConnection, partition: number, host: PartitionHost): Subscription {
  return connection.subscribe(rpcSubject(partition), {
    queue: "owner",
    callback: (error, message) => {
      if (error !== null) return;
      void answer(host, message);
    },
  });
}

/**
 * Stops answering a partition's requests. Drained, not dropped: a request the server routed here before it
 * learned of the unsubscription is still answered (NotOwnerError, so the asker sends it again), where a
 * dropped one would leave its asker waiting out its timeout and answering 503.
 */
export function stopServingPartition(subscription: Subscription): void {
  subscription.drain().catch(() => subscription.unsubscribe()); // the connection closed: nothing more arrives
}

/**
 * A node's subscriptions to its partitions' requests, each kept to what `hostOf` says: subscribed to its
 * host of now exactly while the partition is served here (a host made again after a drop is subscribed
 * afresh), so that no queue group's share of requests reaches a node that would refuse them.
 */
export class PartitionSubscriptions {
  readonly #connection: NatsConnection;
  readonly #hostOf: (partition: number) => PartitionHost | null;
  readonly #subscribed = new Map<number, { readonly host: PartitionHost; readonly subscription: Subscription }>();

  constructor(connection: NatsConnection, hostOf: (partition: number) => PartitionHost | null) {
    this.#connection = connection;
    this.#hostOf = hostOf;
  }

  /** Subscribes or unsubscribes `partition` as its host says now. */
  follow(partition: number): void {
    const host = this.#hostOf(partition),
      now = this.#subscribed.get(partition);
    if (now?.host === host) return;
    if (now !== undefined) {
      stopServingPartition(now.subscription);
      this.#subscribed.delete(partition);
    }
    if (host !== null) this.#subscribed.set(partition, { host, subscription: servePartition(this.#connection, partition, host) });
  }

  /** Drains every subscription: what arrived is answered. */
  close(): void {
    for (const { subscription } of this.#subscribed.values()) stopServingPartition(subscription);
    this.#subscribed.clear();
  }
}

async function answer(host: PartitionHost, message: Msg): Promise<void> {
  const reply = await replyOf(host, () => decodeRequest(message.data));
  try {
    message.respond(encodeReply(reply));
  } catch {
    // the connection closed meanwhile: the asker times out
  }
}

/** Carries out a request on this node's host of its partition; what it returned or threw, as an answer. */
export async function replyOf(host: PartitionHost, asked: () => Asked): Promise<Reply> {
  let reply: Reply;
  const startedAt = Date.now();
  try {
    const { request, after } = asked();
    reply = { ok: true, value: await host.applyAfter(request, after) };
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    reply = { ok: false, name: failure.name, message: failure.message };
  }
  const ms = Date.now() - startedAt;
  if (ms >= 1_000) log.warn({ partition: host.partition, ms, ok: reply.ok }, "cluster: a partition's request took long to answer");
  return reply;
}

export type PartitionHandleOptions = {
  readonly connection: NatsConnection;
  readonly partition: number;
  /** This node's host of the partition while it serves it, else null. */
  readonly local: () => PartitionHost | null;
  /** False while this node is cut off from NATS: then nothing is asked, and the answer is 503 at once. */
  readonly connected: () => boolean;
  /** Resolves once this node's directory holds everything written to the bucket before the call. */
  readonly directorySynced: () => Promise<unknown>;
  /** The intake stream position of every ping answered so far (by any node): a request is carried out after them (default 0). */
  readonly intakeAfter?: () => Promise<number>;
  /** How long one request waits for the owner's answer (default 10 s). */
  readonly requestTimeoutMs?: number;
  /** How long a request is sent again while no owner answers (default 20 s: a takeover takes up to about 15). */
  readonly retryForMs?: number;
  /**
   * Where a ping batch goes on its first try: to the node holding the partition's lease, with the batches
   * of its other partitions (node-forwarding.ts). Absent, or no leaseholder known: the partition's subject.
   */
  readonly forward?: { readonly leaseholder: () => string | null; send(node: string, request: HostRequest, after: number): Promise<Reply> };
};

/**
 * Invariants: nothing is acknowledged that may not be replicated (a node cut off from NATS answers 503);
 * a request is sent again only when nothing of it can have been applied (no subscriber, or NotOwnerError:
 * a ping batch is appended whole or not at all), and reads on timeouts too; a change whose request timed
 * out, one the owner failed to store, one superseded by a takeover, or a batch refused as late becomes
 * ServiceUnavailableError (503), never a second application. A read or change carries the intake
 * stream's last position and is carried out once the partition's pings up to there are applied, so a read
 * after a ping through any node sees it. A ping batch's first try goes to the leaseholder node
 * (node-forwarding.ts).
 */
/** A partition as the pool reaches it from this node (the pool's ShardHandle). */
export class PartitionHandle implements ShardHandle {
  readonly #options: PartitionHandleOptions;

  constructor(options: PartitionHandleOptions) {
    this.#options = options;
  }

  async apply<R extends HostRequest>(request: R): Promise<HostResultOf<R>> {
    if (request.kind === "close") return undefined as HostResultOf<R>; // the pool's close stops the node, not the owners
    if (!this.#options.connected()) throw new ServiceUnavailableError("this node is cut off from the cluster");
    const read = READS.has(request.kind);
    const after = BLIND_TO_INTAKE.has(request.kind) ? 0 : ((await this.#options.intakeAfter?.()) ?? 0);
    const until = Date.now() + (this.#options.retryForMs ?? 20_000);
    for (let attempt = 0; ; attempt++) {
      const local = this.#options.local();
      try {
        if (local !== null) return await local.applyAfter(request, after); // its effects are in this node's directory already
        const value = (await this.#ask(request, after, read, attempt)) as HostResultOf<R>;
        if (!read && changesDirectory(request, value)) await this.#options.directorySynced();
        return value;
      } catch (error) {
        if (!(error instanceof Retry || error instanceof NotOwnerError) || Date.now() >= until)
          throw unavailable(error, this.#options.partition);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** attempt, 1_000)));
    }
  }

  async #ask(request: HostRequest, after: number, read: boolean, attempt: number): Promise<unknown> {
    // sent again, it goes through the partition's subject: the leaseholder known here may be out of date
    const leaseholder = request.kind === "pingBatch" && attempt === 0 ? (this.#options.forward?.leaseholder() ?? null) : null;
    let reply: Reply;
    try {
      reply =
        leaseholder !== null
          ? await this.#options.forward!.send(leaseholder, request, after)
          : decodeReply(
              (
                await this.#options.connection.request(rpcSubject(this.#options.partition), encodeRequest(request, after), {
                  timeout: this.#options.requestTimeoutMs ?? 10_000,
                })
              ).data,
            );
    } catch (error) {
      if (noResponders(error)) throw new Retry("no owner answers"); // nobody subscribed: not delivered, safe to send again
      if (timedOut(error) && read) throw new Retry("timed out");
      throw error;
    }
    if (reply.ok) return reply.value;
    if (reply.name === "NotOwnerError") throw new Retry(reply.message); // refused before anything was applied
    const failure = new Error(reply.message);
    failure.name = reply.name;
    throw failure;
  }
}

class Retry extends Error {}

function changesDirectory(request: HostRequest, value: unknown): boolean {
  if (CHANGES_DIRECTORY.has(request.kind)) return true;
  if (request.kind === "updateCheck" && request.spec.pushToken !== undefined) return true; // a push token routes pings (directory-keys.ts)
  return (
    request.kind === "pingBatch" &&
    (value as { ok: boolean; value?: { created?: boolean } }[]).some((r) => r.ok && r.value?.created === true)
  );
}

let lastLoggedAt = 0;

/** What the pool gets when a partition's request could not be carried out: 503 for the client, logged at most every 10 s. */
function unavailable(error: unknown, partition: number): Error {
  if (error instanceof ServiceUnavailableError) return error;
  const name = (error as Error)?.name;
  // failures the client caused or a bug, not the cluster's state, keep their error
  if (name === "TypeError" || name === "RangeError") return error as Error;
  const now = Date.now();
  if (now - lastLoggedAt > 10_000) {
    lastLoggedAt = now;
    log.warn({ partition, err: error }, "cluster: a partition's request could not be carried out (answered 503)");
  }
  return new ServiceUnavailableError(`partition ${partition}: ${(error as Error)?.message ?? String(error)}`);
}
