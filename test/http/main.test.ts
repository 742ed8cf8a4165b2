// `npm start` and `hcd` as processes: start, serve, shut down on SIGTERM with exit 0, restart on the same DATA_DIR.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "../helpers.ts";

const MAIN = fileURLToPath(new URL("../../app/main.js", import.meta.url));
const BIN = fileURLToPath(new URL("../../../bin/hcd.mjs", import.meta.url));
const TOKEN = "main-test-admin-token-0123456789";
const RELEASE = (JSON.parse(readFileSync(fileURLToPath(new URL("../../../package.json", import.meta.url)), "utf8")) as { version: string })
  .version;

type Server = { child: ChildProcess; url: string; output: () => string; exited: Promise<number | null> };

async function start(env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, PORT: "0", SHARDS: "2", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" line in 20 s:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    void exited.then((code) => reject(new Error(`exited with ${code} before listening:\n${output}`)));
  });
  return { child, url, output: () => output, exited };
}

async function stop(server: Server): Promise<number | null> {
  server.child.kill("SIGTERM");
  return server.exited;
}

test("starts, serves the API, exits 0 on SIGTERM, and a restart restores projects, checks and keys", async () => {
  const dir = tempDir();
  try {
    const env = { DATA_DIR: dir.path, ADMIN_TOKEN: TOKEN, CLOCK: "virtual" };
    const first = await start(env);
    const admin = { authorization: `Bearer ${TOKEN}` };
    const created = await fetch(`${first.url}/admin/v1/projects`, { method: "POST", headers: admin, body: JSON.stringify({ name: "p" }) });
    assert.is(created.status, 201);
    const project = (await created.json()) as { api_key: string };
    const check = await fetch(`${first.url}/api/v3/checks/`, {
      method: "POST",
      body: JSON.stringify({ api_key: project.api_key, name: "kept", timeout: 60, grace: 60 }),
    });
    assert.is(check.status, 201);
    const { uuid, ping_url } = (await check.json()) as { uuid: string; ping_url: string };
    assert.is(ping_url, `${first.url.replace("127.0.0.1", "localhost")}/ping/${uuid}`, "SITE_ROOT defaults to the port actually bound");
    const advanced = await fetch(`${first.url}/admin/v1/clock`, { method: "POST", headers: admin, body: JSON.stringify({ advance: 10 }) });
    assert.is(advanced.status, 200);
    const status = await fetch(`${first.url}/api/v3/status/`);
    assert.is(status.status, 200);
    assert.is(status.headers.get("x-hcd-version"), RELEASE, "the release, in a header: the body stays the reference's");
    const badgesText = await (await fetch(`${first.url}/api/v3/badges/`, { headers: { "x-api-key": project.api_key } })).text();
    const badgePath = new URL((JSON.parse(badgesText) as { badges: Record<string, { json3: string }> }).badges["*"].json3).pathname;
    assert.is((await fetch(first.url + badgePath)).status, 200);
    const badgeSecret = readFileSync(join(dir.path, "badge-secret"), "utf8").trim();
    assert.ok(badgeSecret.length >= 32, "the badge secret is made on the first start, in DATA_DIR");
    assert.not.ok(badgesText.includes(badgeSecret) || first.output().includes(badgeSecret), "the badge secret is never shown");
    assert.is(await stop(first), 0, first.output());

    const second = await start(env);
    const got = await fetch(`${second.url}/api/v3/checks/${uuid}`, { headers: { "x-api-key": project.api_key } });
    assert.is(got.status, 200);
    assert.is(((await got.json()) as { name: string }).name, "kept");
    assert.is((await fetch(second.url + badgePath)).status, 200, "a published badge URL survives the restart");
    assert.is(await stop(second), 0, second.output());
  } finally {
    dir.remove();
  }
});

test("hcd --version prints package.json's version, which CHANGELOG.md's newest release names", () => {
  const run = spawnSync(process.execPath, [BIN, "--version"], { encoding: "utf8", timeout: 20_000 });
  assert.is(run.status, 0, run.stderr);
  assert.is(run.stdout, `hcd ${RELEASE}\n`);
  const changelog = readFileSync(fileURLToPath(new URL("../../../CHANGELOG.md", import.meta.url)), "utf8");
  const newest = /^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$/m.exec(changelog);
  assert.ok(newest !== null, "CHANGELOG.md has a release heading: ## [x.y.z] - YYYY-MM-DD");
  assert.is(newest[1], RELEASE);
});

test("invalid configuration exits 1 with a message naming the variable", () => {
  const run = spawnSync(process.execPath, [MAIN], {
    env: { ...process.env, PORT: "99999", DURABILITY: "sometimes" },
    encoding: "utf8",
    timeout: 20_000,
  });
  assert.is(run.status, 1);
  assert.match(run.stderr, /PORT/);
  assert.match(run.stderr, /DURABILITY/);
});

