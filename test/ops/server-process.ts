// A real hcd server process (node dist/app/main.js) for tests of what only a process shows: start-up
// refusals, kill -9, a second process on the same DATA_DIR. `command` runs it through another program
// (unshare, to start it in another PID namespace).
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

export const MAIN = fileURLToPath(new URL("../../app/main.js", import.meta.url));
export const TOKEN = "server-process-admin-token-0123456789";

export type ServerProcess = {
  readonly child: ChildProcess;
  readonly url: string;
  readonly exited: Promise<number | null>;
  output(): string;
};

/** What a process meant to refuse to start did: its exit status (or "started" when it listened after all) and output. */
export type Refusal = { readonly status: number | null | "started"; readonly output: string };

function spawnServer(
  dataDir: string,
  command: readonly string[],
): { child: ChildProcess; exited: Promise<number | null>; output: () => string } {
  const [program, ...args] = command.length > 0 ? [...command, process.execPath, MAIN] : [process.execPath, MAIN];
  const child = spawn(program, args, {
    env: { ...process.env, PORT: "0", SHARDS: "1", DATA_DIR: dataDir, ADMIN_TOKEN: TOKEN, DURABILITY: "flush" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited, output: () => output };
}

/** Starts a server on `dataDir`; resolves once it listens (rejects with its output if it exits first). */
export async function startServer(dataDir: string, command: readonly string[] = []): Promise<ServerProcess> {
  const { child, exited, output } = spawnServer(dataDir, command);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" line:\n${output()}`)), 30_000);
    const poll = setInterval(() => {
      const match = /listening on (http:\/\/\S+)/.exec(output());
      if (match) {
        clearTimeout(timer);
        clearInterval(poll);
        resolve(match[1]);
      }
    }, 20);
    void exited.then((code) => {
      clearTimeout(timer);
      clearInterval(poll);
      reject(new Error(`exited with ${code}:\n${output()}`));
    });
  });
  return { child, url, exited, output };
}

/** Starts a server on `dataDir` that must not start; resolves once it exits, or once it listens (then it is killed). */
export async function startRefused(dataDir: string, command: readonly string[] = []): Promise<Refusal> {
  const { child, exited, output } = spawnServer(dataDir, command);
  const status = await new Promise<number | null | "started">((resolve) => {
    const poll = setInterval(() => {
      if (!/listening on /.test(output())) return;
      clearInterval(poll);
      child.kill("SIGKILL");
      resolve("started");
    }, 20);
    void exited.then((code) => {
      clearInterval(poll);
      resolve(code);
    });
  });
  await exited;
  return { status, output: output() };
}

/** Sends SIGTERM and waits for the process to end. */
export async function stopServer(server: ServerProcess): Promise<void> {
  if (server.child.exitCode !== null) return;
  server.child.kill("SIGTERM");
  await server.exited;
}

/** Calls the admin API of `server`; returns the status and JSON. */
export async function admin(
  server: ServerProcess,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}
