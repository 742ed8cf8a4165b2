// Resource limits of the real server: slow clients (headers dribbled byte by byte) are cut by the headers
// timeout without holding the server; 500 idle connections do not starve pings (pings meanwhile against
// pings without them, measured before and after in the same test, whatever the machine's load); a 50 MB ping body is cut
// to the project's limit as it streams, never buffered whole (RSS watched through /proc); API bodies over
// the limit get 413 JSON, declared or streamed.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { connect } from "node:net";
import type { Socket } from "node:net";
import { request } from "node:http";
import { tempDir } from "../helpers.ts";
import type { RealServer } from "../security/real-server.ts";
import { call, createProject, ok, rssKb, startServer, stopServer, troubleIn } from "../security/real-server.ts";
import { freshRequest, sleep } from "./load.ts";

const TOKEN = "limits-stress-admin-token-0123456789";
const dir = tempDir();
let server: RealServer;
let apiKey = "";
let uuid = "";

test.before(async () => {
  server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
  const project = await createProject(server, TOKEN, { name: "limits", ping_log_limit: 10_000 });
  apiKey = project.api_key;
  uuid = (await ok<{ uuid: string }>(call(server.url, "POST", "/api/v3/checks/", { key: apiKey, body: { name: "c" } }))).uuid;
});

test.after(async () => {
  if (server) await stopServer(server);
  dir.remove();
});

/** Pings `count` times in sequence on fresh connections; returns the latencies in ms (throws on a non-200). */
async function pingLatencies(count: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const outcome = await freshRequest(server.url, "GET", `/ping/${uuid}`);
    latencies.push(performance.now() - started);
    assert.ok("status" in outcome && outcome.status === 200, JSON.stringify(outcome));
  }
  return latencies;
}

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];

/**
 * Asserts that `during` (ping latencies while something ran) are no slower than pings without it, the slower
 * of `before` and `after` at each percentile: a median within 3 times, a 90th percentile within 4 times (a
 * server held by what ran would be many times slower; a busy machine's spread stays within these).
 */
function noSlowerThan(during: number[], before: number[], after: number[], what: string): void {
  for (const [p, factor] of [
    [0.5, 3],
    [0.9, 4],
  ] as const) {
    const reference = Math.max(percentile(before, p), percentile(after, p));
    assert.ok(
      percentile(during, p) <= factor * reference,
      `${what}: ${p * 100}th percentile ${percentile(during, p).toFixed(1)} ms against ${reference.toFixed(1)} ms without`,
    );
  }
}

function openSocket(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port: server.port, host: "127.0.0.1" }, () => resolve(socket));
    socket.on("error", reject);
  });
}

test("slow clients dribbling headers byte by byte are cut by the headers timeout (10 s) while pings stay fast", async () => {
  const SLOW = 50;
  const before = await pingLatencies(100);
  const cutAt: (number | null)[] = Array(SLOW).fill(null);
  const answers: string[] = Array(SLOW).fill("");
  const started = Date.now();
  const sockets = await Promise.all(Array.from({ length: SLOW }, () => openSocket()));
  sockets.forEach((socket, i) => {
    socket.on("data", (chunk) => {
      answers[i] += chunk.toString("latin1");
    });
    socket.on("close", () => {
      cutAt[i] = Date.now() - started;
    });
    socket.on("error", () => {});
  });
  const text = `GET /ping/${uuid} HTTP/1.1\r\nHost: x\r\n` + "X-Slow: y\r\n".repeat(200);
  let dribbling = true;
  const dribble = (async () => {
    for (let i = 0; dribbling && i < text.length; i++) {
      for (const socket of sockets) if (!socket.destroyed) socket.write(text[i]);
      await sleep(100);
    }
  })();
  const latencies = await pingLatencies(200);
  while (cutAt.some((at) => at === null) && Date.now() - started < 120_000) await sleep(200); // a failure deadline
  dribbling = false;
  await dribble;
  for (const socket of sockets) socket.destroy();
  const after = await pingLatencies(100);
  const cut = cutAt.filter((at): at is number => at !== null);
  console.log(
    `  slow clients: ${cut.length}/${SLOW} cut after ${Math.min(...cut)}–${Math.max(...cut)} ms; ` +
      `200 pings meanwhile: p50 ${percentile(latencies, 0.5).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`,
  );
  assert.is(cut.length, SLOW, "every slow client was cut");
  // by the headers timeout (10 s), not the request timeout (60 s), while they were still sending
  assert.ok(Math.max(...cut) < 60_000, `cut before the request timeout: ${Math.max(...cut)} ms`);
  assert.ok(
    answers.every((a) => a === "" || a.startsWith("HTTP/1.1 408")),
    "cut with 408 Request Timeout",
  );
  noSlowerThan(latencies, before, after, "pings while slow clients dribbled");
});

