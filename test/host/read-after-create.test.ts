// A check a slug ping makes (`?create=1`) is listed by its shard as soon as the shard applied the ping,
// before the commit is durable and the main thread's directory has learnt its uuid: every read by uuid
// must find it from the moment any list shows it (a client that lists, then asks for the check's pings,
// got 404 "check not found" in that window). A real in-process pool on a temp DATA_DIR; commits are
// flushed to disk, so the window is an fsync long.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createInProcessPool } from "../../app/pools.ts";
import { pingOf } from "../../bench/scenarios.ts";
import { tempDir } from "../helpers.ts";

test("a check made by a slug ping is found by uuid from the moment a list shows it", async () => {
  const dir = tempDir();
  const pool = await createInProcessPool({
    dataDir: dir.path,
    shards: 2,
    durability: "flush",
    startAt: Date.now(),
    clock: "real",
    notify: { siteRoot: "http://localhost", allowPrivateIps: true, smtpUrl: null },
  });
  try {
    const project = await pool.createProject({ name: "p", checkLimit: 100, pingLogLimit: 100, pingBodyLimit: 100 }, Date.now());
    let seenBeforeAnswer = 0;
    for (let n = 0; n < 20; n++) {
      const slug = `made-${n}`;
      let answered = false;
      const pinged = pool
        .ping(project.id, pingOf({ pingKey: project.pingKey, slug, create: true }, Date.now()))
        .finally(() => (answered = true));
      for (;;) {
        const [listed] = await pool.listChecks(project.id, { slug, tags: [] });
        if (listed !== undefined) {
          const before = !answered;
          const byUuid = await pool.getCheck(project.id, { uuid: listed.uuid });
          assert.ok(byUuid.ok, `${slug}, listed ${before ? "before" : "after"} the ping's answer: ${JSON.stringify(byUuid)}`);
          const pings = await pool.listPings(project.id, listed.uuid);
          assert.ok(pings.ok, `${slug}'s pings: ${JSON.stringify(pings.ok ? null : pings.failure)}`);
          if (before) seenBeforeAnswer++;
          break;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      assert.ok((await pinged).ok);
    }
    // the window was met (else the reads above proved nothing about it)
    assert.ok(seenBeforeAnswer > 0, "no list showed a new check before its ping was answered");
  } finally {
    await pool.close();
    dir.remove();
  }
});

test.run();
