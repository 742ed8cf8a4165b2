// The dashboard's cost on a 1,000-check project, against same-run baselines:
// 1. the checks page and one auto-refresh of its table (/checks/rows), next to the API's list of the same
//    checks (GET /api/v3/checks/); the refresh four ways: a table never rendered (a query no render was
//    made for: every row built, as every refresh cost before the ETag and the row memo), shared (no
//    If-None-Match, within 1 s of another client's render: rows-cache.ts), unchanged (If-None-Match of
//    the last answer: 304), and changed (a check was pinged since the last answer: the rows again, the
//    unchanged ones reused from the last render: row-memo.ts). Latency at concurrency 1 over loopback,
//    median of 60 requests after 30 warm-up ones (client time included, so these are upper bounds of the
//    server time), and the server's CPU per request over the same requests (all threads).
// 2. Peak pings/s into that project with 10 dashboards open, each refreshing every 3 s the way the page's
//    script does (If-None-Match of its last answer), against none right before and after (rounds of none,
//    dashboards, none, dashboards, none), medians of the ratios. Twice: the dashboards watch the pinged
//    project (the pings change it between two refreshes, so no refresh is a 304 and nearly every row
//    changed: the worst case), and they watch another 1,000-check project that nothing changes meanwhile
//    (every refresh a 304: what the ETag buys). Beside the rates, which swing with others' load on a shared
//    machine, the dashboards' own cost: the server CPU of their refreshes per second (the CPU of one
//    refresh from 1., times 10 dashboards' refreshes a second), as a share of one core.
// 3. A 10,000-check project (bench/dashboard-scale.ts): its checks page in chromium (DOMContentLoaded and
//    bytes transferred, cold), its server time, and what an idle open page transfers in 30 s.
// `node dist/bench/dashboard.bench.js`; HCD_BENCH_RUNS (default 5), HCD_BENCH_SECONDS (default 6).
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runPeak, writePaths } from "./load.ts";
import { cpuSecondsOf, median, msSince, Progress, sleep } from "./measure.ts";
import type { Figure, ScenarioResult } from "./report.ts";
import { finishScenario, fmt } from "./report.ts";
import { BIG, bigProjectDetails, measureBigProject } from "./dashboard-scale.ts";
import { ADMIN_TOKEN, createCheck, createProject, mapConcurrently, shuffled, startHcd } from "./servers.ts";
import type { ServerProcess } from "./servers.ts";
import type { BigProjectResult } from "./dashboard-scale.ts";

const CHECKS = 1_000;
const WARMUP = 30;
const SAMPLES = 60;
const DASHBOARDS = 10;
const REFRESH_MS = 3_000; // the page script's period while the tab is visible (static/dashboard.js)
const CONNECTIONS = 50;
const SETTLE_MS = 2_000; // before each peak run

/** A peak run: pings/s, and the server's CPU (all threads, dashboards' refreshes included) per ping. */
type Run = { readonly perSecond: number; readonly cpuUsPerPing: number };

type Latency = { readonly medianMs: number; readonly cpuMsPerRequest: number; readonly statuses: ReadonlySet<number> };

/** Runs `request` WARMUP + SAMPLES times at concurrency 1 (`before` untimed ahead of each); median latency and server CPU per request. */
async function measure(
  server: ServerProcess,
  request: () => Promise<Response>,
  before: () => Promise<unknown> = async () => {},
): Promise<Latency> {
  const samples: number[] = [];
  const statuses = new Set<number>();
  let cpuMs = 0;
  for (let i = 0; i < WARMUP + SAMPLES; i++) {
    await before();
    const cpuBefore = cpuSecondsOf(server.pid) ?? 0;
    const started = process.hrtime.bigint();
    const response = await request();
    await response.arrayBuffer();
    const ms = msSince(started);
    if (i < WARMUP) continue;
    samples.push(ms);
    cpuMs += ((cpuSecondsOf(server.pid) ?? 0) - cpuBefore) * 1000;
    statuses.add(response.status);
  }
  return { medianMs: median(samples), cpuMsPerRequest: cpuMs / SAMPLES, statuses };
}

