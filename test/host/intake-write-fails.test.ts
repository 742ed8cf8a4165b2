import "../write-faults-on.ts"; // first: arms persistence/write-faults.ts here, and in the server it starts (NODE_ENV)
// The intake log's write fails (ENOSPC, EIO): the ping is not acknowledged (the pool rejects it with a
// StoreUnavailableError, the HTTP edge answers 500), the check does not count it, the status says so,
// and once the log takes writes again pings are acknowledged again; a restart holds exactly the
// acknowledged ones. In-process pool, and the real server over HTTP.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type { PingCommand } from "../../host/pool-api.ts";
import { createInProcessPool } from "../../app/pools.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import { INTAKE_DIR } from "../../persistence/intake.ts";
import { setWriteFault } from "../../persistence/write-faults.ts";
import { isStoreUnavailable } from "../../host/write-failures.ts";
import type { RealServer } from "../security/real-server.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";
import { tempDir } from "../helpers.ts";

const T0 = Date.UTC(2026, 0, 1);
const TOKEN = "intake-fault-admin-token-0123456789ab";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function ping(uuid: string, at: number): PingCommand {
  return {
    target: { uuid },
    signal: "success",
    exitStatus: null,
    method: "GET",
    scheme: "http",
    remoteAddr: "10.0.0.1",
    ua: "cron",
    rid: null,
    body: null,
    at,
  };
}

test("in-process: a failed intake write rejects the ping, which the check never counts; pings are taken again once writes succeed", async () => {
  const dir = tempDir();
  const intakeDir = join(dir.path, INTAKE_DIR);
  const pool = await createInProcessPool({
    dataDir: dir.path,
    shards: 2,
    durability: "flush",
    startAt: T0 + DAY,
    clock: "virtual",
    notify: { siteRoot: "http://localhost", allowPrivateIps: true, smtpUrl: null },
  });
  try {
    const project = await pool.createProject({ name: "p", checkLimit: 10, pingLogLimit: 100, pingBodyLimit: 100 }, T0);
    const created = await pool.createCheck(project.id, { name: "c", timeoutMs: HOUR, graceMs: MINUTE }, [], T0);
    if (!created.ok) throw new Error("no check");
    const uuid = created.value.check.uuid;
    assert.ok((await pool.ping(project.id, ping(uuid, T0 + MINUTE))).ok);

    setWriteFault(intakeDir, "EIO");
    for (let i = 0; i < 3; i++) {
      const error = await pool.ping(project.id, ping(uuid, T0 + (2 + i) * MINUTE)).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(isStoreUnavailable(error), `ping ${i} refused, not ${String(error)}`);
    }
    assert.ok(
      isStoreUnavailable(
        await pool.probe().then(
          () => null,
          (e: unknown) => e,
        ),
      ),
      "the probe fails while the intake log fails",
    );
    const during = await pool.getCheck(project.id, { uuid });
    assert.is(during.ok && during.value.nPings, 1, "no refused ping is counted");

    setWriteFault(intakeDir, null);
    let probed: unknown = "not yet";
    for (let i = 0; i < 300 && probed !== null; i++) {
      probed = await pool.probe().then(
        () => null,
        (e: unknown) => e,
      );
      if (probed !== null) await sleep(100);
    }
    assert.is(probed, null, "the probe succeeds once the intake log takes writes");
    assert.ok((await pool.ping(project.id, ping(uuid, T0 + 10 * MINUTE))).ok);
    const after = await pool.getCheck(project.id, { uuid });
    assert.is(after.ok && after.value.nPings, 2);
  } finally {
    setWriteFault(intakeDir, null);
    await pool.close();
    dir.remove();
  }
});

test("real server: a ping whose intake write fails answers 500 and is not in the log after a restart; the status is 500 until writes succeed", async () => {
  const dir = tempDir();
  const intakeDir = join(dir.path, INTAKE_DIR);
  const env = { ADMIN_TOKEN: TOKEN, SHARDS: "2", NODE_ENV: "test" };
  let server: RealServer | null = null;
  try {
    server = await startServer({ dataDir: dir.path, env });
    const running = server;
    const { api_key: key } = await createProject(running, TOKEN, { name: "intake" });
    const { uuid } = await ok<{ uuid: string }>(call(running.url, "POST", "/api/v3/checks/", { key, body: { name: "c" } }));
    const acknowledged: string[] = [];
    const pingOnce = async (rid: string) => (await call(running.url, "POST", `/ping/${uuid}?rid=${rid}`, { body: "run" })).status;
    for (let i = 0; i < 3; i++) {
      const rid = randomUUID();
      assert.is(await pingOnce(rid), 200);
      acknowledged.push(rid);
    }

    setWriteFault(intakeDir, "ENOSPC");
    for (let i = 0; i < 3; i++) assert.is(await pingOnce(randomUUID()), 500, "refused while the intake log fails");
    assert.is((await call(running.url, "GET", "/api/v3/status/")).status, 500);
    const during = await ok<{ n_pings: number }>(call(running.url, "GET", `/api/v3/checks/${uuid}`, { key }));
    assert.is(during.n_pings, 3, "the refused pings are not counted");

    setWriteFault(intakeDir, null);
    let status = 500;
    for (let i = 0; i < 300 && status !== 200; i++) {
      await sleep(100);
      status = (await call(running.url, "GET", "/api/v3/status/")).status;
    }
    assert.is(status, 200, "the status is OK again once the intake log takes writes");
    const rid = randomUUID();
    assert.is(await pingOnce(rid), 200);
    acknowledged.push(rid);

    assert.is(await stopServer(running), 0);
    server = await startServer({ dataDir: dir.path, env });
    const { pings } = await ok<{ pings: { rid: string }[] }>(call(server.url, "GET", `/api/v3/checks/${uuid}/pings/`, { key }));
    assert.equal(pings.map((p) => p.rid).sort(), [...acknowledged].sort(), "exactly the acknowledged pings");
  } finally {
    setWriteFault(intakeDir, null);
    if (server) await stopServer(server);
    dir.remove();
  }
});

test.run();
