// One process per DATA_DIR (CONTRACT.md "hcd's own downtime and clock"): a second server on a directory
// in use exits 1 saying so and the first serves on; the lock goes with its holder, kill -9 included; the
// CLI commands that open a stopped DATA_DIR refuse one in use.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import { hcdHere } from "./cli-here.ts";
import { admin, startRefused, startServer, stopServer } from "./server-process.ts";


test("a second server on a DATA_DIR in use exits 1 with 'in use'; the first serves on; after kill -9 a new one starts", async () => {
  const dir = tempDir();
  const first = await startServer(dir.path);
  try {
    const created = await admin(first, "POST", "/admin/v1/projects", { name: "kept" });
    assert.is(created.status, 201, JSON.stringify(created.json));

    const second = await startRefused(dir.path);
    assert.is(second.status, 1, second.output);
    assert.match(second.output, /in use/);

    const listed = await admin(first, "GET", "/admin/v1/projects"); // the first one is unaffected
    assert.is(listed.status, 200);
    assert.equal((listed.json as { projects: { name: string }[] }).projects.map((p) => p.name), ["kept"]);

    first.child.kill("SIGKILL");
    await first.exited;
    const third = await startServer(dir.path);
    try {
      const after = await admin(third, "GET", "/admin/v1/projects");
      assert.equal((after.json as { projects: { name: string }[] }).projects.map((p) => p.name), ["kept"]);
    } finally {
      await stopServer(third);
    }
  } finally {
    first.child.kill("SIGKILL"); // a failed assertion must not leave it running
    dir.remove();
  }
});

test("the CLI refuses a DATA_DIR in use: a command on it, a backup of it, a restore into it, a repair of it; once stopped they work", async () => {
  const dir = tempDir();
  const data = join(dir.path, "data");
  const server = await startServer(data);
  try {
    const env = { DATA_DIR: data };
    const direct = await hcdHere(["project", "list"], env);
    assert.is(direct.status, 1);
    assert.match(direct.stderr, /in use/);
    const backup = await hcdHere(["backup", "--out", join(dir.path, "b")], env);
    assert.is(backup.status, 1);
    assert.match(backup.stderr, /in use/);
    const restore = await hcdHere(["restore", "--in", join(dir.path, "b"), "--data-dir", data], {});
    assert.is(restore.status, 1);
    assert.match(restore.stderr, /in use/);
    const repair = await hcdHere(["repair", "--data-dir", data], {});
    assert.is(repair.status, 1);
    assert.match(repair.stderr, /in use/);
    await stopServer(server);

    assert.is((await hcdHere(["project", "list"], env)).status, 0, "stopped: the lock went with the server");
    const stoppedBackup = await hcdHere(["backup", "--out", join(dir.path, "b")], env);
    assert.is(stoppedBackup.status, 0, stoppedBackup.stderr);
  } finally {
    await stopServer(server);
    dir.remove();
  }
});

test.run();
