// Slow and idle clients against the real server: 500 connections at once that send headers a byte a
// second, trickle a ping body a byte a second, or send nothing. Pings meanwhile are all answered, no slower
// than pings without them (a baseline measured before and after, in the same test: its median and 90th
// percentile, a few times over, whatever the machine's load) and all stored; every slow connection is
// dropped by the server's timeouts (headers 10 s, request 60 s). Then the connection cap: past
// MAX_CONNECTIONS a new connection is closed, and idle kept-alive connections give way to new ones.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { randomUUID } from "node:crypto";
import { connect } from "node:net";
import type { Socket } from "node:net";
import { tempDir } from "../helpers.ts";
import type { RealServer } from "../security/real-server.ts";
import { call, createProject, ok, startServer, stopServer, troubleIn } from "../security/real-server.ts";
import { freshRequest, sleep } from "./load.ts";

const TOKEN = "slow-clients-stress-admin-token-0123";
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];

function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1" }, () => resolve(socket));
    socket.on("error", reject);
  });
}

/** A connection watched until the server closes it: what it answered, if anything. */
type Watched = { socket: Socket; answer: string; closed: boolean };

function watch(socket: Socket): Watched {
  const watched: Watched = { socket, answer: "", closed: false };
  socket.removeAllListeners("error");
  socket.on("error", () => {});
  socket.on("data", (chunk) => {
    watched.answer += chunk.toString("latin1");
  });
  socket.on("close", () => {
    watched.closed = true;
  });
  return watched;
}

/** Pings `count` times in sequence on fresh connections (fewer once `until` says so), each with its own rid; returns the latencies (ms) and the rids answered 200. */
async function pings(
  server: RealServer,
  uuid: string,
  count: number,
  until: () => boolean = () => false,
): Promise<{ latencies: number[]; acknowledged: string[]; failures: string[] }> {
  const latencies: number[] = [],
    acknowledged: string[] = [],
    failures: string[] = [];
  for (let i = 0; i < count && !until(); i++) {
    const rid = randomUUID();
    const started = performance.now();
    const outcome = await freshRequest(server.url, "GET", `/ping/${uuid}?rid=${rid}`);
    latencies.push(performance.now() - started);
    if ("status" in outcome && outcome.status === 200) acknowledged.push(rid);
    else failures.push(JSON.stringify(outcome));
  }
  return { latencies, acknowledged, failures };
}