/**
 * Opens one dashboard (its page's rows, with their ETag, as the page load gives them), then refreshes the
 * rows every REFRESH_MS with the last ETag, as the page's script does.
 */
async function openDashboard(
  url: string,
  cookie: string,
  startAfterMs: number,
  renders: Set<string>,
): Promise<{ stop: () => Promise<{ full: number; notModified: number }> }> {
  const loaded = await fetch(url, { headers: { cookie, accept: "text/html" } });
  await loaded.arrayBuffer();
  let running = true,
    etag: string | null = loaded.headers.get("etag"),
    full = 0,
    notModified = 0;
  const loop = (async () => {
    await sleep(startAfterMs);
    while (running) {
      const headers: Record<string, string> = { cookie, accept: "text/html" };
      if (etag !== null) headers["if-none-match"] = etag;
      const response = await fetch(url, { headers });
      await response.arrayBuffer();
      if (response.status === 304) notModified++;
      else if (response.status === 200) {
        full++;
        etag = response.headers.get("etag");
        renders.add(etag ?? "");
      } else throw new Error(`dashboard bench: refresh answered ${response.status}`);
      await sleep(REFRESH_MS);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return { full, notModified };
    },
  };
}

const CHROMIUM = "/usr/bin/chromium";
const BROWSER_WARMUP = 3;
const BROWSER_LOADS = 15;

type NavigationTimes = { readonly responseStart: number; readonly domInteractive: number; readonly loadEventEnd: number };

/**
 * Loads `path` (signed in) and the sign-in page in chromium, BROWSER_WARMUP + BROWSER_LOADS times each,
 * and returns the medians of their navigation timings; null when chromium is not installed.
 */
async function browserLoads(
  base: string,
  cookie: string,
  path: string,
): Promise<{ checks: NavigationTimes; checksMs: number; signInMs: number } | null> {
  if (!existsSync(CHROMIUM)) {
    console.log(`dashboard bench: ${CHROMIUM} is not installed; the in-browser figure is skipped`);
    return null;
  }
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
  try {
    const [name, value] = cookie.split("=");
    const loads = async (url: string, signedIn: boolean): Promise<NavigationTimes[]> => {
      const context = await browser.newContext();
      if (signedIn) await context.addCookies([{ name, value, url: base }]);
      const page = await context.newPage();
      const times: NavigationTimes[] = [];
      for (let i = 0; i < BROWSER_WARMUP + BROWSER_LOADS; i++) {
        await page.goto(url, { waitUntil: "load" });
        const timing = await page.evaluate(() => {
          const entry = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
          return { responseStart: entry.responseStart, domInteractive: entry.domInteractive, loadEventEnd: entry.loadEventEnd };
        });
        if (i >= BROWSER_WARMUP) times.push(timing);
      }
      await context.close();
      return times;
    };
    const checks = await loads(`${base}${path}`, true);
    const signIn = await loads(`${base}/`, false); // signed out, / is the sign-in page
    const med = (times: NavigationTimes[], key: keyof NavigationTimes) => median(times.map((t) => t[key]));
    return {
      checks: {
        responseStart: med(checks, "responseStart"),
        domInteractive: med(checks, "domInteractive"),
        loadEventEnd: med(checks, "loadEventEnd"),
      },
      checksMs: med(checks, "loadEventEnd"),
      signInMs: med(signIn, "loadEventEnd"),
    };
  } finally {
    await browser.close();
  }
}

export async function runDashboardBench(): Promise<ScenarioResult> {
  const runs = Number(process.env.HCD_BENCH_RUNS ?? 5);
  const seconds = Number(process.env.HCD_BENCH_SECONDS ?? 6);
  const progress = new Progress("dashboard");
  const dir = mkdtempSync(join(tmpdir(), "hcd-bench-dashboard-"));
  const server = await startHcd({ dataDir: dir });
  let paths: { file: string; remove: () => void } | null = null;
  try {
    const fill = async (name: string) => {
      const keys = await createProject(server.url, name, CHECKS);
      const made = await mapConcurrently(
        Array.from({ length: CHECKS }, (_, i) => i),
        16,
        (i) =>
          createCheck(server.url, keys.apiKey, {
            name: `check ${i}`,
            slug: `check-${i}`,
            tags: `t${i % 7} prod`,
            timeout: 3600,
            grace: 600,
          }),
      );
      return { keys, uuids: made };
    };
    const { keys: project, uuids } = await fill("dashboard");
    const { keys: quiet } = await fill("quiet");
    const signIn = await fetch(`${server.url}/signin`, {
      method: "POST",
      body: new URLSearchParams({ key: ADMIN_TOKEN }),
      redirect: "manual",
    });
    const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0];
    const rowsUrl = `${server.url}/projects/${project.id}/checks/rows`;
    const get = (url: string, headers: Record<string, string>) => () => fetch(url, { headers });

    // 1. one request each, concurrency 1
    progress.update(1, 6, "API list, checks page, refreshes", true);
    const api = await measure(server, get(`${server.url}/api/v3/checks/`, { "x-api-key": project.apiKey }));
    const page = await measure(
      server,
      get(`${server.url}/projects/${project.id}/checks`, { cookie, "accept-encoding": "gzip, deflate, br, zstd" }),
    ); // as a browser asks
    // a table rendered for the first time (a query no render was made for: every row built), and one that
    // another dashboard's refresh rendered a moment before (shared: rows-cache.ts)
    let variant = 0;
    const unconditional = await measure(server, () => fetch(`${rowsUrl}?v=${variant++}`, { headers: { cookie } }));
    const shared = await measure(server, get(rowsUrl, { cookie }), async () =>
      (await fetch(rowsUrl, { headers: { cookie, "if-none-match": 'W/"none"' } })).arrayBuffer(),
    );
    const etagNow = async () => (await fetch(rowsUrl, { headers: { cookie } })).headers.get("etag") ?? "";
    let etag = await etagNow();
    const unchanged = await measure(server, () => fetch(rowsUrl, { headers: { cookie, "if-none-match": etag } }));
    let pinged = 0;
    const changed = await measure(
      server,
      () => fetch(rowsUrl, { headers: { cookie, "if-none-match": etag } }),
      async () => {
        etag = await etagNow();
        await fetch(`${server.url}/ping/${uuids[pinged++ % CHECKS]}`);
      },
    );
    if (!(unchanged.statuses.size === 1 && unchanged.statuses.has(304)))
      throw new Error(`unchanged refreshes answered ${[...unchanged.statuses]}`);
    if (!(changed.statuses.size === 1 && changed.statuses.has(200))) throw new Error(`changed refreshes answered ${[...changed.statuses]}`);

    // 1b. the checks page in a real browser, when chromium is installed
    progress.update(2, 6, "the checks page in chromium", true);
    const inBrowser = await browserLoads(server.url, cookie, `/projects/${project.id}/checks`);

    // 3. the 10,000-check project (made after the 1,000-check measures, so that they are as before)
    const big = await measureBigProject(server.url, cookie, (what) => progress.update(2, 6, what, true));

    // 2. pings/s with and without 10 open dashboards, alternated
    const pingPaths = shuffled(uuids.map((uuid) => `/ping/${uuid}`));
    const pathsFile = writePaths(pingPaths);
    paths = pathsFile;
    const peak = async (): Promise<Run> => {
      const cpuBefore = cpuSecondsOf(server.pid) ?? 0;
      const load = await runPeak({ url: server.url, pathsFile: pathsFile.file, paths: pingPaths, connections: CONNECTIONS, seconds });
      return { perSecond: load.perSecond, cpuUsPerPing: (((cpuSecondsOf(server.pid) ?? 0) - cpuBefore) / load.requests) * 1e6 };
    };
    progress.update(3, 6, "warm-up", true);
    await runPeak({ url: server.url, pathsFile: pathsFile.file, paths: pingPaths, connections: CONNECTIONS, seconds: 2 });
    const alone: Run[][] = [],
      watched: Run[] = [],
      watchedQuiet: Run[] = [];
    const refreshes = { full: 0, notModified: 0, renders: new Set<string>() },
      quietRefreshes = { full: 0, notModified: 0, renders: new Set<string>() };
    const withDashboards = async (url: string, counted: { full: number; notModified: number; renders: Set<string> }) => {
      // staggered over one period, as tabs opened at different moments
      const dashboards = await Promise.all(
        Array.from({ length: DASHBOARDS }, (_, i) => openDashboard(url, cookie, (i * REFRESH_MS) / DASHBOARDS, counted.renders)),
      );
      const result = await peak();
      for (const counts of await Promise.all(dashboards.map((d) => d.stop()))) {
        counted.full += counts.full;
        counted.notModified += counts.notModified;
      }
      return result;
    };
    // each run: none, dashboards on the pinged project, none, dashboards on the quiet one, none, each after
    // the same pause; each configuration with dashboards is compared with the mean of the two runs without
    // around it, so a drift of the server's speed over the bench (warm-up, the store growing) cancels
    for (let r = 0; r < runs; r++) {
      progress.update(
        4 + r,
        4 + runs,
        `run ${r + 1}/${runs}: none, ${DASHBOARDS} on the pinged project, none, ${DASHBOARDS} on a quiet one, none`,
        true,
      );
      const none: Run[] = [];
      const step = async (measureOne: () => Promise<Run>, into: Run[]) => {
        await sleep(SETTLE_MS);
        into.push(await measureOne());
      };
      await step(peak, none);
      await step(() => withDashboards(rowsUrl, refreshes), watched);
      await step(peak, none);
      await step(() => withDashboards(`${server.url}/projects/${quiet.id}/checks/rows`, quietRefreshes), watchedQuiet);
      await step(peak, none);
      alone.push(none);
    }
    progress.done();
    // on this shared machine the rate of one run swings with everyone else's load: ratios are taken within
    // a run, against the runs without dashboards right before and after, then their median; the server's
    // CPU per ping, which others' load disturbs far less, gives the capacity ratio (CPU per ping without / with)
    const around = (x: Run, y: Run): Run => ({
      perSecond: (x.perSecond + y.perSecond) / 2,
      cpuUsPerPing: (x.cpuUsPerPing + y.cpuUsPerPing) / 2,
    });
    const watchedBase = alone.map(([before, after]) => around(before, after));
    const quietBase = alone.map(([, before, after]) => around(before, after));
    const aloneRate = median(alone.flat().map((m) => m.perSecond)),
      watchedRate = median(watched.map((m) => m.perSecond));
    const quietRate = median(watchedQuiet.map((m) => m.perSecond));
    const rateRatio = (runsOf: Run[], base: Run[]) => median(runsOf.map((m, r) => m.perSecond / base[r].perSecond));
    const cpuRatio = (runsOf: Run[], base: Run[]) => median(runsOf.map((m, r) => base[r].cpuUsPerPing / m.cpuUsPerPing));

    const dashboardsShare = (refresh: Latency) => (((DASHBOARDS * 1000) / REFRESH_MS) * refresh.cpuMsPerRequest) / 10; // ms a second / 1000 ms, in %
    const baseline = { value: api.medianMs, label: `GET /api/v3/checks/ of the same ${CHECKS} checks` };
    const before = { value: unconditional.medianMs, label: "a render of every row (a table never rendered)" };
    const figures: Figure[] = [
      {
        scenario: "dashboard",
        figure: `checks page of ${CHECKS} checks, median latency`,
        value: page.medianMs,
        unit: "ms",
        baseline,
        target: { op: "<=", value: 50, on: "value" },
      },
      ...(inBrowser === null
        ? []
        : [
            {
              scenario: "dashboard",
              figure: `checks page of ${CHECKS} checks usable in chromium (navigation start to load event: table drawn, script running), median`,
              value: inBrowser.checksMs,
              unit: "ms",
              baseline: { value: inBrowser.signInMs, label: "the sign-in page, the same way" },
              target: { op: "<=", value: 1000, on: "value" },
            } satisfies Figure,
          ]),
      ...bigFigures(big),
      {
        scenario: "dashboard",
        figure: "one auto-refresh of that table, nothing changed (304), median latency",
        value: unchanged.medianMs,
        unit: "ms",
        baseline: before,
        target: { op: "<=", value: 5, on: "value" },
      },
      {
        scenario: "dashboard",
        figure: "one auto-refresh after a ping (the rows again, the unchanged ones reused), median latency",
        value: changed.medianMs,
        unit: "ms",
        baseline: before,
        target: { op: "<=", value: 5, on: "value" },
      },
      {
        scenario: "dashboard",
        figure: "one auto-refresh within 1 s of another dashboard's render of the table (shared), median latency",
        value: shared.medianMs,
        unit: "ms",
        baseline: before,
        target: { op: "<=", value: 5, on: "value" },
      },
      // what the dashboards take from the pings, less at the mercy of others' load than the rates are: the
      // server CPU of their refreshes per second (the mean CPU of one refresh, measured above at concurrency 1,
      // times the refreshes a second), as a share of one core (of the machine's cores, the fewest a server has)
      {
        scenario: "dashboard",
        figure: `${DASHBOARDS} dashboards on a project whose every row changes between two refreshes (each renders every row): their server CPU, share of one core`,
        value: dashboardsShare(unconditional),
        unit: "% of a core",
        target: { op: "<=", value: 5, on: "value" },
      },
      {
        scenario: "dashboard",
        figure: `${DASHBOARDS} dashboards on an unchanged project (every refresh a 304): their server CPU, share of one core`,
        value: dashboardsShare(unchanged),
        unit: "% of a core",
        target: { op: "<=", value: 5, on: "value" },
      },
      {
        scenario: "dashboard",
        figure: `pings/s with ${DASHBOARDS} dashboards refreshing the pinged project (full renders), median of per-run ratios`,
        value: rateRatio(watched, watchedBase),
        unit: "× none",
        target: { op: ">=", value: 0.95, on: "value" },
      },
      {
        scenario: "dashboard",
        figure: `ping capacity with ${DASHBOARDS} dashboards on the pinged project: server CPU per ping, none / with them, median`,
        value: cpuRatio(watched, watchedBase),
        unit: "× none",
        target: { op: ">=", value: 0.95, on: "value" },
      },
      {
        scenario: "dashboard",
        figure: `pings/s with ${DASHBOARDS} dashboards refreshing an unchanged project (304s), median of per-run ratios`,
        value: rateRatio(watchedQuiet, quietBase),
        unit: "× none",
        target: { op: ">=", value: 0.95, on: "value" },
      },
      {
        scenario: "dashboard",
        figure: `ping capacity with ${DASHBOARDS} dashboards on an unchanged project: server CPU per ping, none / with them, median`,
        value: cpuRatio(watchedQuiet, quietBase),
        unit: "× none",
        target: { op: ">=", value: 0.95, on: "value" },
      },
    ];
    const row = (name: string, m: Latency) =>
      `| ${name} | ${fmt(m.medianMs)} | ${fmt(m.cpuMsPerRequest)} | ${[...m.statuses].join(", ")} |`;
    return {
      scenario: "dashboard",
      figures,
      details: [
        `${CHECKS} checks in one project; each line ${SAMPLES} requests at concurrency 1 after ${WARMUP} warm-up ones. Latency includes the client; ` +
          "server CPU is the hcd process's (all threads) over the timed requests, from /proc (10 ms ticks, so a mean, not a median).",
        "",
        "| request | median latency ms | server CPU ms per request | statuses |",
        "|---|---|---|---|",
        row("GET /api/v3/checks/ (baseline)", api),
        row("checks page", page),
        row("rows, no If-None-Match, a table never rendered (every row built)", unconditional),
        row("rows, no If-None-Match, within 1 s of another client's render (shared)", shared),
        row("rows, If-None-Match, nothing changed", unchanged),
        row("rows, If-None-Match, a check pinged since", changed),
        "",
        inBrowser === null
          ? "In a browser: skipped, /usr/bin/chromium is not installed."
          : `In chromium (playwright-core, headless), ${BROWSER_LOADS} loads after ${BROWSER_WARMUP} warm-up ones, from navigation start (medians): ` +
            `checks page: first byte ${fmt(inBrowser.checks.responseStart)} ms, DOM interactive ${fmt(inBrowser.checks.domInteractive)} ms, load event ${fmt(inBrowser.checksMs)} ms; ` +
            `sign-in page: load event ${fmt(inBrowser.signInMs)} ms.`,
        "",
        ...bigProjectDetails(big),
        "",
        `Pings: ${CONNECTIONS} connections cycling through the ${CHECKS} checks' ping URLs of the first project, ${seconds} s a run, each after a ${SETTLE_MS / 1000} s pause; ` +
          `${runs} rounds of: none, ${DASHBOARDS} dashboards on that project, none, ${DASHBOARDS} on the quiet one, none (each with dashboards compared with the mean of the two without around it). Dashboards refresh every ${REFRESH_MS / 1000} s ` +
          `with If-None-Match: on the pinged project ${refreshes.full} full answers (${refreshes.renders.size} distinct renders, the rest shared) and ${refreshes.notModified} 304s ` +
          `(the pings change it between two refreshes); on the quiet one ${quietRefreshes.full} full answers and ${quietRefreshes.notModified} 304s.`,
        "",
        `| round | none: pings/s (CPU µs/ping), three runs | ${DASHBOARDS} on the pinged project: pings/s, CPU µs/ping | ratios (rate, capacity) | ${DASHBOARDS} on a quiet project: pings/s, CPU µs/ping | ratios (rate, capacity) |`,
        "|---|---|---|---|---|---|",
        ...alone.map((none, r) => {
          const w = watched[r],
            q = watchedQuiet[r];
          const ratios = (x: Run, base: Run) =>
            `${(x.perSecond / base.perSecond).toFixed(3)}, ${(base.cpuUsPerPing / x.cpuUsPerPing).toFixed(3)}`;
          return `| ${r + 1} | ${none.map((m) => `${fmt(m.perSecond)} (${fmt(m.cpuUsPerPing)})`).join(", ")} | ${fmt(w.perSecond)}, ${fmt(w.cpuUsPerPing)} | ${ratios(w, watchedBase[r])} | ${fmt(q.perSecond)}, ${fmt(q.cpuUsPerPing)} | ${ratios(q, quietBase[r])} |`;
        }),
        `| median | ${fmt(aloneRate)} | ${fmt(watchedRate)} | ${rateRatio(watched, watchedBase).toFixed(3)}, ${cpuRatio(watched, watchedBase).toFixed(3)} | ${fmt(quietRate)} | ${rateRatio(watchedQuiet, quietBase).toFixed(3)}, ${cpuRatio(watchedQuiet, quietBase).toFixed(3)} |`,
      ],
    };
  } finally {
    paths?.remove();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The 10,000-check project's figures against the targets of issue "Scale". */
function bigFigures(big: BigProjectResult): Figure[] {
  const figures: Figure[] = [
    {
      scenario: "dashboard",
      figure: `checks page of ${BIG} checks (its first 100 rows), median latency`,
      value: big.serverMs,
      unit: "ms",
      baseline: { value: big.apiMs, label: `GET /api/v3/checks/ of the same ${BIG} checks` },
    },
  ];
  const b = big.browser;
  if (b === null) return figures;
  return [
    ...figures,
    {
      scenario: "dashboard",
      figure: `checks page of ${BIG} checks usable in chromium (navigation start to DOMContentLoaded, cold), median`,
      value: b.checks.domContentLoadedMs,
      unit: "ms",
      baseline: { value: b.signIn.domContentLoadedMs, label: "the sign-in page, the same way" },
      target: { op: "<=", value: 1500, on: "value" },
    },
    {
      scenario: "dashboard",
      figure: `checks page of ${BIG} checks in chromium, bytes transferred (page, stylesheet, script, icon), median`,
      value: b.checks.transferredBytes / 1000,
      unit: "kB",
      baseline: { value: b.checks.decodedBytes / 1000, label: "the same, decoded" },
      target: { op: "<=", value: 300, on: "value" },
    },
    {
      scenario: "dashboard",
      figure: `an idle open checks page of ${BIG} checks, bytes transferred in 30 s`,
      value: b.idle.bytes / 1000,
      unit: "kB",
      baseline: { value: b.checks.transferredBytes / 1000, label: "its load" },
      target: { op: "<=", value: 100, on: "value" },
    },
  ];
}

if (process.argv[1]?.endsWith("dashboard.bench.js")) {
  const result = await runDashboardBench();
  console.log(result.details.join("\n"));
  finishScenario(result);
}
