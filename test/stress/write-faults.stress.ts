// Store write failures under load, on the real server (NODE_ENV=test arms persistence/write-faults.ts in
// it): the shards' command log and the intake log fail in turn (EIO, ENOSPC) while pings keep coming,
// and recover; at the end the shards' log fails once more and the server is killed (SIGKILL) meanwhile.
// After a restart every acknowledged ping is in its check's log, once, and each check's n_pings counts
// its log. The status endpoint answers 500 while a fault lasts and 200 once it is gone.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { join } from "node:path";
import { INTAKE_DIR } from "../../persistence/intake.ts";
import { LOG_DIR } from "../../persistence/open.ts";
import { setWriteFault } from "../../persistence/write-faults.ts";
import type { FaultCode } from "../../persistence/write-faults.ts";
import { tempDir } from "../helpers.ts";
import type { RealServer } from "../security/real-server.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";
import { lostPings, newTally, pingUntil, sleep } from "./load.ts";
import type { PingTally } from "./load.ts";

const TOKEN = "write-faults-stress-admin-token-01234";
const CHECKS = 24;
const CYCLES: [dir: string, code: FaultCode][] = [
  [LOG_DIR, "EIO"],
  [INTAKE_DIR, "ENOSPC"],
  [LOG_DIR, "ENOSPC"],
  [INTAKE_DIR, "EIO"],
];

const acknowledged = (tally: PingTally) => [...tally.acknowledged.values()].reduce((sum, rids) => sum + rids.size, 0);

/** Polls `probe` every 50 ms until it returns true; throws after `ms`. */
async function until(what: string, ms: number, probe: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await sleep(50);
  }
}

test("log and intake writes failing in turn under load, then a kill while the shards' log fails: no acknowledged ping lost or counted twice", async () => {
  const dir = tempDir();
  let server: RealServer | null = null;
  try {
    server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, SHARDS: "2", NODE_ENV: "test" } });
    const url = server.url;
    const project = await createProject(server, TOKEN, { name: "faults", ping_log_limit: 1000, check_limit: 100 });
    const uuids: string[] = [];
    for (let i = 0; i < CHECKS; i++)
      uuids.push(
        (await ok<{ uuid: string }>(call(url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: `c${i}` } }))).uuid,
      );
    const status = async () => (await call(url, "GET", "/api/v3/status/")).status;
    const tally = newTally(uuids);
    let stopped = false;
    const load = pingUntil({ url, uuids, clients: 4, tally, stop: () => stopped });

    const refusedDuring: Record<string, number> = {};
    for (const [target, code] of CYCLES) {
      const faultDir = join(dir.path, target);
      const answeredBefore = tally.answered,
        refusedBefore = tally.statuses.get(500) ?? 0;
      setWriteFault(faultDir, code);
      await until(`status 500 with ${target} failing (${code})`, 20_000, async () => (await status()) === 500);
      await until("100 pings answered during the fault", 20_000, () => tally.answered >= answeredBefore + 100);
      setWriteFault(faultDir, null);
      await until(`status 200 once ${target} takes writes`, 60_000, async () => (await status()) === 200);
      refusedDuring[`${target} ${code}`] = (tally.statuses.get(500) ?? 0) - refusedBefore;
      const ackedAfter = acknowledged(tally);
      await until("100 pings acknowledged after the fault", 20_000, () => acknowledged(tally) >= ackedAfter + 100);
    }
    // a crash while the shards' log fails: what was acknowledged meanwhile is only in the intake log
    setWriteFault(join(dir.path, LOG_DIR), "EIO");
    await until("status 500 before the kill", 20_000, async () => (await status()) === 500);
    const ackedBeforeKill = acknowledged(tally);
    await until("100 pings acknowledged with the shards' log failing", 20_000, () => acknowledged(tally) >= ackedBeforeKill + 100);
    server.child.kill("SIGKILL");
    await server.exited;
    stopped = true;
    await load;
    setWriteFault(join(dir.path, LOG_DIR), null);

    server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, SHARDS: "2" } });
    const { lost, acknowledged: total } = await lostPings(server.url, project.api_key, tally);
    const miscounted: string[] = [];
    for (const uuid of uuids) {
      const { pings } = await ok<{ pings: { rid: string }[] }>(
        call(server.url, "GET", `/api/v3/checks/${uuid}/pings/`, { key: project.api_key }),
      );
      const check = await ok<{ n_pings: number }>(call(server.url, "GET", `/api/v3/checks/${uuid}`, { key: project.api_key }));
      if (new Set(pings.map((p) => p.rid)).size !== pings.length || check.n_pings !== pings.length)
        miscounted.push(`${uuid}: n_pings ${check.n_pings}, log ${pings.length}`);
    }
    console.log(
      `  write faults under load: ${tally.answered} pings answered, ${total} acknowledged, statuses ${JSON.stringify(Object.fromEntries(tally.statuses))}; ` +
        `refused during each fault ${JSON.stringify(refusedDuring)}; ${lost.length} lost after the kill and restart`,
    );
    assert.equal(lost, [], "every acknowledged ping is in its check's log");
    assert.equal(miscounted, [], "each ping counted once");
    assert.ok(
      refusedDuring[`${INTAKE_DIR} ENOSPC`] > 0 && refusedDuring[`${INTAKE_DIR} EIO`] > 0,
      "pings were refused while the intake log failed",
    );
    assert.equal(
      [...tally.statuses.keys()].filter((s) => s !== 200 && s !== 500),
      [],
      "only 200 and 500",
    );
  } finally {
    if (server?.alive()) await stopServer(server);
    dir.remove();
  }
});

test.run();
