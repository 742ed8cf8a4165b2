// Management calls under ping load, against the real server: a steady stream of pings (open loop, its
// own process) plus management calls at steady rates: list the 1,000 checks of one project, create a
// check, update one, list a check's flips, and pings that flip a check (fail, then success). p50/p99 per
// endpoint, next to the same calls on the idle server (same run, before the ping load starts).
// Run: node dist/bench/mixed.bench.js   (env: HCD_BENCH_MIXED_SECONDS=20, HCD_BENCH_MIXED_RATE=2000 pings/s)
import { Agent, request } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runFixedRate, writePaths } from "./load.ts";
import { percentile, Progress, sleep } from "./measure.ts";
import { finishScenario, fmt } from "./report.ts";
import type { Figure, ScenarioResult } from "./report.ts";
import { callJson, createCheck, createProject, mapConcurrently, shuffled, startHcd } from "./servers.ts";
import type { ServerProcess } from "./servers.ts";

const SCENARIO = "mixed";
const LIST = "list 1,000 checks";

/** One kind of management call: its name, calls per second, and the k-th request. */
type Stream = { readonly name: string; readonly perSecond: number; readonly expect: number; readonly make: (k: number) => Call };
type Call = { readonly method: string; readonly path: string; readonly apiKey?: string; readonly body?: unknown };
type Latencies = Map<string, { ms: number[]; failures: number }>;

export type MixedBenchOptions = { readonly seconds?: number; readonly pingRate?: number; readonly callsPerSecond?: number };

