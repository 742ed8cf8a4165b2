// DATA_DIR is the owner's alone: a first start under the usual umask 022 creates it 0700 and every file in
// it 0600 (accounts.json, the LMDB files of the store and the audit log, the logs, the admin token), a backup
// is written 0600, and a directory left wider (an older version, a hand) is tightened at the next start
// with one log line. The CLI, on a stopped DATA_DIR it creates, makes it owner-only as well.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawnSync } from "node:child_process";
import { chmodSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "../helpers.ts";
import { call, createProject, ok, startServer, stopServer } from "./real-server.ts";

const TOKEN = "data-dir-modes-admin-token-0123456789";
const admin = { authorization: `Bearer ${TOKEN}` };
const HCD = fileURLToPath(new URL("../../../bin/hcd.mjs", import.meta.url));

/** Every path under `dir` (itself included) with its permission bits, as "0755 path". */
function modes(dir: string): string[] {
  const out: string[] = [];
  const visit = (path: string) => {
    const stat = lstatSync(path);
    out.push(`${(stat.mode & 0o777).toString(8).padStart(4, "0")} ${path.slice(dir.length) || "/"}${stat.isDirectory() ? "/" : ""}`);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(dir);
  return out;
}
const wider = (listing: string[]) => listing.filter((line) => !/^0700 .*\/$|^0600 .*[^/]$/.test(line));

test("a first start under umask 022 makes DATA_DIR 0700 and every file in it 0600; a backup is 0600", async () => {
  process.umask(0o022); // the usual umask, inherited by the server: it must not rely on a stricter one
  const root = tempDir();
  const dataDir = join(root.path, "fresh", "data"); // neither exists yet
  const server = await startServer({ dataDir, env: { ADMIN_TOKEN: "" } }); // the admin token generated into DATA_DIR
  try {
    const token = /generated an admin token \(stored in .*\): (\S+)/.exec(server.output())?.[1] ?? "";
    const bearer = { authorization: `Bearer ${token}` };
    await ok(
      call(server.url, "POST", "/admin/v1/users", {
        headers: bearer,
        body: { email: "x@corp.example", password: "correct horse battery staple" },
      }),
    );
    const project = await createProject(server, token, { name: "P" });
    const check = await ok<{ uuid: string }>(call(server.url, "POST", "/api/v3/checks/", { key: project.api_key, body: { name: "c" } }));
    assert.is((await call(server.url, "POST", `/ping/${check.uuid}`, { body: "a body" })).status, 200);
    const backup = join(root.path, "backup.hcd");
    const made = spawnSync(process.execPath, [HCD, "backup", "--out", backup, "--url", server.url, "--token", token], { encoding: "utf8" });
    assert.is(made.status, 0, made.stderr);
    assert.is(lstatSync(backup).mode & 0o777, 0o600, "the backup file");
  } finally {
    assert.is(await stopServer(server), 0, server.output());
  }
  const listing = modes(dataDir);
  for (const name of ["/accounts.json", "/data.mdb", "/audit/data.mdb", "/admin-token"]) {
    assert.ok(
      listing.some((line) => line.endsWith(` ${name}`)),
      `${name} is there: ${listing.join("\n")}`,
    );
  }
  assert.equal(wider(listing), [], listing.join("\n"));
  root.remove();
});

test("the CLI on a stopped DATA_DIR it creates (hcd project create, no --url) makes it 0700 and its files 0600 too", () => {
  process.umask(0o022);
  const root = tempDir();
  const dataDir = join(root.path, "cli", "data"); // neither exists yet
  const made = spawnSync(process.execPath, [HCD, "project", "create", "--name", "P"], {
    encoding: "utf8",
    env: { ...process.env, DATA_DIR: dataDir },
  });
  assert.is(made.status, 0, made.stderr);
  const listing = modes(dataDir);
  assert.ok(
    listing.some((line) => line.endsWith(" /data.mdb")),
    listing.join("\n"),
  );
  assert.equal(wider(listing), [], listing.join("\n"));
  root.remove();
});

test("a DATA_DIR left readable by others is tightened at start, with one log line", async () => {
  const root = tempDir();
  const dataDir = join(root.path, "data");
  let server = await startServer({ dataDir, env: { ADMIN_TOKEN: TOKEN } });
  await ok(
    call(server.url, "POST", "/admin/v1/users", {
      headers: admin,
      body: { email: "y@corp.example", password: "correct horse battery staple" },
    }),
  );
  await createProject(server, TOKEN, { name: "Q" });
  assert.is(await stopServer(server), 0, server.output());
  assert.not.match(server.output(), /tightened/, "nothing to tighten after a start of this version");
  // as an older version (or a hand) left it: directories 0755, files 0644
  const widen = (path: string) => {
    const stat = lstatSync(path);
    chmodSync(path, stat.isDirectory() ? 0o755 : 0o644);
    if (stat.isDirectory()) for (const name of readdirSync(path)) widen(join(path, name));
  };
  widen(dataDir);
  const before = wider(modes(dataDir)).length;
  assert.ok(before >= 4, modes(dataDir).join("\n"));
  server = await startServer({ dataDir, env: { ADMIN_TOKEN: TOKEN } });
  try {
    assert.is((await call(server.url, "GET", "/admin/v1/users", { headers: admin })).status, 200);
  } finally {
    assert.is(await stopServer(server), 0, server.output());
  }
  const lines = server
    .output()
    .split("\n")
    .filter((line) => /tightened/.test(line));
  assert.is(lines.length, 1, server.output());
  assert.match(lines[0], new RegExp(`paths=${before}\\b`));
  assert.equal(wider(modes(dataDir)), [], modes(dataDir).join("\n"));
  root.remove();
});

test.run();
