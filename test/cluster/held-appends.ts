// What the cluster tests of a partition's log share: one real nats-server with JetStream (skipped with one
// line when it is not installed, a failure under HCD_REQUIRE_EXTRAS=1), and a connection whose log
// appends are stored at once but answered late, when the test says so, as a slow quorum answers them.
import { createInbox } from "@nats-io/nats-core";
import type { NatsConnection, RequestOptions } from "@nats-io/nats-core";
import { connect } from "@nats-io/transport-node";
import type { PingCommand, ShardCommand } from "../../engine/commands.ts";
import { haveProgram } from "../ops/extras.ts";
import { startNatsCluster } from "../stress/nats-cluster.ts";

export const T0 = 1_800_000_000_000;
export const SECOND = 1_000;

export const pingOf = (uuid: string, at: number, rid: string | null = null): ShardCommand & { kind: "ping" } => ({
  kind: "ping",
  ping: pingCommand(uuid, at, rid),
});
export const pingCommand = (uuid: string, at: number, rid: string | null = null): PingCommand => ({
  target: { uuid },
  signal: "success",
  exitStatus: null,
  method: "GET",
  scheme: "http",
  remoteAddr: "127.0.0.1",
  ua: "test",
  rid,
  body: null,
  at,
});

/** Runs `run` against one fresh nats-server (JetStream); false when nats-server is not installed. */
export async function withNatsServer(
  purpose: string,
  run: (connect: (servers?: string[]) => Promise<NatsConnection>, urls: string[]) => Promise<void>,
): Promise<boolean> {
  if (!haveProgram("nats-server", purpose)) return false;
  const cluster = await startNatsCluster({ size: 1 });
  const connections: NatsConnection[] = [];
  try {
    await run(async (servers = cluster.urls) => {
      const nc = await connect({ servers, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
      connections.push(nc);
      return nc;
    }, cluster.urls);
  } catch (error) {
    // a server that died under the test (nats-server 2.9.10 has crashed alone: docs/cluster.md, NATS server notes) says why
    const gone = cluster.servers.filter((server) => !server.running());
    if (gone.length > 0 && error instanceof Error)
      error.message += `\n(nats-server ${gone.map((s) => s.name).join(", ")} exited:)\n${gone.map((s) => s.output().slice(-4_000)).join("\n")}`;
    throw error;
  } finally {
    await Promise.all(connections.map((nc) => nc.close().catch(() => {})));
    await cluster.close();
  }
  return true;
}

export type HeldAppends = {
  /** The connection to give the replica: its log records' PubAcks wait while held. */
  readonly connection: NatsConnection;
  /** From now on, log records' PubAcks wait (the records themselves are stored at once). */
  hold(): void;
  /** Resolves once a log record's PubAck is held: the record is in the log, its writer not yet told. */
  firstHeld(): Promise<void>;
  /** Lets every held PubAck through, and holds no more. */
  release(): void;
};

/**
 * Wraps `nc` so that, while held, the PubAcks of records published to a subject starting with
 * `subjectPrefix` (log records, not fence markers: those carry the Hcd-Fence header) come only at release().
 */
export function heldAppends(nc: NatsConnection, subjectPrefix = "hcd.log."): HeldAppends {
  let holding = false;
  let gate: Promise<void> = Promise.resolve(),
    open = () => {};
  let markHeld = () => {};
  let held = new Promise<void>((resolve) => {
    markHeld = resolve;
  });
  const connection = answeredLate(nc, async (subject, options) => {
    if (holding && subject.startsWith(subjectPrefix) && !options?.headers?.has("Hcd-Fence")) {
      markHeld();
      await gate;
    }
  });
  return {
    connection,
    hold() {
      holding = true;
      gate = new Promise((resolve) => {
        open = resolve;
      });
      held = new Promise((resolve) => {
        markHeld = resolve;
      });
    },
    firstHeld: () => held,
    release() {
      holding = false;
      open();
    },
  };
}

/**
 * `nc`, but each request's answer (a JetStream publish's PubAck among them) is handed over only after
 * `after(subject, options)` resolves, or replaced by what it throws: a request() rejects with it, and the
 * answer to a message published with a reply subject (cluster/reply-inbox.ts) is dropped, so its request
 * times out. The message itself is delivered at once.
 */
export function answeredLate(
  nc: NatsConnection,
  after: (subject: string, options: Partial<RequestOptions> | undefined) => Promise<void>,
): NatsConnection {
  return new Proxy(nc, {
    get(target, property) {
      if (property === "request") {
        return async (...args: Parameters<NatsConnection["request"]>) => {
          const answer = await target.request(...args);
          await after(args[0], args[2]);
          return answer;
        };
      }
      if (property === "publish") {
        return (...[subject, data, options]: Parameters<NatsConnection["publish"]>) => {
          const reply = options?.reply;
          if (reply === undefined) return target.publish(subject, data, options);
          // the answer comes to a relay of ours first, and goes on to `reply` once `after` allows it
          const relay = createInbox();
          target.subscribe(relay, {
            max: 1,
            callback: (error, answer) => {
              if (error !== null) return;
              after(subject, options).then(
                () => target.publish(reply, answer.data, { headers: answer.headers }),
                () => {},
              );
            },
          });
          target.publish(subject, data, { ...options, reply: relay });
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Every rejection nobody handled while the test ran (Node would end the process on the first). */
export function unhandledRejections(): { readonly seen: unknown[]; first(): Promise<unknown>; stop(): void } {
  const seen: unknown[] = [];
  let markFirst: (error: unknown) => void = () => {};
  const first = new Promise<unknown>((resolve) => {
    markFirst = resolve;
  });
  const listener = (error: unknown) => {
    seen.push(error);
    markFirst(error);
  };
  process.on("unhandledRejection", listener);
  return { seen, first: () => first, stop: () => process.off("unhandledRejection", listener) };
}
