import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { openStore } from "../../persistence/store.ts";
import type { Durability } from "../../persistence/open.ts";
import { tempDir } from "../helpers.ts";

const writerFile = fileURLToPath(new URL("./fixtures/crash-writer.js", import.meta.url));

/** Runs the writer until it has acknowledged `acks` commits, SIGKILLs it; returns the highest acknowledged n per check. */
function writeThenKill(dir: string, durability: Durability, acks: number): Promise<Map<number, number>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [writerFile, dir, durability], { stdio: ["ignore", "pipe", "inherit"] });
    const acked = new Map<number, number>();
    let count = 0,
      rest = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) {
        const [index, n] = line.split(" ").map(Number);
        acked.set(index, Math.max(acked.get(index) ?? 0, n));
        count += 1;
      }
      if (count >= acks) child.kill("SIGKILL");
    });
    child.once("error", reject);
    child.once("exit", (code, signal) => (signal === "SIGKILL" ? resolve(acked) : reject(new Error(`writer exited: ${code}`))));
  });
}

for (const durability of ["commit", "flush"] as const) {
  test(`after SIGKILL mid-loop (durability ${durability}) every acknowledged ping is there and nPings matches the log`, async () => {
    const dir = tempDir();
    for (let round = 0; round < 3; round++) {
      // crash, restart from what was stored, crash again
      const acked = await writeThenKill(dir.path, durability, 400);
      const store = await openStore(dir.path, { durability });
      try {
        const checks = store.loadChecks("p");
        assert.is(checks.length, 4);
        for (const c of checks) {
          const index = Number(c.uuid.split("-")[1]);
          const [newest] = store.pingPage(c.uuid, 1);
          assert.is(newest.n, c.nPings, `${c.uuid}: nPings agrees with the newest ping`);
          assert.ok(c.nPings >= (acked.get(index) ?? 0), `${c.uuid}: acknowledged ${acked.get(index)} is present`);
          assert.equal(
            store
              .pingPage(c.uuid, 1_000_000)
              .map((r) => r.n)
              .reverse(),
            Array.from({ length: c.nPings }, (_, i) => i + 1),
          );
          assert.equal(store.pingBody(c.uuid, c.nPings), new Uint8Array(200).fill(c.nPings % 256));
        }
      } finally {
        await store.close();
      }
    }
    dir.remove();
  });
}

test.run();
