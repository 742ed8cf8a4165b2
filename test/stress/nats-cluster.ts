// Real nats-server processes for the cluster tests and bench: three servers as one JetStream cluster (or
// one alone) on free loopback ports, each with its own temporary store directory. start() returns once
// every server's JetStream reports a meta leader; any one server can be stopped (SIGTERM or SIGKILL) and
// started again on the same ports and store, as a machine's loss and return.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { connect as netConnect, createServer } from "node:net";
import { connect } from "@nats-io/transport-node";
import type { NatsConnection } from "@nats-io/nats-core";
import { tempDir } from "../helpers.ts";

export type NatsServer = {
  readonly name: string;
  readonly clientPort: number;
  readonly url: string;
  /** The server's monitoring endpoint (/varz, /jsz, ...). */
  readonly monitorUrl: string;
  running(): boolean;
  /** The running process's pid, or null while stopped. */
  pid(): number | null;
  output(): string;
};

export type NatsCluster = {
  readonly servers: readonly NatsServer[];
  /** Every client URL, comma-separated, as NATS_URL takes them. */
  readonly urls: string[];
  stop(index: number, signal?: "SIGTERM" | "SIGKILL"): Promise<void>;
  /** Starts a stopped server again on its ports and store; resolves once its JetStream sees a meta leader. */
  restart(index: number): Promise<void>;
  /** Resolves once every running server reports a JetStream meta leader. */
  ready(timeoutMs?: number): Promise<void>;
  /** Stops every server (SIGKILL) and removes the store directories. */
  close(): Promise<void>;
};

type Slot = {
  name: string;
  clientPort: number;
  routePort: number;
  monitorPort: number;
  storeDir: string;
  child: ChildProcess | null;
  exited: Promise<void> | null;
  log: string[];
};

/** How long a start waits for a meta leader: generous, as elections are slow on a busy machine. */
const READY_TIMEOUT_MS = 120_000;

/** The servers this process started and has not seen exit: killed when it exits, so a test that failed leaves none behind. */
const launched = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of launched) child.kill("SIGKILL");
});

/**
 * Starts `size` servers (1 or 3) and resolves when JetStream is ready on each.
 * `noAdvertise`: the servers do not tell clients of each other, so a client reaches only the URLs it was
 * given (a test that cuts a client off through a relay must not see it reconnect around the relay).
 * `goMaxProcs`: the cores each server's Go runtime runs on (GOMAXPROCS; by default all the machine's).
 */
export async function startNatsCluster(options: { size?: 1 | 3; noAdvertise?: boolean; goMaxProcs?: number } = {}): Promise<NatsCluster> {
  // a port found free can still be taken before the server binds it (by another test's processes): then
  // the whole cluster starts again on other ports
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options.size ?? 3, options.noAdvertise ?? false, options.goMaxProcs);
    } catch (error) {
      if (attempt === 3 || !(error instanceof PortTakenError)) throw error;
    }
  }
}

class PortTakenError extends Error {}

/** Ports handed out in this process, so that no two slots get the same one. */
const handedOut = new Set<number>();

/** Whether a loopback port takes a TCP connection now. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = netConnect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * A loopback port that nothing listens on, below Linux's ephemeral range (32768-60999), so that no
 * outgoing connection (the servers' own routes to each other among them) is given it before its server
 * binds it.
 */
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (handedOut.has(port)) continue;
    const server = createServer();
    const free = await new Promise<boolean>((resolve) => {
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => resolve(true));
    });
    if (!free) continue;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    handedOut.add(port);
    return port;
  }
}

