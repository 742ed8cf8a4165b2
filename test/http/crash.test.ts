// Crash safety of the real server: many concurrent clients ping, the process is killed with SIGKILL
// mid-load, and after a restart every acknowledged ping is in the log, with n_pings matching it.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { tempDir } from "../helpers.ts";

const MAIN = fileURLToPath(new URL("../../app/main.js", import.meta.url));
const TOKEN = "crash-test-admin-token-0123456789";
const CLIENTS = 48;
const CHECKS = 12;

type Server = { child: ChildProcess; url: string; exited: Promise<number | null> };

async function start(dataDir: string): Promise<Server> {
  const child = spawn(process.execPath, [MAIN], {
    env: { ...process.env, PORT: "0", SHARDS: "2", DATA_DIR: dataDir, ADMIN_TOKEN: TOKEN, DURABILITY: "flush" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" line:\n${output}`)), 20_000);
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
    void exited.then((code) => reject(new Error(`exited with ${code}:\n${output}`)));
  });
  return { child, url, exited };
}

async function json<T>(response: Response): Promise<T> {
  if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

async function crashOnce(round: number): Promise<{ acknowledged: number }> {
  const dir = tempDir();
  try {
    const first = await start(dir.path);
    const project = await json<{ api_key: string }>(
      await fetch(`${first.url}/admin/v1/projects`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}` },
        body: JSON.stringify({ name: `crash ${round}`, ping_log_limit: 1000 }),
      }),
    );
    const uuids: string[] = [];
    for (let i = 0; i < CHECKS; i++) {
      const check = await json<{ uuid: string }>(
        await fetch(`${first.url}/api/v3/checks/`, {
          method: "POST",
          headers: { "x-api-key": project.api_key },
          body: JSON.stringify({ name: `c${i}` }),
        }),
      );
      uuids.push(check.uuid);
    }

    // Every ping carries its own rid; a 200 means "durable", so that rid must survive the kill.
    const acknowledged = new Map<string, Set<string>>(uuids.map((u) => [u, new Set()]));
    let killed = false;
    const clients = Array.from({ length: CLIENTS }, async (_, client) => {
      for (let i = 0; !killed; i++) {
        const uuid = uuids[(client + i) % CHECKS];
        const rid = randomUUID();
        try {
          const answer = await fetch(`${first.url}/ping/${uuid}?rid=${rid}`, { method: "POST", body: `client ${client} ping ${i}` });
          if (answer.status === 200 && (await answer.text()) === "OK") acknowledged.get(uuid)?.add(rid);
        } catch {
          return; // the server died under this request: not acknowledged
        }
      }
    });
    // kill under load, after a different number of acknowledgements each round (not after a delay: a busy
    // machine acknowledges fewer in the same time)
    const killAfter = 50 + ((round * 137) % 100);
    const acknowledgedSoFar = () => [...acknowledged.values()].reduce((sum, rids) => sum + rids.size, 0);
    while (acknowledgedSoFar() < killAfter) await new Promise((r) => setTimeout(r, 5));
    first.child.kill("SIGKILL");
    killed = true;
    await Promise.all(clients);
    await first.exited;

    const second = await start(dir.path);
    try {
      let total = 0;
      for (const uuid of uuids) {
        const check = await json<{ n_pings: number }>(
          await fetch(`${second.url}/api/v3/checks/${uuid}`, { headers: { "x-api-key": project.api_key } }),
        );
        const { pings } = await json<{ pings: { n: number; rid: string | null }[] }>(
          await fetch(`${second.url}/api/v3/checks/${uuid}/pings/`, { headers: { "x-api-key": project.api_key } }),
        );
        const stored = new Set(pings.map((p) => p.rid));
        const lost = [...(acknowledged.get(uuid) ?? [])].filter((rid) => !stored.has(rid));
        assert.equal(lost, [], `acknowledged pings lost for ${uuid}`);
        assert.is(stored.size, pings.length, `each ping stored once (a restart applies no ping twice) for ${uuid}`);
        assert.is(pings[0]?.n ?? 0, check.n_pings, "n_pings equals the newest log entry");
        assert.equal(
          pings.map((p) => p.n),
          Array.from({ length: pings.length }, (_, i) => check.n_pings - i),
          "no gaps in the log",
        );
        total += acknowledged.get(uuid)?.size ?? 0;
      }
      return { acknowledged: total };
    } finally {
      second.child.kill("SIGTERM");
      await second.exited;
    }
  } finally {
    dir.remove();
  }
}

for (const round of [1, 2, 3]) {
  test(`SIGKILL under load loses no acknowledged ping (round ${round})`, async () => {
    const { acknowledged } = await crashOnce(round);
    console.log(`  round ${round}: ${acknowledged} acknowledged pings, all present after restart`);
  });
}

test.run();
