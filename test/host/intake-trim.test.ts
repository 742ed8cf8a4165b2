// The intake log lets go of what every shard has committed: its older segments go while pings keep
// coming (the directory stays small however many pings pass), and nothing acknowledged is lost by it.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { createInProcessPool } from "../../app/pools.ts";
import type { PoolOptions } from "../../app/pools.ts";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import type { Pool } from "../../host/pool-api.ts";
import { INTAKE_DIR } from "../../persistence/intake.ts";
import { tempDir } from "../helpers.ts";

const T0 = Date.UTC(2026, 0, 1);

const options = (dataDir: string): PoolOptions => ({ dataDir, shards: 2, durability: "flush", startAt: T0, clock: "virtual", intakeTrimEveryMs: 20,
  notify: { siteRoot: "http://localhost", allowPrivateIps: true, smtpUrl: null } });

/** The numbers of the intake segments on disk, lowest first. */
const segments = (dataDir: string) => readdirSync(join(dataDir, INTAKE_DIR)).filter((f) => f.endsWith(".log"))
  .map((f) => Number(/_(\d+)\.log$/.exec(f)?.[1] ?? -1)).sort((a, b) => a - b);

test("older intake segments go once every shard has committed them; every acknowledged ping is kept", async () => {
  const dir = tempDir();
  let pool: Pool = await createInProcessPool(options(dir.path));
  try {
    const project = await pool.createProject({ name: "p", checkLimit: 10, pingLogLimit: 1000, pingBodyLimit: 100 }, T0);
    const made = await pool.createCheck(project.id, { name: "busy", timeoutMs: DAY, graceMs: HOUR }, [], T0);
    if (!made.ok) throw new Error("no check");
    const uuid = made.value.check.uuid;
    let sent = 0;
    const ping = async () => {
      sent += 1;
      await pool.ping(project.id, { target: { uuid }, signal: "success", exitStatus: null, method: "GET", scheme: "http", remoteAddr: "10.0.0.1",
        ua: "job", rid: null, body: null, at: T0 + sent * MINUTE });
    };
    // pings keep coming; the segments roll at each trim and the older ones must go: the first is gone
    // while a fifth is written
    const giveUpAt = Date.now() + 10_000;
    for (;;) {
      await ping();
      const now = segments(dir.path);
      if (now[0] > 1 && now.at(-1)! >= 5) break;
      if (Date.now() > giveUpAt) assert.unreachable(`segments on disk after ${sent} pings: ${JSON.stringify(now)}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // once the pings stop, what is left shrinks to the segment being written and at most one before it
    // (how many pile up meanwhile depends on how fast the shards commit, so only the end state is asserted)
    let left = segments(dir.path);
    while (left.length > 2) {
      if (Date.now() > giveUpAt + 10_000) assert.unreachable(`segments left after the pings stopped: ${JSON.stringify(left)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      left = segments(dir.path);
    }
    await pool.close();

    pool = await createInProcessPool(options(dir.path));
    const page = await pool.listPings(project.id, uuid);
    assert.ok(page.ok);
    assert.is(page.value.check.nPings, sent, "every acknowledged ping kept, once");
  } finally {
    await pool.close();
    dir.remove();
  }
});

test.run();