async function startOnce(size: 1 | 3, noAdvertise: boolean, goMaxProcs: number | undefined): Promise<NatsCluster> {
  const dir = tempDir("hcd-nats-");
  const slots: Slot[] = [];
  for (let i = 0; i < size; i++) {
    slots.push({
      name: `n${i + 1}`,
      clientPort: await freePort(),
      routePort: await freePort(),
      monitorPort: await freePort(),
      storeDir: `${dir.path}/n${i + 1}`,
      child: null,
      exited: null,
      log: [],
    });
  }
  const routes = slots.map((s) => `nats://127.0.0.1:${s.routePort}`).join(",");

  const launch = (slot: Slot) => {
    const args = [
      "-a",
      "127.0.0.1",
      "-p",
      String(slot.clientPort),
      "-m",
      String(slot.monitorPort),
      "-n",
      slot.name,
      "-js",
      "-sd",
      slot.storeDir,
    ];
    if (size > 1) args.push("--cluster_name", "hcd", "--cluster", `nats://127.0.0.1:${slot.routePort}`, "--routes", routes);
    if (noAdvertise) args.push("--no_advertise=true");
    const env = goMaxProcs === undefined ? process.env : { ...process.env, GOMAXPROCS: String(goMaxProcs) };
    const child = spawn("nats-server", args, { stdio: ["ignore", "pipe", "pipe"], env });
    launched.add(child);
    child.once("exit", () => launched.delete(child));
    const keep = (chunk: Buffer) => {
      slot.log.push(chunk.toString());
      if (slot.log.length > 400) slot.log.splice(0, 200);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    // a spawn that fails (no nats-server on PATH) ends like an exit, with the reason in the log
    child.once("error", (error) => keep(Buffer.from(`spawn failed: ${error.message}\n`)));
    slot.child = child;
    slot.exited = new Promise((resolve) => {
      child.once("exit", () => resolve());
      child.once("error", () => resolve());
    });
  };

  /**
   * A server is ready when its /jsz names a meta leader (one alone leads itself) and its client port takes
   * connections (the server answers on its monitor port before it listens for clients). The monitor port
   * must be this slot's server's (its /varz names the slot's client port): another test's server that took
   * the port first answers too, while this slot's own server is failing to bind it.
   */
  const metaLeader = async (slot: Slot): Promise<string | null> => {
    try {
      const varz = (await (await fetch(`http://127.0.0.1:${slot.monitorPort}/varz`, { signal: AbortSignal.timeout(1_000) })).json()) as {
        port?: number;
      };
      if (varz.port !== slot.clientPort) return null;
      const response = await fetch(`http://127.0.0.1:${slot.monitorPort}/jsz`, { signal: AbortSignal.timeout(1_000) });
      const jsz = (await response.json()) as { meta_cluster?: { leader?: string }; config?: unknown };
      const leader = size === 1 ? (jsz.config ? slot.name : null) : jsz.meta_cluster?.leader || null;
      return leader !== null && (await accepts(slot.clientPort)) ? leader : null;
    } catch {
      return null;
    }
  };
  const waitReady = async (targets: Slot[], timeoutMs: number) => {
    const until = Date.now() + timeoutMs;
    for (const slot of targets) {
      while ((await metaLeader(slot)) === null) {
        if (!running(slot)) {
          const output = slot.log.join("");
          throw new (/address already in use/.test(output) ? PortTakenError : Error)(`nats-server ${slot.name} exited:\n${output}`);
        }
        if (Date.now() > until)
          throw new Error(`nats-server ${slot.name}: no JetStream meta leader after ${timeoutMs} ms:\n${slot.log.join("")}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  const running = (slot: Slot) =>
    slot.child !== null && slot.child.pid !== undefined && slot.child.exitCode === null && slot.child.signalCode === null;

  const stop = async (index: number, signal: "SIGTERM" | "SIGKILL" = "SIGTERM") => {
    const slot = slots[index];
    if (!running(slot)) return;
    slot.child!.kill(signal);
    const timer = setTimeout(() => slot.child!.kill("SIGKILL"), 15_000);
    await slot.exited;
    clearTimeout(timer);
    slot.child = null;
  };

  for (const slot of slots) launch(slot);
  const cluster: NatsCluster = {
    servers: slots.map((slot) => ({
      name: slot.name,
      clientPort: slot.clientPort,
      url: `nats://127.0.0.1:${slot.clientPort}`,
      monitorUrl: `http://127.0.0.1:${slot.monitorPort}`,
      running: () => running(slot),
      pid: () => (running(slot) ? (slot.child!.pid ?? null) : null),
      output: () => slot.log.join(""),
    })),
    urls: slots.map((s) => `nats://127.0.0.1:${s.clientPort}`),
    stop,
    restart: async (index) => {
      const slot = slots[index];
      if (running(slot)) throw new Error(`nats-server ${slot.name} is running`);
      launch(slot);
      await waitReady([slot], READY_TIMEOUT_MS);
    },
    ready: (timeoutMs = READY_TIMEOUT_MS) => waitReady(slots.filter(running), timeoutMs),
    close: async () => {
      await Promise.all(slots.map((_, i) => stop(i, "SIGKILL")));
      dir.remove();
    },
  };
  try {
    await waitReady(slots, READY_TIMEOUT_MS); // every one of them, including any that failed to start
  } catch (error) {
    await cluster.close();
    throw error;
  }
  return cluster;
}

/**
 * Runs `run` on a started three-server cluster with a way to connect to it as a node would: each
 * connection talks to server `first` first (as nodes on different machines talk to their own server) and
 * reconnects for ever. Every connection and the cluster are closed afterwards.
 */
export async function withNatsCluster(
  run: (cluster: NatsCluster, connection: (first: number) => Promise<NatsConnection>) => Promise<void>,
): Promise<void> {
  const cluster = await startNatsCluster({ size: 3 });
  const connections: NatsConnection[] = [];
  let closed = false;
  try {
    await run(cluster, async (first) => {
      const servers = [...cluster.urls.slice(first), ...cluster.urls.slice(0, first)];
      const nc = await connect({ servers, noRandomize: true, maxReconnectAttempts: -1, reconnectTimeWait: 250, pingInterval: 2_000 });
      // an attempt given up on may connect after the end: such a connection would reconnect forever
      if (closed) await nc.close();
      connections.push(nc);
      return nc;
    });
  } finally {
    closed = true;
    await Promise.all(connections.map((nc) => nc.close().catch(() => {})));
    await cluster.close();
  }
}

/**
 * Retries `attempt` until it resolves (a positive marker: the cluster answers again, a leader was
 * elected), every `everyMs`, for at most `timeoutMs`; then throws the last error.
 */
export async function retryUntil<T>(attempt: () => Promise<T>, options: { timeoutMs: number; everyMs: number }): Promise<T> {
  const until = Date.now() + options.timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, options.everyMs));
    }
  }
}
