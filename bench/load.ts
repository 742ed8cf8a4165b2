// Load generators: closed-loop peak runs with wrk (a Lua script cycling through many ping paths) or,
// where wrk is missing, autocannon's programmatic API; fixed-rate runs with bench/rate-load.ts.
// Every run reports the generator's own CPU use: it shares the machine's cores with the server.
import { spawn, spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { RateLoadOptions, RateLoadResult } from "./rate-load.ts";

/** A closed-loop run: requests/s, latency percentiles (ms), failures, and the generator's CPU seconds. */
export type PeakResult = {
  readonly generator: "wrk" | "autocannon";
  readonly requests: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly failures: number;
  readonly cpuSeconds: number;
};

/** `body`: POST it (text/plain) to every path instead of a GET. */
export type PeakOptions = {
  readonly url: string;
  readonly pathsFile: string;
  readonly paths: readonly string[];
  readonly connections: number;
  readonly seconds: number;
  readonly body?: string;
};

const RATE_LOAD = fileURLToPath(new URL("./rate-load.js", import.meta.url));

/** Returns which closed-loop generator runs here: wrk when installed (unless HCD_BENCH_LOADER=autocannon). */
export function peakGenerator(): "wrk" | "autocannon" {
  if (process.env.HCD_BENCH_LOADER === "autocannon") return "autocannon";
  return spawnSync("wrk", ["--version"]).error === undefined ? "wrk" : "autocannon";
}

/** Writes the paths to a temp file (one a line) for wrk's script and rate-load; returns it and a remover. */
export function writePaths(paths: readonly string[]): { file: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "hcd-bench-paths-"));
  const file = join(dir, "paths.txt");
  writeFileSync(file, paths.join("\n") + "\n");
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs a closed-loop load (fixed connections, each sending its next request on the last answer). */
export function runPeak(options: PeakOptions): Promise<PeakResult> {
  return peakGenerator() === "wrk" ? runWrk(options) : runAutocannon(options);
}

// One Lua state per wrk thread; each starts at a different place in the list and cycles through it.
const WRK_SCRIPT = `
local paths = {}
for line in io.lines(os.getenv("HCD_BENCH_PATHS")) do paths[#paths + 1] = line end
local requests, n, i = {}, 0, 0
function init(args)
  local body = os.getenv("HCD_BENCH_BODY")
  local headers = body and { ["Content-Type"] = "text/plain" } or nil
  for _, p in ipairs(paths) do requests[#requests + 1] = wrk.format(body and "POST" or "GET", p, headers, body) end
  n = #requests
  i = math.random(n)
end
function request()
  i = i % n + 1
  return requests[i]
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK-RESULT {"requests":%d,"duration_us":%d,"failures":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
`;

async function runWrk(options: PeakOptions): Promise<PeakResult> {
  const dir = mkdtempSync(join(tmpdir(), "hcd-bench-wrk-"));
  const script = join(dir, "paths.lua");
  writeFileSync(script, WRK_SCRIPT);
  try {
    // bash's `times` prints the CPU time of its children (wrk) after it exits: exact, unlike sampling /proc
    const args = [
      "-c",
      'wrk "$@"; status=$?; times >&2; exit $status',
      "wrk",
      "-t1",
      `-c${options.connections}`,
      `-d${options.seconds}s`,
      "--timeout",
      "10s",
      "-s",
      script,
      options.url,
    ];
    const { stdout, stderr, code } = await runProcess("bash", args, {
      ...process.env,
      HCD_BENCH_PATHS: options.pathsFile,
      ...(options.body === undefined ? {} : { HCD_BENCH_BODY: options.body }),
    });
    const line = /WRK-RESULT (\{.*\})/.exec(stdout);
    if (code !== 0 || line === null) throw new Error(`wrk failed (${code}):\n${stdout}\n${stderr}`);
    const r = JSON.parse(line[1]) as {
      requests: number;
      duration_us: number;
      failures: number;
      p50_us: number;
      p99_us: number;
      max_us: number;
    };
    const times = stderr.trim().split("\n").pop() ?? "";
    const cpuSeconds = [...times.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0);
    const seconds = r.duration_us / 1e6;
    return {
      generator: "wrk",
      requests: r.requests,
      seconds,
      perSecond: r.requests / seconds,
      p50Ms: r.p50_us / 1000,
      p99Ms: r.p99_us / 1000,
      maxMs: r.max_us / 1000,
      failures: r.failures,
      cpuSeconds,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type AutocannonResult = {
  requests: { total: number };
  duration: number;
  latency: { p50: number; p99: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
};
type AutocannonRequest = {
  method: string;
  path?: string;
  body?: string;
  headers?: Record<string, string>;
  setupRequest?: (request: { path?: string }) => { path?: string };
};
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  requests: AutocannonRequest[];
}) => Promise<AutocannonResult>;

async function runAutocannon(options: PeakOptions): Promise<PeakResult> {
  const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;
  let next = Math.floor(Math.random() * options.paths.length);
  const before = process.cpuUsage(); // autocannon runs in this process, which does nothing else meanwhile
  const r = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    requests: [
      {
        ...(options.body === undefined
          ? { method: "GET" }
          : { method: "POST", body: options.body, headers: { "content-type": "text/plain" } }),
        setupRequest: (request) => ({ ...request, path: options.paths[next++ % options.paths.length] }),
      },
    ],
  });
  const cpu = process.cpuUsage(before);
  return {
    generator: "autocannon",
    requests: r.requests.total,
    seconds: r.duration,
    perSecond: r.requests.total / r.duration,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    maxMs: r.latency.max,
    failures: r.errors + r.timeouts + r.non2xx,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
}

/** Runs bench/rate-load.js against `url` at a fixed rate (open loop) and returns what it measured. */
export async function runFixedRate(options: Omit<RateLoadOptions, "host" | "port"> & { url: string }): Promise<RateLoadResult> {
  const { hostname, port } = new URL(options.url);
  const { url: _url, ...rest } = options;
  const { stdout, stderr, code } = await runProcess(
    process.execPath,
    [RATE_LOAD, JSON.stringify({ ...rest, host: hostname, port: Number(port) })],
    process.env,
  );
  if (code !== 0) throw new Error(`rate-load failed (${code}):\n${stdout}\n${stderr}`);
  return JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as RateLoadResult;
}

function runProcess(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "",
      stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once("error", reject);
    child.once("exit", (code) => resolve({ stdout, stderr, code }));
  });
}