test("500 idle connections and 500 idle kept-alive connections do not starve pings", async () => {
  const before = await pingLatencies(100);
  const idle = await Promise.all(Array.from({ length: 500 }, () => openSocket()));
  const keptAlive = await Promise.all(Array.from({ length: 500 }, () => openSocket()));
  await Promise.all(
    keptAlive.map(
      (socket) =>
        new Promise<void>((resolve) => {
          socket.once("data", () => resolve());
          socket.write(`GET /api/v3/status/ HTTP/1.1\r\nHost: x\r\n\r\n`);
        }),
    ),
  );
  for (const socket of [...idle, ...keptAlive]) socket.on("error", () => {});
  const latencies = await pingLatencies(300);
  const concurrent = await Promise.all(Array.from({ length: 100 }, () => freshRequest(server.url, "POST", `/ping/${uuid}`, "x")));
  const open = [...idle, ...keptAlive].filter((s) => !s.destroyed).length;
  for (const socket of [...idle, ...keptAlive]) socket.destroy();
  const after = await pingLatencies(100);
  console.log(
    `  1000 idle connections (${open} still open during the pings): 300 pings p50 ${percentile(latencies, 0.5).toFixed(1)} ms, ` +
      `p99 ${percentile(latencies, 0.99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms; 100 concurrent pings all answered`,
  );
  assert.ok(concurrent.every((o) => "status" in o && o.status === 200));
  noSlowerThan(latencies, before, after, "pings beside 1000 idle connections");
});

/** Streams `totalBytes` in 64 kB chunks as a chunked request body; samples the server's RSS meanwhile. */
function streamBody(
  path: string,
  totalBytes: number,
  opts: { chunked: boolean },
): Promise<{ status: number; body: string; ms: number; peakKb: number }> {
  const chunk = Buffer.alloc(64 * 1024, "a");
  let peakKb = rssKb(server.pid);
  const sampler = setInterval(() => {
    peakKb = Math.max(peakKb, rssKb(server.pid));
  }, 25);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { "x-api-key": apiKey, "content-type": "application/json" };
    if (!opts.chunked) headers["content-length"] = String(totalBytes);
    const req = request(server.url + path, { method: "POST", headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        body += c;
      });
      res.on("end", () => {
        clearInterval(sampler);
        resolve({ status: res.statusCode ?? 0, body, ms: Date.now() - started, peakKb });
      });
    });
    req.on("error", (error) => {
      clearInterval(sampler);
      reject(error);
    });
    let sent = 0;
    const pump = () => {
      while (sent < totalBytes) {
        const part = sent + chunk.length <= totalBytes ? chunk : chunk.subarray(0, totalBytes - sent);
        sent += part.length;
        if (!req.write(part)) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}

test("50 MB and 200 MB ping bodies stream through with bounded memory and only the project's limit is stored", async () => {
  const MB = 1024 * 1024;
  await pingLatencies(20); // warm up
  const startKb = rssKb(server.pid);
  for (const [size, chunked] of [
    [50 * MB, true],
    [50 * MB, false],
    [200 * MB, false],
  ] as const) {
    const result = await streamBody(`/ping/${uuid}/log`, size, { chunked });
    const growthMb = (result.peakKb - startKb) / 1024;
    console.log(
      `  ${size / MB} MB ping body (${chunked ? "chunked" : "content-length"}): ${result.status} in ${result.ms} ms; RSS ${(startKb / 1024).toFixed(0)} MB → peak ${(result.peakKb / 1024).toFixed(0)} MB (+${growthMb.toFixed(1)} MB)`,
    );
    assert.is(result.status, 200, result.body);
    // Discarded chunks are freed only when V8 collects their wrappers, which it forces once external
    // memory has grown by about 64 MB, so RSS lags by up to that much whatever the body's size. A
    // buffered 200 MB body would add at least 200 MB: a bound under half of that shows streaming.
    assert.ok(growthMb < 96, `the body was not buffered: +${growthMb.toFixed(1)} MB of ${size / MB} MB`);
  }
  const { pings } = await ok<{ pings: { n: number; body_url: string | null }[] }>(
    call(server.url, "GET", `/api/v3/checks/${uuid}/pings/`, { key: apiKey }),
  );
  const stored = await call(server.url, "GET", new URL(pings[0].body_url ?? "").pathname, { key: apiKey });
  assert.is(stored.text.length, 10_000, "cut to ping_body_limit (default 10 000 bytes)");
});

/** Sends a POST with a body of `totalBytes` on a raw socket, writing until the server answers or closes; returns what came back. */
function uploadRaw(
  path: string,
  totalBytes: number,
  opts: { chunked: boolean },
): Promise<{ status: number | null; body: string; ms: number; sentBytes: number; peakKb: number }> {
  const chunk = Buffer.alloc(64 * 1024, "a");
  let peakKb = rssKb(server.pid);
  const sampler = setInterval(() => {
    peakKb = Math.max(peakKb, rssKb(server.pid));
  }, 25);
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect({ port: server.port, host: "127.0.0.1" });
    let received = "";
    let sent = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearInterval(sampler);
      socket.destroy();
      const status = /^HTTP\/1\.1 (\d{3})/.exec(received);
      resolve({
        status: status ? Number(status[1]) : null,
        body: received.split("\r\n\r\n").slice(1).join("\r\n\r\n"),
        ms: Date.now() - started,
        sentBytes: sent,
        peakKb,
      });
    };
    socket.on("data", (data) => {
      received += data.toString("latin1");
      if (/\r\n\r\n/.test(received) && (/\r\n0\r\n\r\n$/.test(received) || /content-length: (\d+)/i.test(received))) setTimeout(finish, 50);
    });
    socket.on("close", finish);
    socket.on("error", finish);
    const framing = opts.chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${totalBytes}`;
    socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${apiKey}\r\n${framing}\r\nConnection: close\r\n\r\n`);
    const pump = () => {
      while (!done && sent < totalBytes) {
        const part = chunk.subarray(0, Math.min(chunk.length, totalBytes - sent));
        sent += part.length;
        const wrote = opts.chunked
          ? socket.write(Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from("\r\n")]))
          : socket.write(part);
        if (!wrote) return void socket.once("drain", pump);
      }
      if (!done && opts.chunked) socket.write("0\r\n\r\n");
    };
    pump();
  });
}

