// An open-loop, fixed-rate HTTP load generator (wrk2 is not packaged here; autocannon's overallRate sends
// each second's budget in a burst at the start of the second, which is not a fixed rate).
// Requests are due at start + k/rate; each goes out on an idle keep-alive connection as soon as it is due,
// and its latency counts from when it was due, so a stalled server is not hidden (no coordinated omission).
// Run as a process: node dist/bench/rate-load.js '<json options>' → prints one JSON line (RateLoadResult).
import { connect } from "node:net";
import type { Socket } from "node:net";
import { readFileSync } from "node:fs";
import { percentile } from "./measure.ts";

/** What to send: GET each path of `pathsFile` (one a line) in turn, `rate` per second, for `seconds` after a warm-up. */
export type RateLoadOptions = {
  readonly host: string;
  readonly port: number;
  readonly pathsFile: string;
  readonly rate: number;
  readonly seconds: number;
  readonly warmupSeconds: number;
  readonly connections: number;
  /** POST this (text/plain) to every path instead of a GET. */
  readonly body?: string;
};

/** What was measured after the warm-up; latencies in ms, CPU in seconds of this generator process. */
export type RateLoadResult = {
  readonly sent: number;
  readonly completed: number;
  readonly non200: number;
  readonly errors: number;
  readonly seconds: number;
  readonly achievedRate: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
  readonly maxBacklog: number;
  readonly cpuSeconds: number;
};

type Connection = { socket: Socket; dueNs: number; busy: boolean; buffer: Buffer };

async function run(options: RateLoadOptions): Promise<RateLoadResult> {
  const paths = readFileSync(options.pathsFile, "utf8")
    .split("\n")
    .filter((p) => p !== "");
  const head = (p: string) =>
    `${options.body === undefined ? "GET" : "POST"} ${p} HTTP/1.1\r\nHost: ${options.host}:${options.port}\r\nUser-Agent: hcd-bench\r\n`;
  const requests = paths.map((p) =>
    Buffer.from(
      options.body === undefined
        ? `${head(p)}\r\n`
        : `${head(p)}Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(options.body)}\r\n\r\n${options.body}`,
    ),
  );
  const connections: Connection[] = await Promise.all(Array.from({ length: options.connections }, () => open(options)));
  const idle: Connection[] = [...connections];
  const backlog: number[] = []; // due instants (ns since start) of requests not yet sent
  let backlogHead = 0;
  const latenciesMs: number[] = [];
  let next = 0,
    scheduled = 0,
    completed = 0,
    non200 = 0,
    errors = 0,
    maxBacklog = 0;
  const intervalNs = 1e9 / options.rate;
  const warmupNs = options.warmupSeconds * 1e9;
  const endNs = warmupNs + options.seconds * 1e9;
  const origin = process.hrtime.bigint();
  const now = () => Number(process.hrtime.bigint() - origin);
  let cpuAtWarmup: NodeJS.CpuUsage | null = null;

  const dispatch = () => {
    while (idle.length > 0 && backlogHead < backlog.length) {
      // the longest idle first: every connection keeps being used, as many clients would use them; a
      // connection left unused since it opened would meet the server's header timeout (it answers 408 and closes)
      const connection = idle.shift() as Connection;
      connection.busy = true;
      connection.dueNs = backlog[backlogHead++];
      connection.socket.write(requests[next++ % requests.length]);
    }
    if (backlogHead > 10_000) {
      backlog.splice(0, backlogHead);
      backlogHead = 0;
    }
  };

  for (const connection of connections) {
    connection.socket.on("data", (chunk: Buffer) => {
      connection.buffer = connection.buffer.length === 0 ? chunk : Buffer.concat([connection.buffer, chunk]);
      const end = responseEnd(connection.buffer);
      if (end < 0) return;
      const status = Number(connection.buffer.toString("latin1", 9, 12));
      connection.buffer = connection.buffer.subarray(end);
      const doneNs = now();
      if (connection.dueNs >= warmupNs && connection.dueNs < endNs) {
        completed++;
        if (status !== 200) non200++;
        latenciesMs.push((doneNs - connection.dueNs) / 1e6);
      }
      connection.busy = false;
      idle.push(connection);
      dispatch();
    });
    connection.socket.on("error", () => {
      errors++;
    });
  }

  await new Promise<void>((resolve) => {
    const tick = () => {
      const t = now();
      if (cpuAtWarmup === null && t >= warmupNs) cpuAtWarmup = process.cpuUsage();
      const dueUntil = Math.min(t, endNs);
      while (scheduled * intervalNs <= dueUntil) backlog.push(scheduled++ * intervalNs);
      maxBacklog = Math.max(maxBacklog, backlog.length - backlogHead);
      dispatch();
      if (t < endNs) setTimeout(tick, 1);
      else resolve();
    };
    tick();
  });
  const cpu = process.cpuUsage(cpuAtWarmup ?? undefined);
  // let the requests still in flight finish (at most 5 s), so that a slow tail is counted, not dropped
  const drainUntil = now() + 5e9;
  while ((connections.some((c) => c.busy) || backlogHead < backlog.length) && now() < drainUntil)
    await new Promise((r) => setTimeout(r, 5));
  for (const connection of connections) connection.socket.destroy();
  const sorted = Float64Array.from(latenciesMs).sort();
  const measuredSent = Math.max(0, scheduled - Math.ceil(warmupNs / intervalNs));
  return {
    sent: measuredSent,
    completed,
    non200,
    errors,
    seconds: options.seconds,
    achievedRate: completed / options.seconds,
    p50Ms: percentile(sorted, 50),
    p90Ms: percentile(sorted, 90),
    p99Ms: percentile(sorted, 99),
    p999Ms: percentile(sorted, 99.9),
    maxMs: sorted.length > 0 ? sorted[sorted.length - 1] : Number.NaN,
    maxBacklog,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}

function open(options: RateLoadOptions): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = connect(options.port, options.host, () => resolve({ socket, dueNs: 0, busy: false, buffer: Buffer.alloc(0) }));
    socket.setNoDelay(true);
    socket.once("error", reject);
  });
}

/** Returns the byte length of the first complete response in `buffer` (Content-Length bodies), or -1. */
function responseEnd(buffer: Buffer): number {
  const headEnd = buffer.indexOf("\r\n\r\n");
  if (headEnd < 0) return -1;
  const head = buffer.toString("latin1", 0, headEnd);
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length === null) throw new Error(`rate-load: a response without Content-Length:\n${head}`);
  const end = headEnd + 4 + Number(length[1]);
  return buffer.length >= end ? end : -1;
}

if (process.argv[1]?.endsWith("rate-load.js")) {
  const result = await run(JSON.parse(process.argv[2] ?? "{}") as RateLoadOptions);
  console.log(JSON.stringify(result));
  process.exit(0);
}
