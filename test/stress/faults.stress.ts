// Faults of the real server under load:
// - a shard worker that throws, exits or is terminated → the process exits 70 with a message on stderr
//   (for a supervisor), and after a restart every acknowledged ping is stored;
// - SIGTERM mid-load → exit 0, every acknowledged ping stored after a restart, and no request that had
//   started is cut (fresh connections: refused = never started; reset = started and cut).
// The worker faults come from a test-only --import hook (worker-fault-hook.ts), not from the server.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { fileURLToPath } from "node:url";
import { tempDir } from "../helpers.ts";
import type { RealServer } from "../security/real-server.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";
import type { PingTally } from "./load.ts";
import { keptAliveRequest, lostPings, newTally, pingUntil, processedButCut, sleep } from "./load.ts";

const TOKEN = "faults-stress-admin-token-0123456789";
const HOOK = fileURLToPath(new URL("./worker-fault-hook.js", import.meta.url));
const CHECKS = 24;

async function setUp(server: RealServer): Promise<{ apiKey: string; uuids: string[] }> {
  const project = await createProject(server, TOKEN, { name: "load", ping_log_limit: 1000, check_limit: 100 });
  const uuids: string[] = [];
  for (let i = 0; i < CHECKS; i++) {
    uuids.push(
      (await ok<{ uuid: string }>(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: `c${i}` } }))).uuid,
    );
  }
  return { apiKey: project.api_key, uuids };
}

/** Waits until `answered()` reaches `count` (the load is real), polling; fails after a generous deadline. */
async function untilAnswered(answered: () => number, count: number): Promise<void> {
  const failAt = Date.now() + 120_000;
  while (answered() < count) {
    if (Date.now() > failAt) throw new Error(`only ${answered()} pings answered in 120 s`);
    await sleep(50);
  }
}

/** Restarts on the same DATA_DIR and returns the acknowledged pings that are missing. */
async function afterRestart(
  dataDir: string,
  apiKey: string,
  tally: PingTally,
  cutTally?: PingTally,
): Promise<{ lost: string[]; acknowledged: number; processedButCut: string[] }> {
  const again = await startServer({ dataDir, env: { ADMIN_TOKEN: TOKEN } });
  try {
    const { lost, acknowledged } = await lostPings(again.url, apiKey, tally);
    return { lost, acknowledged, processedButCut: cutTally ? await processedButCut(again.url, apiKey, cutTally) : [] };
  } finally {
    assert.is(await stopServer(again), 0);
  }
}

for (const fault of ["throw", "exit", "terminate"] as const) {
  test(`a shard worker that fails (${fault}) under load stops the process with exit 70 and a message; no acknowledged ping is lost`, async () => {
    const dir = tempDir();
    try {
      const server = await startServer({
        dataDir: dir.path,
        env: { ADMIN_TOKEN: TOKEN, HCD_TEST_FAULT: fault },
        nodeArgs: ["--import", HOOK],
      });
      const { apiKey, uuids } = await setUp(server);
      const tally = newTally(uuids);
      let stopped = false;
      const load = pingUntil({ url: server.url, uuids, clients: 32, tally, stop: () => stopped });
      await untilAnswered(() => tally.answered, 50);
      const faultAt = Date.now();
      server.child.kill("SIGUSR2");
      let deadline: NodeJS.Timeout | undefined;
      const exit = await Promise.race([
        server.exited,
        new Promise<null>((resolve) => {
          deadline = setTimeout(() => resolve(null), 120_000);
        }),
      ]); // a failure deadline
      clearTimeout(deadline);
      stopped = true;
      await load;
      assert.ok(exit !== null, `still running 120 s after the fault:\n${server.output()}`);
      assert.equal(exit, { code: 70, signal: null }, server.output());
      const message = fault === "throw" ? /hcd: shard 0 crashed: injected fault/ : /hcd: shard 0 crashed: exited with code \d/;
      assert.match(server.output(), message);
      const { lost, acknowledged } = await afterRestart(dir.path, apiKey, tally);
      console.log(
        `  worker fault "${fault}": exit 70 after ${Date.now() - faultAt} ms; ${acknowledged} pings acknowledged, ${lost.length} lost after restart; ${tally.reset} requests cut by the exit`,
      );
      assert.ok(acknowledged >= 50, `the load was real: ${acknowledged}`);
      assert.equal(lost, []);
    } finally {
      dir.remove();
    }
  });
}

test("SIGTERM mid-load: exit 0, every started request answered, every acknowledged ping stored after a restart", async () => {
  const dir = tempDir();
  try {
    const server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN } });
    const { apiKey, uuids } = await setUp(server);
    const fresh = newTally(uuids);
    const kept = newTally(uuids);
    let stopped = false;
    const loads = [
      pingUntil({ url: server.url, uuids, clients: 32, tally: fresh, stop: () => stopped }),
      pingUntil({ url: server.url, uuids, clients: 16, tally: kept, stop: () => stopped, send: keptAliveRequest }),
    ];
    await untilAnswered(() => fresh.answered + kept.answered, 100);
    const before = fresh.answered + kept.answered;
    const signalledAt = Date.now();
    const code = await stopServer(server);
    const shutdownMs = Date.now() - signalledAt;
    stopped = true;
    await Promise.all(loads);
    assert.is(code, 0, server.output());
    const fresh500 = [...fresh.statuses].filter(([s]) => s >= 500);
    const kept500 = [...kept.statuses].filter(([s]) => s >= 500);
    const {
      lost,
      acknowledged,
      processedButCut: cutAfterStart,
    } = await afterRestart(
      dir.path,
      apiKey,
      {
        ...fresh,
        acknowledged: new Map([...fresh.acknowledged].map(([u, r]) => [u, new Set([...r, ...(kept.acknowledged.get(u) ?? [])])])),
      },
      fresh,
    );
    console.log(
      `  SIGTERM under load: ${before} pings answered before the signal, ${fresh.answered + kept.answered} in all; ` +
        `fresh connections: ${fresh.answered} answered, ${fresh.refused} refused, ${fresh.reset} reset (${cutAfterStart.length} of them processed); ` +
        `kept-alive: ${kept.answered} answered, ${kept.refused} refused, ${kept.reset} reset; ` +
        `${acknowledged} acknowledged, ${lost.length} lost after restart; shutdown took ${shutdownMs} ms`,
    );
    // kept-alive resets are the HTTP/1.1 race of a request sent on a connection the server closes as idle;
    // they are reported, not asserted (reported as an open gap)
    assert.ok(before >= 100, `the load was real: ${before}`);
    assert.equal([fresh500, kept500], [[], []], "no 5xx during shutdown");
    assert.equal([fresh.other, kept.other], [[], []]);
    // A fresh connection still in the kernel's accept queue when the listener closes is reset before the
    // server ever reads it (and nothing is stored): no server can answer it. What must never happen is
    // a request the server processed losing its answer.
    assert.equal(cutAfterStart, [], "a request the server processed is always answered, never cut");
    assert.equal(lost, []);
  } finally {
    dir.remove();
  }
});

test.run();
