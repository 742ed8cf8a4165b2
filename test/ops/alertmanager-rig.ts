// A real Prometheus Alertmanager (Debian's prometheus-alertmanager) for the tests: started on a free
// loopback port with a temporary storage directory and no cluster, ready once /-/ready answers; alerts
// posted to and listed from its API v2, as Prometheus and amtool do.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { closedPort } from "../helpers.ts";

export const ALERTMANAGER = "prometheus-alertmanager";

export type Alertmanager = {
  readonly url: string;
  output(): string;
  /** Posts alerts as Prometheus does (POST /api/v2/alerts). */
  post(alerts: readonly Record<string, unknown>[]): Promise<void>;
  /** The alerts it holds now (GET /api/v2/alerts), optionally filtered by label matchers ("alertname=x"). */
  alerts(filter?: readonly string[]): Promise<AmAlert[]>;
  /** Stops it (SIGKILL: as if it had died) and resolves once it has exited. */
  kill(): Promise<void>;
};

export type AmAlert = {
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly generatorURL?: string;
  readonly startsAt: string;
  readonly endsAt: string;
  readonly status: { readonly state: string };
};

/** Starts Alertmanager with `config` (YAML) under `dir`; resolves once it is ready (20 s at most). */
export async function startAlertmanager(dir: string, config: string): Promise<Alertmanager> {
  const port = await closedPort();
  mkdirSync(join(dir, "am-data"), { recursive: true });
  writeFileSync(join(dir, "am.yml"), config);
  const child: ChildProcess = spawn(
    ALERTMANAGER,
    [
      `--config.file=${join(dir, "am.yml")}`,
      `--storage.path=${join(dir, "am-data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--cluster.listen-address=",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const failAt = Date.now() + 20_000;
  for (;;) {
    const ready = await fetch(`${url}/-/ready`).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ready) break;
    if (Date.now() > failAt || child.exitCode !== null) {
      child.kill("SIGKILL");
      throw new Error(`Alertmanager did not get ready:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    output: () => output,
    async post(alerts) {
      const res = await fetch(`${url}/api/v2/alerts`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(alerts),
      });
      if (res.status !== 200) throw new Error(`Alertmanager refused the alerts: ${res.status} ${await res.text()}`);
    },
    async alerts(filter = []) {
      const query = filter.map((f) => `filter=${encodeURIComponent(f)}`).join("&");
      const res = await fetch(`${url}/api/v2/alerts${query === "" ? "" : `?${query}`}`);
      return (await res.json()) as AmAlert[];
    },
    async kill() {
      child.kill("SIGKILL");
      await exited;
    },
  };
}
