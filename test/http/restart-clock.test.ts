// Time across restarts, in real processes (CONTRACT "hcd's own downtime and clock"): a virtual clock
// resumes where it stood, a real clock never stamps a ping before the previous run's mark (a system
// clock stepped back), and a start after a downtime logs it once.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";
import type { RealServer } from "../security/real-server.ts";

const TOKEN = "restart-clock-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };

/** A real clock's mark as a previous run leaves it in DATA_DIR/clock: "hcdr", then the instant (float64, big-endian). */
function writeRealMark(dataDir: string, at: number): void {
  const bytes = Buffer.alloc(12);
  bytes.write("hcdr", 0, "latin1");
  bytes.writeDoubleBE(at, 4);
  writeFileSync(join(dataDir, "clock"), bytes);
}

async function pingDates(server: RealServer, key: string, uuid: string): Promise<number[]> {
  const page = await ok<{ pings: { date: string }[] }>(call(server.url, "GET", `/api/v3/checks/${uuid}/pings/`, { key }));
  return page.pings.map((p) => Date.parse(p.date)).reverse(); // oldest first
}

test("CLOCK=virtual resumes after a restart from where it stood: a later ping is logged after an earlier one", async () => {
  const dir = tempDir();
  const env = { ADMIN_TOKEN: TOKEN, CLOCK: "virtual" };
  let server = await startServer({ dataDir: dir.path, env });
  try {
    const project = await createProject(server, TOKEN, { name: "virtual" });
    const check = await ok<{ uuid: string }>(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "job" } }));
    const { now } = await ok<{ now: string }>(
      call(server.url, "POST", "/admin/v1/clock", { headers: admin, body: { advance: 30 * 86_400 } }),
    );
    assert.is((await call(server.url, "GET", `/ping/${check.uuid}`)).status, 200);
    assert.is(await stopServer(server), 0, server.output());

    server = await startServer({ dataDir: dir.path, env });
    const resumed = await ok<{ now: string }>(call(server.url, "GET", "/admin/v1/clock", { headers: admin }));
    assert.is(resumed.now, now, "the clock stands where it was, 30 days ahead of the real one");
    await ok(call(server.url, "POST", "/admin/v1/clock", { headers: admin, body: { advance: 60 } }));
    assert.is((await call(server.url, "GET", `/ping/${check.uuid}`)).status, 200);
    const [first, second] = await pingDates(server, project.api_key, check.uuid);
    assert.is(second - first, 60_000);
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    dir.remove();
  }
});

test("a real clock behind the previous run's mark stamps nothing before the mark", async () => {
  const dir = tempDir();
  const aheadAt = Date.now() + 3_600_000; // as if the system clock had been stepped back an hour since
  writeRealMark(dir.path, aheadAt);
  const server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, CLOCK: "real" } });
  try {
    const project = await createProject(server, TOKEN, { name: "stepped back" });
    const check = await ok<{ uuid: string }>(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "job" } }));
    assert.is((await call(server.url, "GET", `/ping/${check.uuid}`)).status, 200);
    const [stamped] = await pingDates(server, project.api_key, check.uuid);
    assert.ok(stamped >= Math.floor(aheadAt / 1000) * 1000, `ping stamped ${aheadAt - stamped} ms before the mark`);
    assert.not.match(server.output(), /was not running/, "no downtime: the mark is ahead of the clock");
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    dir.remove();
  }
});

test("a start after a downtime logs it once, with its length", async () => {
  const dir = tempDir();
  writeRealMark(dir.path, Date.now() - 600_000);
  const server = await startServer({ dataDir: dir.path, env: { ADMIN_TOKEN: TOKEN, CLOCK: "real" } });
  try {
    const lines = server
      .output()
      .split("\n")
      .filter((line) => line.includes("was not running"));
    assert.is(lines.length, 1, server.output());
    assert.match(lines[0], /hcd was not running for 60\d s: 0 check\(s\)/);
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    dir.remove();
  }
});

test.run();