/** Runs the mixed bench and returns its figures and detail lines. */
export async function runMixedBench(options: MixedBenchOptions = {}): Promise<ScenarioResult> {
  const seconds = options.seconds ?? Number(process.env.HCD_BENCH_MIXED_SECONDS ?? 20);
  const pingRate = options.pingRate ?? Number(process.env.HCD_BENCH_MIXED_RATE ?? 2000);
  const perSecond = options.callsPerSecond ?? 5;
  const idleSeconds = Math.max(3, Math.round(seconds / 4));
  const progress = new Progress(SCENARIO);
  const dataDir = mkdtempSync(join(tmpdir(), "hcd-bench-mixed-"));
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  let hcd: ServerProcess | null = null;
  let paths: { file: string; remove: () => void } | null = null;
  try {
    const server = await startHcd({ dataDir });
    hcd = server;
    const big = await createProject(server.url, "big", 2_000);
    const churn = await createProject(server.url, "churn", 1_000_000);
    const flappy = await createProject(server.url, "flappy", 100);
    let made = 0;
    const bigUuids = await mapConcurrently(
      Array.from({ length: 1000 }, (_, i) => i),
      32,
      async (i) => {
        progress.update(++made, 1020, "checks created");
        return createCheck(server.url, big.apiKey, {
          name: `job ${i}`,
          tags: i % 2 === 0 ? "prod nightly" : "staging",
          timeout: 86_400,
          grace: 3_600,
        });
      },
    );
    const flapUuids = await mapConcurrently(
      Array.from({ length: 20 }, (_, i) => i),
      8,
      (i) => createCheck(server.url, flappy.apiKey, { name: `flappy ${i}` }),
    );
    const listed = await callJson(server.url, "GET", "/api/v3/checks", { headers: { "x-api-key": big.apiKey } });
    const count = (listed.json as { checks: unknown[] }).checks.length;
    if (count !== 1000) throw new Error(`mixed bench: the big project lists ${count} checks, not 1,000`);

    const streams: Stream[] = [
      { name: LIST, perSecond, expect: 200, make: () => ({ method: "GET", path: "/api/v3/checks", apiKey: big.apiKey }) },
      {
        name: "create check",
        perSecond,
        expect: 201,
        make: (k) => ({ method: "POST", path: "/api/v3/checks", apiKey: churn.apiKey, body: { name: `new ${k}`, timeout: 3_600 } }),
      },
      {
        name: "update check",
        perSecond,
        expect: 200,
        make: (k) => ({
          method: "POST",
          path: `/api/v3/checks/${bigUuids[k % bigUuids.length]}`,
          apiKey: big.apiKey,
          body: { name: `job ${k} (updated)`, timeout: 3_600 + (k % 100) },
        }),
      },
      {
        name: "list flips",
        perSecond,
        expect: 200,
        make: (k) => ({ method: "GET", path: `/api/v3/checks/${flapUuids[k % flapUuids.length]}/flips`, apiKey: flappy.apiKey }),
      },
      // consecutive pings to one flappy check alternate fail / success, so every one of them writes a flip
      {
        name: "ping that flips a check",
        perSecond,
        expect: 200,
        make: (k) => ({
          method: "GET",
          path: `/ping/${flapUuids[k % flapUuids.length]}${Math.floor(k / flapUuids.length) % 2 === 0 ? "/fail" : ""}`,
        }),
      },
    ];
    let k0 = 0;
    progress.update(1, 2, `idle server: management calls alone for ${idleSeconds} s`, true);
    const idle = await runStreams(server.url, agent, streams, idleSeconds, k0);
    k0 += Math.ceil(idleSeconds * perSecond) + 1;

    const pathsFile = writePaths(shuffled(bigUuids).map((uuid) => `/ping/${uuid}`));
    paths = pathsFile;
    progress.update(2, 2, `${pingRate} pings/s + management calls for ${seconds} s`, true);
    const pingLoad = runFixedRate({
      url: server.url,
      pathsFile: pathsFile.file,
      rate: pingRate,
      seconds: seconds + 1,
      warmupSeconds: 1,
      connections: 32,
    });
    await sleep(1000);
    const busy = await runStreams(server.url, agent, streams, seconds, k0);
    const pings = await pingLoad;
    progress.done();

    const stat = (l: Latencies, name: string) => {
      const entry = l.get(name) ?? { ms: [], failures: 0 };
      const sorted = Float64Array.from(entry.ms).sort();
      return {
        n: sorted.length,
        failures: entry.failures,
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        max: sorted[sorted.length - 1] ?? Number.NaN,
      };
    };
    const failures =
      streams.reduce((n, s) => n + stat(idle, s.name).failures + stat(busy, s.name).failures, 0) + pings.non200 + pings.errors;
    const details = [
      `hcd: DURABILITY=flush, CLOCK=real, default SHARDS, API_RATE_LIMIT=0. Management calls: ${perSecond}/s of each kind, open loop ` +
        `(latency from when each call was due), keep-alive connections from the bench process. Idle phase ${idleSeconds} s, then ` +
        `${fmt(pingRate)} pings/s over the big project's 1,000 checks (own process, 32 connections) for ${seconds} s. Failed calls: ${failures}.`,
      "",
      "| endpoint | calls | p50 ms | p99 ms | max ms | idle p50 ms | idle p99 ms |",
      "|---|---|---|---|---|---|---|",
      ...streams.map((s) => {
        const b = stat(busy, s.name),
          i = stat(idle, s.name);
        return `| ${s.name} | ${b.n} | ${fmt(b.p50)} | ${fmt(b.p99)} | ${fmt(b.max)} | ${fmt(i.p50)} | ${fmt(i.p99)} |`;
      }),
      `| background pings (achieved ${fmt(pings.achievedRate)}/s) | ${pings.completed} | ${fmt(pings.p50Ms)} | ${fmt(pings.p99Ms)} | ${fmt(pings.maxMs)} | | |`,
    ];
    if (failures > 0) throw new Error(`mixed bench: ${failures} failed calls\n${details.join("\n")}`);
    const figure = (name: string, which: "p50" | "p99", target?: number): Figure => ({
      scenario: SCENARIO,
      figure: `${name} ${which} under ${fmt(pingRate)} pings/s`,
      value: stat(busy, name)[which],
      unit: "ms",
      baseline: { value: stat(idle, name)[which], label: "idle server" },
      ...(target === undefined ? {} : { target: { op: "<=", value: target, on: "value" } as const }),
    });
    const figures: Figure[] = [
      figure(LIST, "p50", 20),
      figure(LIST, "p99"),
      figure("create check", "p50"),
      figure("update check", "p50"),
      figure("list flips", "p50"),
      figure("ping that flips a check", "p50"),
      { scenario: SCENARIO, figure: `background ping p99 at ${fmt(pingRate)}/s`, value: pings.p99Ms, unit: "ms" },
    ];
    return { scenario: SCENARIO, figures, details };
  } finally {
    progress.done();
    agent.destroy();
    await hcd?.stop();
    paths?.remove();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Sends every stream's calls at its rate for `seconds` (open loop) and returns the latencies by stream name. */
async function runStreams(base: string, agent: Agent, streams: readonly Stream[], seconds: number, firstK: number): Promise<Latencies> {
  const latencies: Latencies = new Map(streams.map((s) => [s.name, { ms: [], failures: 0 }]));
  const { hostname, port } = new URL(base);
  const origin = process.hrtime.bigint();
  const nowMs = () => Number(process.hrtime.bigint() - origin) / 1e6;
  const sent = streams.map(() => 0);
  const inFlight: Promise<void>[] = [];
  while (nowMs() < seconds * 1000) {
    streams.forEach((stream, i) => {
      // stream i is offset by a fraction of its interval, so that the kinds do not all fire together
      const intervalMs = 1000 / stream.perSecond;
      while (sent[i] * intervalMs + (i * intervalMs) / streams.length <= nowMs()) {
        const dueMs = sent[i] * intervalMs + (i * intervalMs) / streams.length;
        const call = stream.make(firstK + sent[i]++);
        inFlight.push(
          send(call).then((status) => {
            const entry = latencies.get(stream.name);
            if (entry === undefined) return;
            if (status !== stream.expect) entry.failures++;
            entry.ms.push(nowMs() - dueMs);
          }),
        );
      }
    });
    await sleep(1);
  }
  await Promise.all(inFlight);
  return latencies;

  function send(call: Call): Promise<number> {
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    return new Promise((resolve) => {
      const req = request(
        {
          agent,
          host: hostname,
          port: Number(port),
          method: call.method,
          path: call.path,
          headers: { ...(call.apiKey ? { "x-api-key": call.apiKey } : {}), ...(body ? { "content-type": "application/json" } : {}) },
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("error", () => resolve(0));
      req.end(body);
    });
  }
}

if (process.argv[1]?.endsWith("mixed.bench.js")) {
  const result = await runMixedBench();
  console.log(result.details.join("\n"));
  finishScenario(result);
}
