// One process per DATA_DIR (CONTRACT.md "hcd's own downtime and clock"): a second server on a directory
// in use exits 1 saying so and the first serves on; the lock goes with its holder, kill -9 included; the
// CLI commands that open a stopped DATA_DIR refuse one in use; processes racing for one directory (fresh,
// or left by a holder killed with SIGKILL) never both take it.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "../helpers.ts";
import { hcdHere } from "./cli-here.ts";
import { admin, startRefused, startServer, stopServer } from "./server-process.ts";

const LOCK_MODULE = fileURLToPath(new URL("../../persistence/data-dir-lock.js", import.meta.url));

/** A process that takes `dataDir`'s lock when it reads "go" on stdin, prints "won" or "in use", and holds what it took until stdin ends. */
function contender(dataDir: string): { child: ChildProcess; said: Promise<string> } {
  const script = `
    import { lockDataDir } from ${JSON.stringify(LOCK_MODULE)};
    process.stdout.write("ready\\n");
    process.stdin.once("data", () => {
      try { lockDataDir(${JSON.stringify(dataDir)}); process.stdout.write("won\\n"); }
      catch (error) { process.stdout.write(error.name === "DataDirInUseError" ? "in use\\n" : "error " + error.message + "\\n"); }
      process.stdin.resume();
    });`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["pipe", "pipe", "inherit"] });
  let out = "";
  const said = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const lines = out.split("\n").filter((line) => line !== "" && line !== "ready");
      if (lines.length > 0) resolve(lines[0]);
    });
    child.once("exit", (code) => reject(new Error(`contender exited with ${code} before answering: ${out}`)));
  });
  return { child, said };
}

/** Starts `count` contenders, lets them all go at once, and returns what each said (all still holding). */
async function race(dataDir: string, count: number): Promise<{ answers: string[]; children: ChildProcess[] }> {
  const runners = Array.from({ length: count }, () => contender(dataDir));
  await Promise.all(
    runners.map(
      ({ child }) =>
        new Promise<void>((resolve) => {
          let seen = "";
          const onData = (chunk: Buffer) => {
            seen += chunk.toString();
            if (seen.includes("ready")) {
              child.stdout!.off("data", onData);
              resolve();
            }
          };
          child.stdout!.on("data", onData);
        }),
    ),
  );
  for (const { child } of runners) child.stdin!.write("go\n");
  return { answers: await Promise.all(runners.map(({ said }) => said)), children: runners.map(({ child }) => child) };
}

async function ended(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.stdin!.end();
        }),
    ),
  );
}

test("racing starts on a fresh DATA_DIR and on one whose holder was killed: exactly one takes it each time", async () => {
  const dir = tempDir();
  const data = join(dir.path, "data");
  try {
    for (let round = 0; round < 5; round++) {
      const { answers, children } = await race(data, 6);
      assert.is(answers.filter((answer) => answer === "won").length, 1, answers.join(", "));
      assert.is(answers.filter((answer) => answer === "in use").length, 5, answers.join(", "));
      // the winner dies without releasing anything, as on kill -9; the next round races over its lock file
      for (const child of children) child.kill("SIGKILL");
      await ended(children);
    }
    writeFileSync(join(data, "lock"), "left by an older process\n"); // any content: the file is only a handle
    const { answers, children } = await race(data, 4);
    await ended(children);
    assert.equal(answers.sort(), ["in use", "in use", "in use", "won"]);
  } finally {
    dir.remove();
  }
});

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
    assert.equal(
      (listed.json as { projects: { name: string }[] }).projects.map((p) => p.name),
      ["kept"],
    );

    first.child.kill("SIGKILL");
    await first.exited;
    const third = await startServer(dir.path);
    try {
      const after = await admin(third, "GET", "/admin/v1/projects");
      assert.equal(
        (after.json as { projects: { name: string }[] }).projects.map((p) => p.name),
        ["kept"],
      );
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
