// DURABILITY=flush promises that an acknowledged write survives a power loss, which no kill -9 can show: so
// this looks at a running server. Its log files (the shards' commit log and the intake log) are open with
// O_DSYNC (the flags of /proc/<pid>/fdinfo), and each log's directory was synced once a segment of it was
// created (persistence/sync-notes.ts notes each sync of the real syncDir). DURABILITY=commit is the
// contrast: neither. Linux only (/proc); a real server.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { constants, existsSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { join } from "node:path";
import { INTAKE_DIR } from "../../persistence/intake.ts";
import { LOG_DIR } from "../../persistence/open.ts";
import { tempDir } from "../helpers.ts";
import { call, createProject, ok, startServer, stopServer } from "../security/real-server.ts";

const TOKEN = "durability-flags-admin-token-0123456789";

/** The server's open files under `dir` (not `dir` itself), each with its open flags. */
function openFilesIn(pid: number, dir: string): { path: string; flags: number }[] {
  return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
    let path: string;
    try {
      path = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      return []; // closed meanwhile
    }
    if (!path.startsWith(`${dir}/`)) return [];
    const flags = /^flags:\s+([0-7]+)$/m.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, "utf8"))?.[1];
    return flags === undefined ? [] : [{ path, flags: parseInt(flags, 8) }];
  });
}

/** Starts a server with `durability`, acknowledges a few pings (a segment of each log opened), and hands it to `look`. */
async function withServer(durability: "flush" | "commit", look: (pid: number, dataDir: string, synced: string[]) => void): Promise<void> {
  const dir = tempDir();
  const notes = join(dir.path, "..", `${dir.path.split("/").pop()}-syncs`);
  const server = await startServer({
    dataDir: dir.path,
    env: { ADMIN_TOKEN: TOKEN, DURABILITY: durability, NODE_ENV: "test", HCD_SYNC_NOTES: notes },
  });
  try {
    const project = await createProject(server, TOKEN, { name: `durability-${durability}` });
    const check = await ok<{ uuid: string }>(
      call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "nightly" } }),
    );
    for (let i = 0; i < 3; i++) assert.is((await call(server.url, "GET", `/ping/${check.uuid}`)).status, 200);
    look(
      server.pid,
      dir.path,
      existsSync(notes)
        ? readFileSync(notes, "utf8")
            .split("\n")
            .filter((line) => line !== "")
        : [],
    );
  } finally {
    assert.is(await stopServer(server), 0, server.output());
    dir.remove();
    rmSync(notes, { force: true });
  }
}

test("DURABILITY=flush: every open log segment has O_DSYNC, and each log's directory was synced after its segment was made", async () => {
  await withServer("flush", (pid, dataDir, synced) => {
    for (const log of [LOG_DIR, INTAKE_DIR]) {
      const files = openFilesIn(pid, join(dataDir, log));
      assert.ok(files.length > 0, `open files in ${log}`);
      for (const file of files)
        assert.ok((file.flags & constants.O_DSYNC) !== 0, `${file.path} open without O_DSYNC (flags ${file.flags.toString(8)})`);
      assert.ok(synced.includes(join(dataDir, log)), `${log} synced: ${JSON.stringify(synced)}`);
    }
  });
});

test("DURABILITY=commit: the same files without O_DSYNC, and no log directory synced", async () => {
  await withServer("commit", (pid, dataDir, synced) => {
    for (const log of [LOG_DIR, INTAKE_DIR]) {
      const files = openFilesIn(pid, join(dataDir, log));
      assert.ok(files.length > 0, `open files in ${log}`);
      for (const file of files) assert.is(file.flags & constants.O_DSYNC, 0, `${file.path} open with O_DSYNC`);
      assert.not.ok(synced.includes(join(dataDir, log)), `${log} synced: ${JSON.stringify(synced)}`);
    }
  });
});

test.run();
