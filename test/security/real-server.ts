// The real server as a child process (`node dist/app/main.js`), for the security and stress suites:
// start/stop, admin and API calls, raw sockets for what fetch cannot send, the process's RSS, a seeded
// generator, and a full API dump of a project for before/after comparisons.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";

export const MAIN = fileURLToPath(new URL("../../app/main.js", import.meta.url));

export type RealServer = {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly url: string;
  readonly port: number;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** True until the process has exited. */
  alive(): boolean;
};

export type StartOptions = {
  readonly dataDir: string;
  readonly env?: Record<string, string>;
  /** Extra node arguments before the script (e.g. `--import` of a test hook). */
  readonly nodeArgs?: readonly string[];
};

/** The servers this process started and has not seen exit: killed when it exits, so a test that failed leaves none behind. */
const started = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of started) child.kill("SIGKILL");
});

/**
 * Starts the server and resolves once it prints its "listening on" line, or rejects once it exits before:
 * no deadline of its own (a start is slow on a busy machine); the test runner's timeout bounds one that never comes.
 */
export async function startServer(options: StartOptions): Promise<RealServer> {
  // PASSWORD_HASH_N: a cheap scrypt for the passwords tests make (a test of the cost sets its own)
  const env = { ...process.env, PORT: "0", SHARDS: "2", PASSWORD_HASH_N: "1024", DATA_DIR: options.dataDir, ...options.env };
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), MAIN], { env, stdio: ["ignore", "pipe", "pipe"] });
  started.add(child);
  let output = "";
  let running = true;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => {
      running = false;
      started.delete(child);
      resolve({ code, signal });
    }),
  );
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const url = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]);
    };
    child.stdout?.on("data", look);
    child.stderr?.on("data", look);
    void exited.then(({ code }) => reject(new Error(`exited with ${code} before listening:\n${output}`)));
  });
  return {
    child,
    pid: child.pid ?? -1,
    url,
    port: Number(new URL(url).port),
    output: () => output,
    exited,
    alive: () => running,
  };
}

/** Sends SIGTERM and resolves with the exit code; SIGKILL after `graceMs`. */
export async function stopServer(server: RealServer, graceMs = 20_000): Promise<number | null> {
  if (!server.alive()) return (await server.exited).code;
  server.child.kill("SIGTERM");
  const timer = setTimeout(() => server.child.kill("SIGKILL"), graceMs);
  const { code } = await server.exited;
  clearTimeout(timer);
  return code;
}

/** Returns the resident set size of a process in kB (VmRSS of /proc/<pid>/status): main thread and workers. */
export function rssKb(pid: number): number {
  const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]);
}