test("API bodies over the 64 kB limit answer 413 JSON, declared or streamed, without buffering them", async () => {
  const MB = 1024 * 1024;
  const startKb = rssKb(server.pid);
  for (const [bytes, chunked] of [
    [65 * 1024, false],
    [65 * 1024, true],
    [50 * MB, false],
    [50 * MB, true],
  ] as const) {
    const result = await uploadRaw("/api/v3/checks/", bytes, { chunked });
    console.log(
      `  API body of ${(bytes / 1024).toFixed(0)} kB (${chunked ? "chunked" : "declared"}): ${result.status} after ${(result.sentBytes / 1024).toFixed(0)} kB sent, ${result.ms} ms; ` +
        `server RSS ${(startKb / 1024).toFixed(0)} MB → peak ${(result.peakKb / 1024).toFixed(0)} MB`,
    );
    if (result.status === null) {
      // What this is: the server answers 413 and closes at once, with the rest of the body unread (it must
      // not read 50 MB it will refuse). A client still sending then gets a TCP reset, which may discard
      // the 413 before the client reads it (no lingering close). So: a 413, or a cut made long before the
      // end of a large body, never a 2xx nor a server that takes the whole upload.
      assert.ok(bytes > MB, `a ${bytes}-byte body got no answer`);
      assert.ok(result.sentBytes < bytes / 2, `the server took ${result.sentBytes} of ${bytes} bytes before cutting`);
    } else {
      assert.is(result.status, 413, result.body);
      assert.match(result.body, /"error":"request body larger than 65536 bytes"/);
    }
    assert.ok(result.peakKb - startKb < 64 * 1024, "not buffered");
  }
  const { checks } = await ok<{ checks: unknown[] }>(call(server.url, "GET", "/api/v3/checks/", { key: apiKey }));
  assert.is(checks.length, 1, "nothing was created");
});

test("the server is alive afterwards and logged no unexpected error", async () => {
  assert.ok(server.alive());
  assert.is((await call(server.url, "GET", "/api/v3/status/")).status, 200);
  assert.equal(troubleIn(server.output()), [], server.output());
});

test.run();
