// The dashboard bench's 10,000-check project: its checks page in chromium (DOMContentLoaded and bytes
// transferred, each load in a fresh profile so nothing comes from the cache), the page's server time, and
// what an idle open page transfers in 30 s; next to same-run baselines: the sign-in page the same way,
// the same page decoded (its bytes uncompressed), and the API's list of the same checks.
import { existsSync } from "node:fs";
import type { Browser, Response as PlaywrightResponse } from "playwright-core";
import { median, msSince, sleep } from "./measure.ts";
import { fmt } from "./report.ts";
import { createCheck, createProject, mapConcurrently } from "./servers.ts";

export const BIG = 10_000;
const CHROMIUM = "/usr/bin/chromium";
const LOADS = 7;
const WARMUP = 2;
const IDLE_MS = 30_000;
/** What a browser sends: the page comes compressed the way chromium gets it. */
const BROWSER_ENCODINGS = "gzip, deflate, br, zstd";

/** One cold load in chromium: DOMContentLoaded from navigation start, and bytes over the wire (page and its files) and decoded. */
type ColdLoad = { readonly domContentLoadedMs: number; readonly transferredBytes: number; readonly decodedBytes: number };

export type BigProjectResult = {
  readonly serverMs: number;
  readonly apiMs: number;
  readonly apiBytes: number;
  readonly pageHtmlBytes: number;
  /** null when chromium is not installed. */
  readonly browser: {
    readonly checks: ColdLoad;
    readonly signIn: ColdLoad;
    readonly idle: { readonly bytes: number; readonly requests: number; readonly statuses: string };
  } | null;
};

/** Median latency (client included) of `url` over LOADS requests after WARMUP, and the last body's size. */
async function latency(url: string, headers: Record<string, string>): Promise<{ ms: number; bytes: number }> {
  const samples: number[] = [];
  let bytes = 0;
  for (let i = 0; i < WARMUP + 3 * LOADS; i++) {
    const started = process.hrtime.bigint();
    const response = await fetch(url, { headers });
    bytes = (await response.arrayBuffer()).byteLength;
    if (i >= WARMUP) samples.push(msSince(started));
  }
  return { ms: median(samples), bytes };
}

/** Loads `url` in a fresh profile (signed in with `cookie` when given) and reads its Navigation and Resource Timing. */
async function coldLoad(browser: Browser, url: string, cookie: string | null): Promise<ColdLoad> {
  const context = await browser.newContext();
  try {
    if (cookie !== null) {
      const [name, value] = cookie.split("=");
      await context.addCookies([{ name, value, url: new URL(url).origin }]);
    }
    const page = await context.newPage();
    await page.goto(url, { waitUntil: "load" });
    return await page.evaluate(() => {
      const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
      const files = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
      const all = [nav, ...files];
      return {
        domContentLoadedMs: nav.domContentLoadedEventEnd,
        transferredBytes: all.reduce((sum, e) => sum + e.transferSize, 0),
        decodedBytes: all.reduce((sum, e) => sum + e.decodedBodySize, 0),
      };
    });
  } finally {
    await context.close();
  }
}

/** Medians of LOADS cold loads after WARMUP. */
async function coldLoads(browser: Browser, url: string, cookie: string | null): Promise<ColdLoad> {
  const loads: ColdLoad[] = [];
  for (let i = 0; i < WARMUP + LOADS; i++) {
    const load = await coldLoad(browser, url, cookie);
    if (i >= WARMUP) loads.push(load);
  }
  const med = (key: keyof ColdLoad) => median(loads.map((l) => l[key]));
  return { domContentLoadedMs: med("domContentLoadedMs"), transferredBytes: med("transferredBytes"), decodedBytes: med("decodedBytes") };
}

/**
 * Opens `url` in chromium and counts what its requests transfer over IDLE_MS once the page has settled
 * (its first refresh answered): request and response, headers and bodies, as chromium's network reports them
 * for each answer that arrives meanwhile.
 */
async function idlePage(browser: Browser, url: string, cookie: string): Promise<{ bytes: number; requests: number; statuses: string }> {
  const context = await browser.newContext();
  try {
    const [name, value] = cookie.split("=");
    await context.addCookies([{ name, value, url: new URL(url).origin }]);
    const page = await context.newPage();
    await page.goto(url, { waitUntil: "load" });
    await page.waitForResponse((r) => r.url().includes("/checks/rows"), { timeout: 20_000 });
    let bytes = 0,
      requests = 0;
    const statuses = new Map<number, number>();
    const counting: Promise<void>[] = [];
    const onResponse = (response: PlaywrightResponse) => {
      counting.push(
        (async () => {
          await response.finished(); // a 304's empty body too
          const sizes = await response.request().sizes();
          bytes += sizes.requestHeadersSize + sizes.requestBodySize + sizes.responseHeadersSize + sizes.responseBodySize;
          requests++;
          statuses.set(response.status(), (statuses.get(response.status()) ?? 0) + 1);
        })(),
      );
    };
    page.on("response", onResponse);
    await sleep(IDLE_MS);
    page.off("response", onResponse);
    await Promise.all(counting);
    return { bytes, requests, statuses: [...statuses].map(([status, n]) => `${n}× ${status}`).join(", ") };
  } finally {
    await context.close();
  }
}