test("500 slow and idle connections: pings stay fast and are all stored, and every slow connection is dropped", async () => {
  const dir = tempDir();
  const server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
  try {
    const project = await createProject(server, TOKEN, { name: "slow", ping_log_limit: 10_000 });
    const key = project.api_key;
    const { uuid } = await ok<{ uuid: string }>(call(server.url, "POST", "/api/v3/checks/", { key, body: { name: "c" } }));
    await pings(server, uuid, 50); // warm up
    const before = await pings(server, uuid, 300);

    const opened = await Promise.all(Array.from({ length: 500 }, () => openSocket(server.port)));
    const slowHeaders = opened.slice(0, 170).map(watch);
    const slowBodies = opened.slice(170, 340).map(watch);
    const idle = opened.slice(340).map(watch);
    const headerText = `GET /ping/${uuid} HTTP/1.1\r\nHost: x\r\n` + "X-Slow: y\r\n".repeat(100);
    for (const w of slowBodies) w.socket.write(`POST /ping/${uuid}/log HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n`);
    let trickling = true;
    const trickle = (async () => {
      for (let i = 0; trickling && i < headerText.length; i++) {
        for (const w of slowHeaders) if (!w.closed) w.socket.write(headerText[i]);
        for (const w of slowBodies) if (!w.closed) w.socket.write("b");
        await sleep(1_000);
      }
    })();

    // only the pings made while every slow connection was still open count (the headers timeout, 10 s,
    // comes sooner on a busy machine): up to 600, stopped at the first one the server drops
    const all = [...slowHeaders, ...slowBodies, ...idle];
    const loaded = await pings(server, uuid, 600, () => all.some((w) => w.closed));
    // every slow connection must be dropped by the server: wait for that (request timeout 60 s, checked
    // every second); a failure deadline, not a wait the test passes by
    for (let waited = 0; waited < 180 && all.some((w) => !w.closed); waited++) await sleep(1_000);
    trickling = false;
    await trickle;
    for (const w of all) w.socket.destroy();
    const after = await pings(server, uuid, 300);

    const at = (values: number[], p: number) => percentile(values, p);
    const reference = (p: number) => Math.max(at(before.latencies, p), at(after.latencies, p));
    console.log(
      `  pings alone: p50 ${reference(0.5).toFixed(1)} ms, p90 ${reference(0.9).toFixed(1)} ms (the slower of before and after); ` +
        `${loaded.latencies.length} pings with all 500 slow connections open: p50 ${at(loaded.latencies, 0.5).toFixed(1)} ms, ` +
        `p90 ${at(loaded.latencies, 0.9).toFixed(1)} ms, p99 ${at(loaded.latencies, 0.99).toFixed(1)} ms, max ${Math.max(...loaded.latencies).toFixed(1)} ms`,
    );
    assert.equal([...before.failures, ...loaded.failures, ...after.failures], [], "every ping was answered 200");
    assert.ok(loaded.latencies.length >= 100, `${loaded.latencies.length} pings while every slow connection was open (at least 100)`);
    // a server that handled the slow connections in its request path would be many times slower; the
    // baseline's spread on a busy machine stays within these factors (absolute figures: bench/)
    assert.ok(
      at(loaded.latencies, 0.5) <= 3 * reference(0.5),
      `median ${at(loaded.latencies, 0.5).toFixed(1)} ms against ${reference(0.5).toFixed(1)} ms alone`,
    );
    assert.ok(
      at(loaded.latencies, 0.9) <= 4 * reference(0.9),
      `90th percentile ${at(loaded.latencies, 0.9).toFixed(1)} ms against ${reference(0.9).toFixed(1)} ms alone`,
    );
    assert.equal(all.filter((w) => !w.closed).length, 0, "the server dropped every slow connection");
    const answers = new Set(all.map((w) => w.answer.split("\r\n")[0]));
    assert.ok(
      [...answers].every((a) => a === "" || a === "HTTP/1.1 408 Request Timeout"),
      [...answers].join(", "),
    );

    // nothing lost: every acknowledged ping is in the log, and nothing else was counted
    const acknowledged = [...before.acknowledged, ...loaded.acknowledged, ...after.acknowledged];
    const { pings: log } = await ok<{ pings: { rid: string }[] }>(call(server.url, "GET", `/api/v3/checks/${uuid}/pings/`, { key }));
    const logged = new Set(log.map((p) => p.rid)); // the newest 1,000: every ping made while the slow connections were open
    assert.ok(
      loaded.acknowledged.every((rid) => logged.has(rid)),
      "every ping acknowledged meanwhile is in the log",
    );
    const check = await ok<{ n_pings: number }>(call(server.url, "GET", `/api/v3/checks/${uuid}`, { key }));
    assert.is(check.n_pings, 50 + acknowledged.length, "no trickled body became a ping");
    assert.equal(troubleIn(server.output()), [], server.output());
  } finally {
    await stopServer(server);
    dir.remove();
  }
});

test("past MAX_CONNECTIONS a new connection is closed, and idle kept-alive connections give way to new clients", async () => {
  const dir = tempDir();
  const server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, MAX_CONNECTIONS: "100" } });
  try {
    const keptAlive = (await Promise.all(Array.from({ length: 100 }, () => openSocket(server.port)))).map(watch);
    await Promise.all(
      keptAlive.map(
        (w) =>
          new Promise<void>((resolve) => {
            w.socket.once("data", () => resolve());
            w.socket.write("GET /api/v3/status/ HTTP/1.1\r\nHost: x\r\n\r\n");
          }),
      ),
    );
    const refused = await freshRequest(server.url, "GET", "/api/v3/status/");
    assert.ok("error" in refused, `the connection past the cap was closed: ${JSON.stringify(refused)}`);
    // the refusal closed the idle kept-alive connections: wait for that, then new clients are served
    for (let waited = 0; waited < 600 && keptAlive.some((w) => !w.closed); waited++) await sleep(100); // a failure deadline
    assert.equal(keptAlive.filter((w) => !w.closed).length, 0, "the idle kept-alive connections were closed");
    const served = await freshRequest(server.url, "GET", "/api/v3/status/");
    assert.ok("status" in served && served.status === 200, JSON.stringify(served));
    assert.equal(troubleIn(server.output()), [], server.output());
  } finally {
    await stopServer(server);
    dir.remove();
  }
});

test.run();
