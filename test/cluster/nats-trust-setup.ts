// What the NATS trust tests set up for real: a single nats-server from a configuration file (with
// JetStream, on a free loopback port), a CA and a server certificate made by openssl, operator, account
// and user JWTs with their credentials files (nats-jwt, the NATS project's own JWT library), and an hcd
// node run until it exits.
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createAccount, createOperator, createUser, encodeAccount, encodeOperator, encodeUser, fmtCreds } from "nats-jwt";
import { closedPort } from "../helpers.ts";
import { MAIN } from "../security/real-server.ts";

export type ConfiguredNats = {
  readonly port: number;
  /** host:port, for URLs with the scheme and credentials a test chooses. */
  readonly address: string;
  output(): string;
  /** Resolves once the server's output matches `pattern`; rejects if it exits first or after `timeoutMs`. */
  said(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Writes a new configuration and has the server reload it (SIGHUP); resolves once it says it reloaded. */
  reload(config: string): Promise<void>;
  stop(): Promise<void>;
};

/**
 * Starts nats-server on a free port with `config` (its listen and JetStream lines are added) and resolves
 * once it says "Server is ready". `port` starts it on a port chosen before (a server a node waited for);
 * `whole`: the configuration has its own listen and JetStream lines, and `port` is its listen port.
 */
export async function startConfiguredNats(options: {
  dir: string;
  config: string;
  port?: number;
  whole?: boolean;
}): Promise<ConfiguredNats> {
  const port = options.port ?? (await closedPort());
  const file = join(options.dir, `nats-${port}.conf`);
  const write = (config: string) =>
    writeFileSync(
      file,
      options.whole === true
        ? config
        : `listen: 127.0.0.1:${port}\njetstream { store_dir: "${join(options.dir, `js-${port}`)}" }\n${config}\n`,
    );
  write(options.config);
  const child: ChildProcess = spawn("nats-server", ["-c", file], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const said = (text: string | RegExp, from: number, timeoutMs = 15_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`nats-server did not say ${text} within ${timeoutMs} ms:\n${output}`)), timeoutMs);
      const look = () => {
        if (typeof text === "string" ? output.indexOf(text, from) === -1 : !text.test(output.slice(from))) return;
        child.stdout!.off("data", look);
        child.stderr!.off("data", look);
        clearTimeout(timer);
        resolve();
      };
      child.stdout!.on("data", look);
      child.stderr!.on("data", look);
      void exited.then(() => reject(new Error(`nats-server exited before "${text}":\n${output}`)));
      look();
    });
  child.stdout!.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  await said("Server is ready", 0);
  return {
    port,
    address: `127.0.0.1:${port}`,
    output: () => output,
    said: (pattern, timeoutMs) => said(pattern, 0, timeoutMs),
    reload: async (config) => {
      write(config);
      const from = output.length;
      child.kill("SIGHUP");
      await said("Reloaded server configuration", from);
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  };
}

/** Makes a CA and a server certificate for 127.0.0.1 signed by it; returns the PEM files' paths. */
export function makeCertificates(dir: string, name = "test"): { ca: string; cert: string; key: string } {
  const path = (file: string) => join(dir, `${name}-${file}`);
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  writeFileSync(path("san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
  const steps = [
    ["req", "-x509", ...ec, "-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "2", "-subj", `/CN=hcd ${name} CA`],
    ["req", ...ec, "-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=localhost"],
    [
      "x509",
      "-req",
      "-in",
      path("server.csr"),
      "-CA",
      path("ca.pem"),
      "-CAkey",
      path("ca.key"),
      "-CAcreateserial",
      "-out",
      path("server.pem"),
      "-days",
      "2",
      "-extfile",
      path("san.ext"),
    ],
  ];
  for (const args of steps) {
    const run = spawnSync("openssl", args, { encoding: "utf8" });
    if (run.status !== 0) throw new Error(`openssl ${args.join(" ")}: ${run.stderr}`);
  }
  return { ca: path("ca.pem"), cert: path("server.pem"), key: path("server.key") };
}

/**
 * An operator with one account (JetStream on, no limits) and a system account: `config` is what the
 * server needs to trust them (a memory resolver preloaded with both account JWTs); `creds(dir, name)`
 * writes a credentials file for a new user of that account, `strangerCreds` one for a user of an account
 * the server has never seen.
 */
export async function makeOperator(): Promise<{
  config: string;
  creds: (path: string) => Promise<void>;
  strangerCreds: (path: string) => Promise<void>;
}> {
  const operator = createOperator(),
    account = createAccount(),
    system = createAccount();
  const unlimited = {
    subs: -1,
    conn: -1,
    leaf: -1,
    imports: -1,
    exports: -1,
    data: -1,
    payload: -1,
    wildcards: true,
    mem_storage: -1,
    disk_storage: -1,
    streams: -1,
    consumer: -1,
  };
  const accountJwt = await encodeAccount("hcd", account, { limits: unlimited }, { signer: operator });
  const systemJwt = await encodeAccount("SYS", system, {}, { signer: operator });
  const operatorJwt = await encodeOperator("test", operator, { system_account: system.getPublicKey() });
  const config = [
    `operator: ${operatorJwt}`,
    `system_account: ${system.getPublicKey()}`,
    "resolver: MEMORY",
    `resolver_preload: {\n  ${account.getPublicKey()}: ${accountJwt}\n  ${system.getPublicKey()}: ${systemJwt}\n}`,
  ].join("\n");
  const writeCreds = async (path: string, issuer: ReturnType<typeof createAccount>) => {
    const user = createUser();
    writeFileSync(path, fmtCreds(await encodeUser("node", user, issuer), user), { mode: 0o600 });
  };
  return { config, creds: (path) => writeCreds(path, account), strangerCreds: (path) => writeCreds(path, createAccount()) };
}

export type SpawnedNode = {
  output(): string;
  /** Resolves with the match once the output matches `pattern`; rejects if the node exits first. */
  said(pattern: RegExp): Promise<RegExpExecArray>;
  /** SIGTERM; resolves with the exit code (at once if it has exited). */
  stop(): Promise<number | null>;
};

/** Starts an hcd node with `env`, its output watched. */
export function spawnNode(env: Record<string, string>): SpawnedNode {
  const child = spawn(process.execPath, [MAIN], { env: { ...process.env, PORT: "0", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const watchers = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    for (const watch of watchers) watch();
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  return {
    output: () => output,
    said: (pattern) =>
      new Promise((resolve, reject) => {
        const watch = () => {
          const match = pattern.exec(output);
          if (match === null) return;
          watchers.delete(watch);
          resolve(match);
        };
        watchers.add(watch);
        watch();
        void exited.then((code) => reject(new Error(`exited with ${code} before ${pattern}:\n${output}`)));
      }),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

/** Runs an hcd node with `env` until it exits (killed after `timeoutMs`); resolves with its exit code and output. */
export function runNodeUntilExit(env: Record<string, string>, timeoutMs = 15_000): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN], { env: { ...process.env, PORT: "0", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
