// The servers the benches drive: hcd as `node dist/app/main.js` (a real process with its shard workers),
// the bare node:http baseline (bench/bare-server.ts), the durable one (bench/durable-bare-server.ts), the
// replicated one (bench/replicated-bare-server.ts), and the admin/API calls that fill hcd with checks.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";

export const ADMIN_TOKEN = "hcd-bench-admin-token";
const HCD_MAIN = fileURLToPath(new URL("../app/main.js", import.meta.url));
const BARE_SERVER = fileURLToPath(new URL("./bare-server.js", import.meta.url));
const DURABLE_BARE_SERVER = fileURLToPath(new URL("./durable-bare-server.js", import.meta.url));
const REPLICATED_BARE_SERVER = fileURLToPath(new URL("./replicated-bare-server.js", import.meta.url));

/** A running server process: its base URL, pid, and how to stop it. */
export type ServerProcess = {
  readonly url: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Milliseconds from spawn to the "listening on" line. */
  readonly listeningMs: number;
  /** Sends SIGTERM and resolves with the exit code once the process is gone (SIGKILL after 60 s). */
  stop(): Promise<number | null>;
  /** Returns everything the process printed so far. */
  output(): string;
};

/**
 * Starts hcd on a free port with the bench's settings (DURABILITY=flush, CLOCK=real, default SHARDS,
 * API_RATE_LIMIT=0 so that setting up thousands of checks is not throttled); `env` overrides them.
 */
export function startHcd(options: { dataDir: string; env?: Record<string, string>; nodeArgs?: string[] }): Promise<ServerProcess> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: options.dataDir,
    ADMIN_TOKEN,
    DURABILITY: "flush",
    CLOCK: "real",
    API_RATE_LIMIT: "0",
    SMTP_PORT: undefined,
    SHARDS: undefined,
    ...options.env,
  };
  return startProcess([...(options.nodeArgs ?? []), HCD_MAIN], env, /hcd: listening on (\S+)/);
}

/** Starts the bare node:http server (answers "OK" to every request) in its own process, on `port` (default: a free one). */
export function startBare(port = 0): Promise<ServerProcess> {
  return startProcess([BARE_SERVER], { ...process.env, PORT: String(port) }, /bare: listening on (\S+)/);
}

/**
 * Starts the durable bare server (answers "OK" once the request's record is on disk, one synced write
 * per event-loop turn) in its own process, writing its file in `dataDir`.
 */
export function startDurableBare(dataDir: string): Promise<ServerProcess> {
  return startProcess([DURABLE_BARE_SERVER], { ...process.env, PORT: "0", DATA_DIR: dataDir }, /durable bare: listening on (\S+)/);
}

/**
 * Starts the replicated bare server (answers "OK" once the request's record is stored on a quorum of the
 * NATS servers at `natsUrl`, one message per event-loop turn into its own R3 stream `BARE_<id>`); with
 * `sharedRead`, into one stream all of them share, each reading all of it back.
 */
export function startReplicatedBare(natsUrl: string, id: string, sharedRead = false): Promise<ServerProcess> {
  return startProcess(
    [REPLICATED_BARE_SERVER],
    { ...process.env, PORT: "0", NATS_URL: natsUrl, BARE_ID: id, BARE_SHARED_READ: sharedRead ? "1" : "0" },
    /replicated bare: listening on (\S+)/,
  );
}

/** Returns a TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

function startProcess(args: string[], env: Record<string, string | undefined>, ready: RegExp): Promise<ServerProcess> {
  const startedNs = process.hrtime.bigint();
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      exitCode = code;
      resolve(code);
    }),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`no "listening" line within 300 s:\n${output}`));
    }, 300_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match === null || exitCode !== undefined) return;
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.stdout?.on("data", (more: Buffer) => {
        output += more.toString();
      });
      resolve({
        url: match[1],
        pid: child.pid ?? 0,
        child,
        listeningMs: Number(process.hrtime.bigint() - startedNs) / 1e6,
        output: () => output,
        stop: async () => {
          if (exitCode !== undefined) return exitCode;
          child.kill("SIGTERM");
          const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
          const code = await exited;
          clearTimeout(killer);
          return code;
        },
      });
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with code ${code} before listening:\n${output}`));
    });
  });
}

/** The keys of a project created through the admin API. */
export type ProjectKeys = { readonly id: string; readonly apiKey: string; readonly pingKey: string };

/** Calls hcd's HTTP API and returns status and parsed JSON; throws on a status other than `expect`. */
export async function callJson(
  base: string,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; expect?: number[] } = {},
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(base + path, {
    method,
    headers: { "content-type": "application/json", ...options.headers },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  if (!(options.expect ?? [200, 201]).includes(response.status)) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return { status: response.status, json: text === "" ? null : JSON.parse(text) };
}

/** Creates a project through the admin API. */
export async function createProject(base: string, name: string, checkLimit: number): Promise<ProjectKeys> {
  const { json } = await callJson(base, "POST", "/admin/v1/projects", {
    body: { name, check_limit: checkLimit },
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  const project = json as { id: string; api_key: string; ping_key: string };
  return { id: project.id, apiKey: project.api_key, pingKey: project.ping_key };
}

/** Creates a check through /api/v3 and returns its uuid. */
export async function createCheck(base: string, apiKey: string, spec: Record<string, unknown>): Promise<string> {
  const { json } = await callJson(base, "POST", "/api/v3/checks", { body: spec, headers: { "x-api-key": apiKey } });
  return (json as { uuid: string }).uuid;
}

/** Runs `work` for every item with at most `concurrency` running at once; returns the results in order. */
export async function mapConcurrently<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index], index);
      }
    }),
  );
  return results;
}

/** Returns a copy in a fixed pseudo-random order: neighbouring requests hit different checks and projects. */
export function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  let seed = 12345;
  for (let i = copy.length - 1; i > 0; i--) {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    const j = seed % (i + 1);
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy;
}

/**
 * The cores each nats-server's Go runtime runs on in the cluster benches (GOMAXPROCS), from
 * HCD_BENCH_NATS_PROCS: they run three machines' servers on this machine's cores, so each gets one (the
 * default), as a NATS server that shares its machine with an hcd node is set to its share of the cores;
 * "all" leaves Go's default (every core, each of three runtimes contending for all of them).
 */
export function benchNatsProcs(): number | undefined {
  const setting = process.env.HCD_BENCH_NATS_PROCS ?? "1";
  if (setting === "all") return undefined;
  const procs = Number(setting);
  if (!Number.isInteger(procs) || procs < 1)
    throw new Error(`HCD_BENCH_NATS_PROCS: "${setting}" is neither a number of cores (1 or more) nor "all"`);
  return procs;
}