/** Returns the resident memory of a process in kB, split into anonymous (heaps) and file-backed (mapped files: LMDB, code). */
export function memoryKb(pid: number): { rss: number; anon: number; file: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)\\s+kB`).exec(status)?.[1] ?? NaN);
  return { rss: field("VmRSS"), anon: field("RssAnon"), file: field("RssFile") + field("RssShmem") };
}

export type Answer = { status: number; text: string; headers: Headers };

/** Sends one request with fetch; `body` objects are sent as JSON. */
export async function call(
  url: string,
  method: string,
  path: string,
  opts: { key?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key !== undefined) headers["x-api-key"] = opts.key;
  const body: BodyInit | undefined =
    opts.body === undefined
      ? undefined
      : typeof opts.body === "string"
        ? opts.body
        : opts.body instanceof Uint8Array
          ? new Blob([new Uint8Array(opts.body)])
          : JSON.stringify(opts.body);
  const response = await fetch(url + path, { method, headers, body });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/** Returns the JSON of a 2xx answer; throws with the status and body otherwise. */
export async function ok<T>(answer: Promise<Answer>): Promise<T> {
  const { status, text } = await answer;
  if (status < 200 || status > 299) throw new Error(`${status}: ${text}`);
  return JSON.parse(text) as T;
}

export type ProjectJson = {
  id: string;
  name: string;
  api_key: string;
  api_key_readonly: string;
  ping_key: string;
  check_limit: number;
  ping_log_limit: number;
  ping_body_limit: number;
};

/** Creates a project through the admin API. */
export function createProject(server: RealServer, token: string, body: Record<string, unknown>): Promise<ProjectJson> {
  return ok(call(server.url, "POST", "/admin/v1/projects", { headers: { authorization: `Bearer ${token}` }, body }));
}

/** Adds a channel to a project through the admin API. */
export function addChannel(
  server: RealServer,
  token: string,
  projectId: string,
  body: Record<string, unknown>,
): Promise<{ id: string; name: string; kind: string }> {
  return ok(call(server.url, "POST", `/admin/v1/projects/${projectId}/channels`, { headers: { authorization: `Bearer ${token}` }, body }));
}

/** A project with checks in several states, pings (with bodies), flips and channels, for dumps and leak checks. */
export type Populated = {
  project: ProjectJson;
  checks: { uuid: string; name: string; unique_key: string; badge_url: string }[];
  channels: { id: string; name: string }[];
  /** Every string of this project a foreign caller must never see. */
  secrets: string[];
};

/** Fills a new project: 2 channels, 4 checks (new, up, down, paused), pings with bodies, flips. */
export async function populate(server: RealServer, token: string, label: string): Promise<Populated> {
  const project = await createProject(server, token, { name: `project-${label}`, ping_log_limit: 50 });
  const channels = [
    await addChannel(server, token, project.id, { kind: "email", name: `mail-${label}`, value: `ops-${label}@example.com` }),
    await addChannel(server, token, project.id, { kind: "webhook", name: `hook-${label}`, value: "http://127.0.0.1:9/hook" }),
  ];
  const key = project.api_key;
  const checks: Populated["checks"] = [];
  for (const [i, extra] of [
    {},
    { channels: "*", tags: `t-${label} prod` },
    { slug: `slug-${label}`, tags: `t-${label}` },
    { schedule: "*/5 * * * *", tz: "Europe/Riga" },
  ].entries()) {
    const made = await ok<{ uuid: string; name: string; badge_url: string }>(
      call(server.url, "POST", "/api/v3/checks/", { key, body: { name: `check-${label}-${i}`, desc: `desc-${label}`, ...extra } }),
    );
    const ro = await ok<{ unique_key: string }>(call(server.url, "GET", `/api/v3/checks/${made.uuid}`, { key: project.api_key_readonly }));
    checks.push({ uuid: made.uuid, name: made.name, unique_key: ro.unique_key, badge_url: made.badge_url });
  }
  const ping = (path: string, body?: string) =>
    call(server.url, body === undefined ? "GET" : "POST", path, { body, headers: { "user-agent": `ua-${label}` } });
  await ping(`/ping/${checks[1].uuid}/start`);
  await ping(`/ping/${checks[1].uuid}`, `body-${label}-success`);
  await ping(`/ping/${checks[2].uuid}/fail`, `body-${label}-fail`);
  await ping(`/ping/${project.ping_key}/slug-${label}/log`, `body-${label}-log`);
  await ping(`/ping/${checks[3].uuid}`);
  await ok(call(server.url, "POST", `/api/v3/checks/${checks[3].uuid}/pause`, { key }));
  const secrets = [
    project.id,
    project.name,
    project.api_key,
    project.api_key_readonly,
    project.ping_key,
    ...checks.flatMap((c) => [c.uuid, c.name, c.unique_key, c.badge_url.split("/").pop()?.split(".")[0] ?? c.uuid]),
    ...channels.flatMap((c) => [c.id, c.name]),
    `desc-${label}`,
    `slug-${label}`,
    `t-${label}`,
    `body-${label}`,
    `ua-${label}`,
  ];
  return { project, checks, channels, secrets };
}

/**
 * Returns a canonical text of everything the API shows of a project: every check with every field (read-write
 * and read-only views), its pings, ping bodies and flips, the channels and the badges. Two equal dumps mean
 * nothing observable changed.
 */
export async function dumpProject(url: string, project: Pick<ProjectJson, "api_key" | "api_key_readonly">): Promise<string> {
  const get = <T>(path: string, key = project.api_key) => ok<T>(call(url, "GET", path, { key }));
  const { checks } = await get<{ checks: Record<string, unknown>[] }>("/api/v3/checks/");
  const { checks: readonly } = await get<{ checks: Record<string, unknown>[] }>("/api/v3/checks/", project.api_key_readonly);
  checks.sort((a, b) => String(a.uuid).localeCompare(String(b.uuid)));
  const details = [];
  for (const check of checks) {
    const uuid = String(check.uuid);
    const { pings } = await get<{ pings: { n: number; body_url: string | null }[] }>(`/api/v3/checks/${uuid}/pings/`);
    const bodies = [];
    for (const ping of pings)
      if (ping.body_url !== null)
        bodies.push([ping.n, (await call(url, "GET", new URL(ping.body_url).pathname, { key: project.api_key })).text]);
    details.push({ check, single: await get(`/api/v3/checks/${uuid}`), pings, bodies, flips: await get(`/api/v3/checks/${uuid}/flips/`) });
  }
  const channels = await get("/api/v3/channels/");
  const badges = await get("/api/v3/badges/");
  return JSON.stringify({ details, readonly: readonly.map((c) => JSON.stringify(c)).sort(), channels, badges }, null, 1);
}

export type RawAnswer = {
  /** The status of the first response, or null when none came. */
  status: number | null;
  /** Everything received (latin1). */
  raw: string;
  /** How the exchange ended: the server closed, reset, or we stopped waiting. */
  ended: "closed" | "reset" | "timeout";
  ms: number;
};

/** Writes `request` on a fresh TCP connection and collects what comes back until close, reset or `timeoutMs`. */
export function rawRequest(
  port: number,
  request: string | Buffer | readonly (string | Buffer)[],
  opts: { timeoutMs?: number; gapMs?: number } = {},
): Promise<RawAnswer> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" });
    let raw = "";
    let done = false;
    const finish = (ended: RawAnswer["ended"]) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(raw);
      resolve({ status: match ? Number(match[1]) : null, raw, ended, ms: Date.now() - started });
    };
    const timer = setTimeout(() => finish("timeout"), opts.timeoutMs ?? 5_000);
    socket.on("data", (chunk) => {
      raw += chunk.toString("latin1");
    });
    socket.on("end", () => finish("closed"));
    socket.on("close", () => finish("closed"));
    socket.on("error", (error) => {
      if (process.env.RAW_DEBUG) console.log("raw error", error);
      finish(raw === "" ? "reset" : "closed");
    });
    socket.on("connect", () => {
      const parts = typeof request === "string" || Buffer.isBuffer(request) ? [request] : request;
      const send = async () => {
        for (const part of parts) {
          if (done) return;
          socket.write(part);
          if (opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
        }
      };
      send().catch(() => finish("closed"));
    });
  });
}

export { seeded } from "../../bench/scenarios.ts"; // the same mulberry32 generator the scenarios use

/**
 * Returns the lines of the server output that show a bug: unexpected errors and crashed shards.
 * Known and reported, not counted here: a client that closes its connection mid-body is logged as
 * "unexpected error: Error: aborted" (see `abortedIn`).
 */
export function troubleIn(output: string): string[] {
  return output
    .split("\n")
    .filter((line) => /unexpected error|crashed|shutdown failed|Uncaught|ERR_|TypeError|RangeError/.test(line))
    .filter((line) => !/unexpected error: Error: aborted$/.test(line));
}

/** Returns how many "unexpected error: Error: aborted" lines (clients gone mid-body) the server logged. */
export function abortedIn(output: string): number {
  return output.split("\n").filter((line) => /unexpected error: Error: aborted$/.test(line)).length;
}

/** Returns "" when two dumps are equal, else the first differing lines with their context (for assertion messages). */
export function dumpDiff(expected: string, actual: string): string {
  if (expected === actual) return "";
  const a = expected.split("\n"),
    b = actual.split("\n");
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 12);
  return `dumps differ at line ${i + 1}:\n--- expected\n${a.slice(from, i + 6).join("\n")}\n+++ actual\n${b.slice(from, i + 6).join("\n")}`;
}
