// One process per DATA_DIR across PID namespaces (as two containers sharing a volume on one host): a
// second server started with `unshare --pid --fork --mount-proc` sees none of the first one's processes,
// yet exits 1 saying the directory is in use, and the first serves on with every acknowledged ping kept;
// and the other way round, a holder in another namespace killed with SIGKILL leaves the directory free.
// Needs unshare and the right to make a PID namespace (root): skips with one line otherwise, fails under
// HCD_REQUIRE_EXTRAS=1.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawnSync } from "node:child_process";
import { lockDataDir } from "../../persistence/data-dir-lock.ts";
import { tempDir } from "../helpers.ts";
import { admin, startRefused, startServer, stopServer } from "../ops/server-process.ts";

const UNSHARE = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"];

/** True when this process may start a program in a new PID namespace; else one SKIP line (or a throw under HCD_REQUIRE_EXTRAS=1). */
function mayUnshare(): boolean {
  const run = spawnSync(UNSHARE[0], [...UNSHARE.slice(1), "true"], { encoding: "utf8" });
  if (run.status === 0) return true;
  const why = `unshare --pid --fork --mount-proc is not permitted here (${run.error?.message ?? run.stderr.trim()})`;
  if (process.env.HCD_REQUIRE_EXTRAS === "1") throw new Error(`${why}; HCD_REQUIRE_EXTRAS=1`);
  console.log(`SKIP: a second server from another PID namespace: ${why}`);
  return false;
}

async function pings(server: Awaited<ReturnType<typeof startServer>>, uuid: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) assert.is((await fetch(`${server.url}/ping/${uuid}`)).status, 200);
}

/** Waits until nothing holds the lock of `dataDir` (the server dies just after unshare, its parent). */
async function freed(dataDir: string): Promise<void> {
  for (let tries = 0; ; tries++) {
    try {
      lockDataDir(dataDir).release();
      return;
    } catch (error) {
      if (tries >= 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

test("a second server from another PID namespace exits 1 with 'in use'; the first keeps serving and keeps every ping", async () => {
  if (!mayUnshare()) return;
  const dir = tempDir();
  const first = await startServer(dir.path);
  try {
    const project = (await admin(first, "POST", "/admin/v1/projects", { name: "p" })).json as { api_key: string };
    const check = (await (
      await fetch(`${first.url}/api/v3/checks/`, {
        method: "POST",
        headers: { "x-api-key": project.api_key },
        body: JSON.stringify({ name: "c" }),
      })
    ).json()) as { uuid: string };
    await pings(first, check.uuid, 20); // in the first one's intake log, which a second one must not replay or remove

    const second = await startRefused(dir.path, UNSHARE);
    assert.is(second.status, 1, second.output);
    assert.match(second.output, /in use/);

    await pings(first, check.uuid, 20);
    await stopServer(first);
    const again = await startServer(dir.path);
    try {
      const read = await fetch(`${again.url}/api/v3/checks/${check.uuid}`, { headers: { "x-api-key": project.api_key } });
      assert.is(((await read.json()) as { n_pings: number }).n_pings, 40);
    } finally {
      await stopServer(again);
    }
  } finally {
    first.child.kill("SIGKILL");
    dir.remove();
  }
});

test("a holder in another PID namespace killed with SIGKILL leaves the directory free", async () => {
  if (!mayUnshare()) return;
  const dir = tempDir();
  const holder = await startServer(dir.path, UNSHARE);
  try {
    const refused = await startRefused(dir.path);
    assert.is(refused.status, 1, refused.output);
    assert.match(refused.output, /in use/);
    holder.child.kill("SIGKILL"); // unshare, whose --kill-child takes the server with it
    await holder.exited;
    await freed(dir.path);
    const next = await startServer(dir.path);
    await stopServer(next);
  } finally {
    holder.child.kill("SIGKILL");
    dir.remove();
  }
});

test.run();
