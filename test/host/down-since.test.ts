// An up flip's and a reminder's notification say since when the check was down: the host fills in the down
// flip's time from its commit or the flip log (engine/down-since.ts), through a real pool on a real store.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createInProcessPool } from "../../app/pools.ts";
import type { Pool } from "../../host/pool-api.ts";
import type { OutboxEntry } from "../../engine/changes.ts";
import { MINUTE } from "../../engine/model.ts";
import { pingOf } from "../../bench/scenarios.ts";
import { closedPort, tempDir } from "../helpers.ts";

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);

/** What the outbox says of each notification: direction or reminder, and since when the check was down. */
const shown = (entries: readonly OutboxEntry[]) =>
  entries
    .map((e) => [e.reminder !== undefined ? `reminder ${e.reminder}` : e.flip.to, e.downSinceAt])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));

test("a reminder and the up after it carry the down flip's time; the down itself carries none", async () => {
  const dir = tempDir();
  let pool: Pool | null = null;
  try {
    pool = await createInProcessPool({
      dataDir: dir.path,
      shards: 1,
      durability: "flush",
      startAt: T0,
      clock: "virtual",
      notify: { siteRoot: "http://localhost", allowPrivateIps: true, smtpUrl: `smtp://127.0.0.1:${await closedPort()}` },
    });
    const project = await pool.createProject({ name: "p", checkLimit: 10, pingLogLimit: 100, pingBodyLimit: 100 }, T0);
    const channel = await pool.addChannel(
      project.id,
      { name: "ops", kind: "email", value: { kind: "email", address: "ops@example.com" } },
      T0,
    );
    assert.ok(channel.ok);
    const created = await pool.createCheck(
      project.id,
      { name: "job", timeoutMs: MINUTE, graceMs: MINUTE, reminderIntervalMs: 10 * MINUTE, channels: { all: true } },
      [],
      T0,
    );
    if (!created.ok) throw new Error("no check");
    const uuid = created.value.check.uuid;
    await pool.ping(project.id, pingOf({ uuid }, T0));
    const downAt = T0 + 2 * MINUTE; // timeout and grace after the ping
    await pool.advance(downAt + 11 * MINUTE); // the down flip, then one reminder 10 minutes after it
    await pool.ping(project.id, pingOf({ uuid }, downAt + 12 * MINUTE)); // up again, in a commit of its own
    assert.equal(shown(await pool.listOutbox()), [
      ["down", null],
      ["reminder 1", downAt],
      ["up", downAt],
    ]);
  } finally {
    await pool?.close();
    dir.remove();
  }
});

test.run();
