// Ping batches of one turn forwarded per owner node (`hcd.node.<node>`), one request for all the partitions
// whose lease that node holds, instead of a request per partition.
import { wirePackr as packr } from "./wire-packr.ts";
import type { Msg, NatsConnection, Subscription } from "@nats-io/nats-core";
import type { HostRequest } from "../host/shard-requests.ts";
import type { PartitionHost } from "./partition-host.ts";
import { replyOf } from "./partition-rpc.ts";
import { replyInboxOf } from "./reply-inbox.ts";
import type { Reply } from "./partition-rpc.ts";

/** One partition's request inside a node's request, and the intake position it is carried out after (partition-rpc.ts). */
type Entry = readonly [partition: number, request: HostRequest, after: number];

/** Above this many bytes, a node's request is sent as one request per partition instead (NATS refuses messages over its max_payload, 1 MiB by default). */
const MAX_REQUEST_BYTES = 256 * 1024;

// Only a batch's first try takes this route, to the leaseholder of the sender's last round: a node that does
// not serve a partition refuses its batch before applying anything (NotOwnerError), and the sender sends it
// again through the partition's own subject (partition-rpc.ts); so does a node gone (no responders). A
// request that timed out is not sent again (it may have been applied).

export function nodeSubject(node: string): string {
  return `hcd.node.${node}`;
}

/** Answers the requests sent to `node`: each partition's from `hostOf(partition)`, or NotOwnerError where that is null. */
export function serveNode(connection: NatsConnection, node: string, hostOf: (partition: number) => PartitionHost | null): Subscription {
  return connection.subscribe(nodeSubject(node), {
    callback: (error, message) => {
      if (error === null) void answerAll(hostOf, message);
    },
  });
}

async function answerAll(hostOf: (partition: number) => PartitionHost | null, message: Msg): Promise<void> {
  let entries: Entry[];
  try {
    entries = packr.unpack(message.data) as Entry[];
    if (!Array.isArray(entries)) throw new Error("not a list of partition requests");
  } catch (error) {
    respond(message, [{ ok: false, name: "TypeError", message: `not a node request: ${(error as Error).message}` }]);
    return;
  }
  respond(
    message,
    await Promise.all(
      entries.map(([partition, request, after]): Promise<Reply> => {
        const host = hostOf(partition);
        return host === null
          ? Promise.resolve({ ok: false, name: "NotOwnerError", message: `partition ${partition} is not served by this node` })
          : replyOf(host, () => ({ request, after: after ?? 0 }));
      }),
    ),
  );
}

function respond(message: Msg, replies: Reply[]): void {
  try {
    message.respond(packr.pack(replies));
  } catch {
    // the connection closed meanwhile: the asker times out
  }
}

/** Sends requests to owner nodes: those queued in one event-loop turn for one node go as one request. */
export class NodeForwarder {
  readonly #connection: NatsConnection;
  readonly #timeoutMs: number;
  #queued = new Map<string, { entries: Entry[]; answers: { resolve: (reply: Reply) => void; reject: (error: unknown) => void }[] }>();
  #scheduled = false;

  constructor(connection: NatsConnection, timeoutMs = 10_000) {
    this.#connection = connection;
    this.#timeoutMs = timeoutMs;
  }

  /** Resolves with the partition's answer from `node`; rejects as the request did (no responders, a timeout). */
  send(node: string, partition: number, request: HostRequest, after = 0): Promise<Reply> {
    return new Promise((resolve, reject) => {
      let queue = this.#queued.get(node);
      if (queue === undefined) this.#queued.set(node, (queue = { entries: [], answers: [] }));
      queue.entries.push([partition, request, after]);
      queue.answers.push({ resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const queued = this.#queued;
    this.#queued = new Map();
    for (const [node, { entries, answers }] of queued) {
      const whole = packr.pack(entries);
      if (whole.length <= MAX_REQUEST_BYTES || entries.length === 1) this.#request(node, whole, answers);
      else entries.forEach((entry, i) => this.#request(node, packr.pack([entry]), [answers[i]]));
    }
  }

  #request(node: string, bytes: Uint8Array, answers: { resolve: (reply: Reply) => void; reject: (error: unknown) => void }[]): void {
    replyInboxOf(this.#connection)
      .request(nodeSubject(node), bytes, { timeoutMs: this.#timeoutMs })
      .then((message) => {
        const replies = packr.unpack(message.data) as Reply[];
        if (!Array.isArray(replies) || replies.length !== answers.length)
          throw new Error(`${node} answered ${Array.isArray(replies) ? replies.length : "no"} replies to ${answers.length} requests`);
        answers.forEach((answer, i) => answer.resolve(replies[i]));
      })
      .catch((error: unknown) => answers.forEach((answer) => answer.reject(error)));
  }
}