/** Makes a project of BIG checks, each pinged once, on `base`; measures it as the file's opening says. */
export async function measureBigProject(base: string, cookie: string, onStep: (what: string) => void): Promise<BigProjectResult> {
  onStep(`${BIG} checks, each pinged once`);
  const keys = await createProject(base, "ten thousand", BIG);
  const uuids = await mapConcurrently(
    Array.from({ length: BIG }, (_, i) => i),
    16,
    (i) => createCheck(base, keys.apiKey, { name: `job ${i}`, slug: `job-${i}`, tags: `t${i % 7} prod`, timeout: 86_400, grace: 3600 }),
  );
  await mapConcurrently(uuids, 16, async (uuid) => {
    await (await fetch(`${base}/ping/${uuid}`)).arrayBuffer();
  });
  await sleep(1_000); // the pings' commits, within half a second
  const pageUrl = `${base}/projects/${keys.id}/checks`;
  onStep(`the ${BIG}-check page's server time`);
  const server = await latency(pageUrl, { cookie, "accept-encoding": BROWSER_ENCODINGS });
  const api = await latency(`${base}/api/v3/checks/`, { "x-api-key": keys.apiKey });
  const plain = (await (await fetch(pageUrl, { headers: { cookie } })).arrayBuffer()).byteLength;
  if (!existsSync(CHROMIUM)) {
    console.log(`dashboard bench: ${CHROMIUM} is not installed; the ${BIG}-check page in a browser is skipped`);
    return { serverMs: server.ms, apiMs: api.ms, apiBytes: api.bytes, pageHtmlBytes: plain, browser: null };
  }
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
  try {
    onStep(`the ${BIG}-check page in chromium, cold loads`);
    const checks = await coldLoads(browser, pageUrl, cookie);
    const signIn = await coldLoads(browser, `${base}/`, null);
    onStep(`an idle open ${BIG}-check page for ${IDLE_MS / 1000} s`);
    const idle = await idlePage(browser, pageUrl, cookie);
    return { serverMs: server.ms, apiMs: api.ms, apiBytes: api.bytes, pageHtmlBytes: plain, browser: { checks, signIn, idle } };
  } finally {
    await browser.close();
  }
}

/** The detail lines of a BigProjectResult. */
export function bigProjectDetails(result: BigProjectResult): string[] {
  const kb = (bytes: number) => `${fmt(bytes / 1000)} kB`;
  const lines = [
    `${BIG} checks in one project, each pinged once (its row shows a last ping). The checks page (its first 100 rows), ` +
      `${3 * LOADS} requests after ${WARMUP} warm-up ones, Accept-Encoding "${BROWSER_ENCODINGS}": median ${fmt(result.serverMs)} ms ` +
      `(client included); its HTML ${kb(result.pageHtmlBytes)} uncompressed. GET /api/v3/checks/ of the same checks: ${fmt(result.apiMs)} ms, ${kb(result.apiBytes)}.`,
  ];
  const b = result.browser;
  if (b === null) return [...lines, "", "In a browser: skipped, /usr/bin/chromium is not installed."];
  return [
    ...lines,
    "",
    `In chromium (playwright-core, headless), ${LOADS} cold loads (a fresh profile each: page, stylesheet, script, icon from the server) after ${WARMUP}, medians: ` +
      `checks page DOMContentLoaded ${fmt(b.checks.domContentLoadedMs)} ms, ${kb(b.checks.transferredBytes)} transferred, ${kb(b.checks.decodedBytes)} decoded; ` +
      `sign-in page DOMContentLoaded ${fmt(b.signIn.domContentLoadedMs)} ms, ${kb(b.signIn.transferredBytes)} transferred.`,
    "",
    `An idle open checks page of that project over ${IDLE_MS / 1000} s (nothing changes; its refresh every 3 s with If-None-Match): ` +
      `${b.idle.requests} requests (${b.idle.statuses}), ${kb(b.idle.bytes)} transferred, request and response headers included.`,
  ];
}
