// What serving a public status page costs the pings: peak pings/s into a project while 100 requests a
// second fetch its status page (50 checks, HTML and JSON alternately), against none right before and
// after (rounds of none, page, none, page, none), the median of the ratios; and the page's median latency.
// Also the server's CPU per page request and per ping (sequential requests, all threads), which on a
// shared machine says more than the ratio: what 100 page requests a second cost in pings' worth of CPU.
// The view is kept 5 s (http/status/status-view.ts), so the page's requests cost its bytes, not its reads.
// `npm run build && node dist/bench/status-page.bench.js`; HCD_BENCH_RUNS (default 3), HCD_BENCH_SECONDS (default 6).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runPeak, writePaths } from "./load.ts";
import { cpuSecondsOf, median, msSince, sleep } from "./measure.ts";
import { ADMIN_TOKEN, callJson, createCheck, createProject, mapConcurrently, shuffled, startHcd } from "./servers.ts";

const CHECKS = 50;
const PAGE_RATE = 100; // requests per second to the status page
const CONNECTIONS = 50;

/** Fetches the page PAGE_RATE times a second (open loop) until stopped; its latencies and answers. */
function pageLoad(url: string): { stop: () => Promise<{ latencies: number[]; statuses: Set<number> }> } {
  const latencies: number[] = [];
  const statuses = new Set<number>();
  const inFlight = new Set<Promise<void>>();
  let n = 0;
  const timer = setInterval(() => {
    const started = process.hrtime.bigint();
    const request = fetch(n++ % 2 === 0 ? url : `${url}.json`).then(async (res) => {
      await res.arrayBuffer();
      latencies.push(msSince(started));
      statuses.add(res.status);
    });
    inFlight.add(request);
    void request.finally(() => inFlight.delete(request));
  }, 1000 / PAGE_RATE);
  return {
    stop: async () => {
      clearInterval(timer);
      await Promise.all(inFlight);
      return { latencies, statuses };
    },
  };
}

const runs = Number(process.env.HCD_BENCH_RUNS ?? 3);
const seconds = Number(process.env.HCD_BENCH_SECONDS ?? 6);
const dir = mkdtempSync(join(tmpdir(), "hcd-bench-status-"));
const server = await startHcd({ dataDir: dir });
try {
  const project = await createProject(server.url, "status", CHECKS + 1000);
  const uuids = await mapConcurrently(
    Array.from({ length: CHECKS }, (_, i) => i),
    16,
    (i) => createCheck(server.url, project.apiKey, { name: `service ${i}`, timeout: 3600, grace: 600 }),
  );
  await callJson(server.url, "POST", `/admin/v1/projects/${project.id}/status-pages`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    body: { slug: "bench", title: "Bench", checks: uuids },
    expect: [201],
  });
  const pingPaths = shuffled(uuids.map((uuid) => `/ping/${uuid}`));
  const paths = writePaths(pingPaths);
  try {
    const peak = async () =>
      (await runPeak({ url: server.url, pathsFile: paths.file, paths: pingPaths, connections: CONNECTIONS, seconds })).perSecond;
    /** The server's CPU milliseconds per request over `count` sequential ones. */
    const cpuPer = async (count: number, url: (i: number) => string) => {
      const before = cpuSecondsOf(server.pid) ?? 0;
      for (let i = 0; i < count; i++) await (await fetch(url(i))).arrayBuffer();
      return (((cpuSecondsOf(server.pid) ?? 0) - before) * 1000) / count;
    };
    await cpuPer(200, (i) => `${server.url}/status/bench${i % 2 === 0 ? "" : ".json"}`); // warm-up
    const pageCpuMs = await cpuPer(2000, (i) => `${server.url}/status/bench${i % 2 === 0 ? "" : ".json"}`);
    const pingCpuMs = await cpuPer(2000, (i) => `${server.url}${pingPaths[i % pingPaths.length]}`);
    await runPeak({ url: server.url, pathsFile: paths.file, paths: pingPaths, connections: CONNECTIONS, seconds: 2 }); // warm-up
    const alone: number[] = [await peak()];
    const ratios: number[] = [],
      withPage: number[] = [],
      latencies: number[] = [];
    for (let run = 0; run < runs; run++) {
      await sleep(1_000);
      const load = pageLoad(`${server.url}/status/bench`);
      const loaded = await peak();
      const { latencies: ms, statuses } = await load.stop();
      if (statuses.size !== 1 || !statuses.has(200)) throw new Error(`status page answered ${[...statuses]}`);
      latencies.push(...ms);
      await sleep(1_000);
      alone.push(await peak());
      withPage.push(loaded);
      ratios.push(loaded / ((alone.at(-2)! + alone.at(-1)!) / 2));
    }
    console.log(
      JSON.stringify({
        checks: CHECKS,
        page_requests_per_second: PAGE_RATE,
        pings_per_second_alone: alone.map(Math.round),
        pings_per_second_with_page: withPage.map(Math.round),
        median_ratio: Math.round(median(ratios) * 1000) / 1000,
        page_median_ms: Math.round(median(latencies) * 10) / 10,
        page_cpu_ms: Math.round(pageCpuMs * 1000) / 1000,
        ping_cpu_ms: Math.round(pingCpuMs * 1000) / 1000,
        page_load_in_pings_per_second: Math.round((PAGE_RATE * pageCpuMs) / pingCpuMs),
      }),
    );
  } finally {
    paths.remove();
  }
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
