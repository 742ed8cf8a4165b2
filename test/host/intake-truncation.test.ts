import "../write-faults-on.ts"; // first: arms persistence/write-faults.ts here and in the child it starts (NODE_ENV)
// The intake log lets go of a segment only once every shard has committed its pings: while a shard's
// commits fail (its command log's writes fail), pings are still acknowledged from the intake log and the
// segments holding them stay however often the log rolls and trims; a crash then loses none of them.
// A real pool in a child process (pool-driver.ts) killed with SIGKILL, real files in a temp DATA_DIR.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { join } from "node:path";
import { DAY, HOUR, MINUTE } from "../../engine/model.ts";
import { segmentFiles } from "../../persistence/file-log.ts";
import { INTAKE_DIR, readIntake } from "../../persistence/intake.ts";
import { LOG_DIR } from "../../persistence/open.ts";
import { setWriteFault } from "../../persistence/write-faults.ts";
import type { DriverRead } from "./pool-driver.ts";
import { started } from "./pool-against-model.ts";
import { T0 } from "../engine/reference-model.ts";
import { tempDir } from "../helpers.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The highest intake segment number on disk (0: none). */
const lastSegment = (dataDir: string) => Math.max(0, ...segmentFiles(join(dataDir, INTAKE_DIR)).map((f) => f.segment));
const ping = () => ({ kind: "ping", check: 0, signal: "success", exitStatus: null, rid: null, method: "GET", body: "" });

test("no intake segment goes while a shard has not committed its pings; a crash then loses no acknowledged ping", async () => {
  const dir = tempDir("hcd-intake-trunc-");
  let driver = await started(dir.path, T0);
  try {
    const { projectId, uuids } = await driver.request<{ projectId: string; uuids: string[] }>({
      op: "setup",
      specs: [{ name: "c", timeoutMs: DAY, graceMs: HOUR }],
      at: T0,
    });
    let sent = 0;
    const send = async () => {
      sent += 1;
      assert.ok(
        await driver.request<boolean>({ op: "step", step: ping(), at: T0 + sent * MINUTE, projectId, uuids }),
        `ping ${sent} acknowledged`,
      );
    };
    await send(); // committed by its shard as usual
    await driver.request({ op: "read", projectId, uuids }); // a read makes the shard commit it first

    // the shard's commits fail from here on; its pings are acknowledged from the intake log alone
    setWriteFault(join(dir.path, LOG_DIR), "EIO");
    const firstHeld = sent + 1;
    const from = lastSegment(dir.path);
    // the log rolls at every trim (every 20 ms in the driver) once a ping comes after it: keep pinging
    // until four trims have rolled it, each of which had the chance to let the older segments go
    const giveUpAt = Date.now() + 20_000;
    while (lastSegment(dir.path) < from + 4) {
      if (Date.now() > giveUpAt) assert.unreachable(`the intake log did not roll: segment ${lastSegment(dir.path)} after ${sent} pings`);
      await send();
      await sleep(5);
    }
    await send(); // one more after the last roll: a trim that let go of what it must not had time to run
    await sleep(50);

    // on disk: every ping no commit holds is still in the intake log
    const writers = [...new Set(segmentFiles(join(dir.path, INTAKE_DIR)).map((f) => f.writer))]; // the child's, running
    const kept = new Set(writers.flatMap((writer) => readIntake(dir.path, writer)).map(({ entry }) => entry.command.at));
    const missing = [];
    for (let n = firstHeld; n <= sent; n++) if (!kept.has(T0 + n * MINUTE)) missing.push(n);
    assert.equal(missing, [], `pings ${firstHeld}..${sent} (uncommitted) still in the intake log`);

    await driver.crash();
    setWriteFault(join(dir.path, LOG_DIR), null);
    driver = await started(dir.path, T0 + (sent + 1) * MINUTE);
    const [read] = await driver.request<DriverRead[]>({ op: "read", projectId, uuids });
    assert.is(read.check.nPings, sent, "every acknowledged ping counted after the crash");
    assert.equal(
      read.pings.map((p) => p.at),
      Array.from({ length: sent }, (_, i) => T0 + (i + 1) * MINUTE),
      "and logged once, in order",
    );
    await driver.request({ op: "close" });
    await driver.exited;
  } finally {
    await driver.crash().catch(() => {});
    dir.remove();
  }
});

test.run();