test("a secret from <NAME>_FILE: the server takes the admin token from its file; given twice, or an unreadable file, it exits 1 naming the variable", async () => {
  const dir = tempDir();
  try {
    const file = join(dir.path, "admin-token-secret");
    writeFileSync(file, `${TOKEN}-file\n`);
    const server = await start({ DATA_DIR: join(dir.path, "data"), ADMIN_TOKEN_FILE: file });
    try {
      const projects = await fetch(`${server.url}/admin/v1/projects`, { headers: { authorization: `Bearer ${TOKEN}-file` } });
      assert.is(projects.status, 200, "the file's token, its newline cut");
    } finally {
      assert.is(await stop(server), 0);
    }
    for (const env of [{ ADMIN_TOKEN: TOKEN, ADMIN_TOKEN_FILE: file }, { ADMIN_TOKEN_FILE: join(dir.path, "no-such-file") }]) {
      const run = spawnSync(process.execPath, [MAIN], {
        env: { ...process.env, PORT: "0", DATA_DIR: join(dir.path, "data"), ...env },
        encoding: "utf8",
        timeout: 20_000,
      });
      assert.is(run.status, 1, run.stdout + run.stderr);
      assert.match(run.stderr, /ADMIN_TOKEN_FILE/);
      assert.not.match(run.stderr + run.stdout, new RegExp(TOKEN), "the token is never printed");
    }
  } finally {
    dir.remove();
  }
});

test("a corrupt store exits 1 at start with a message naming the file", () => {
  const dir = tempDir();
  try {
    writeFileSync(join(dir.path, "data.mdb"), "this is not an LMDB file, but long enough to have a header");
    const run = spawnSync(process.execPath, [MAIN], {
      env: { ...process.env, PORT: "0", DATA_DIR: dir.path, ADMIN_TOKEN: TOKEN },
      encoding: "utf8",
      timeout: 20_000,
    });
    assert.is(run.status, 1, run.stderr);
    assert.match(run.stderr, /data\.mdb is not an LMDB data file/);
  } finally {
    dir.remove();
  }
});

test("the first start generates and prints the admin token and stores it in DATA_DIR", async () => {
  const dir = tempDir();
  try {
    const server = await start({ DATA_DIR: dir.path, ADMIN_TOKEN: "" });
    const match = /admin token \(stored in .*admin-token\): (\S+)/.exec(server.output());
    assert.ok(match, server.output());
    const token = match?.[1] ?? "";
    const res = await fetch(`${server.url}/admin/v1/projects`, { headers: { authorization: `Bearer ${token}` } });
    assert.is(res.status, 200);
    assert.is(await stop(server), 0);
    const again = await start({ DATA_DIR: dir.path, ADMIN_TOKEN: "" });
    assert.not.match(again.output(), /admin token/, "printed only once");
    assert.is(await stop(again), 0);
  } finally {
    dir.remove();
  }
});

test("hcd --help lists every command; commands on DATA_DIR print the admin API's JSON", () => {
  const dir = tempDir();
  try {
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, DATA_DIR: dir.path }, encoding: "utf8", timeout: 30_000 });
    const help = cli("--help");
    assert.is(help.status, 0);
    for (const command of ["project create", "project list", "channel add", "prune"]) assert.ok(help.stdout.includes(command), command);
    const created = cli("project", "create", "--name", "from-cli", "--check-limit", "3");
    assert.is(created.status, 0, created.stderr);
    const project = JSON.parse(created.stdout) as { id: string; name: string; check_limit: number; api_key: string };
    assert.equal([project.name, project.check_limit], ["from-cli", 3]);
    const channel = cli(
      "channel",
      "add",
      "--project",
      project.id,
      "--kind",
      "ntfy",
      "--value",
      '{"url":"https://ntfy.sh","topic":"t"}',
      "--name",
      "n",
    );
    assert.is(channel.status, 0, channel.stderr);
    assert.equal(Object.keys(JSON.parse(channel.stdout)).sort(), ["id", "kind", "name"]);
    const list = JSON.parse(cli("project", "list").stdout) as { projects: { id: string }[] };
    assert.equal(
      list.projects.map((p) => p.id),
      [project.id],
    );
    const refused = cli("channel", "add", "--project", project.id, "--kind", "email", "--value", "nope");
    assert.is(refused.status, 1);
    assert.type(JSON.parse(refused.stdout).error, "string");
    assert.is(cli("bogus").status, 2);
    const pruned = cli("prune", "--before", "2020-01-01T00:00:00Z");
    assert.equal(JSON.parse(pruned.stdout), { pruned: 0, before: "2020-01-01T00:00:00.000Z" });
  } finally {
    dir.remove();
  }
});

test.run();
