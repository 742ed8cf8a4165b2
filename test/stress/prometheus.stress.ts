// A real Prometheus server (started here on loopback, temp config and storage, 1 s scrape interval)
// scrapes hcd's /metrics with METRICS_TOKEN and a project's reference endpoint with the Bearer form;
// its HTTP API must then answer queries for an hcd_ series and an hc_ series with hcd's values.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { closedPort, tempDir } from "../helpers.ts";
import { haveProgram } from "../ops/extras.ts";
import { startServer, stopServer } from "../security/real-server.ts";

const ADMIN = "admin-token-prometheus-test-0123456789";
const SCRAPER = "scraper-token-prometheus-0123456789";

test("a real Prometheus scrapes /metrics and the reference endpoint", async () => {
  if (!haveProgram("prometheus", "scraping hcd with a real Prometheus")) return;
  const dir = tempDir();
  const server = await startServer({ dataDir: join(dir.path, "hcd"), env: { ADMIN_TOKEN: ADMIN, METRICS_TOKEN: SCRAPER } });
  let prometheus: ReturnType<typeof spawn> | null = null;
  let log = "";
  try {
    const admin = { authorization: `Bearer ${ADMIN}` };
    const project = (await (
      await fetch(`${server.url}/admin/v1/projects`, { method: "POST", headers: admin, body: JSON.stringify({ name: "p" }) })
    ).json()) as Record<string, string>;
    for (const name of ["one", "two"]) {
      const res = await fetch(`${server.url}/api/v3/checks/`, {
        method: "POST",
        headers: { "x-api-key": project.api_key },
        body: JSON.stringify({ name }),
      });
      assert.is(res.status, 201);
      const check = (await res.json()) as Record<string, string>;
      assert.is((await fetch(`${server.url}/ping/${check.uuid}`)).status, 200);
    }
    const target = new URL(server.url).host;
    const config = join(dir.path, "prometheus.yml");
    writeFileSync(
      config,
      [
        "global:",
        "  scrape_interval: 1s",
        "  scrape_timeout: 1s",
        "scrape_configs:",
        "  - job_name: hcd",
        "    metrics_path: /metrics",
        "    authorization:",
        `      credentials: ${SCRAPER}`,
        "    static_configs:",
        `      - targets: ["${target}"]`,
        "  - job_name: healthchecks",
        `    metrics_path: /projects/${project.id}/metrics/`,
        "    authorization:",
        `      credentials: ${project.api_key_readonly}`,
        "    static_configs:",
        `      - targets: ["${target}"]`,
        "",
      ].join("\n"),
    );
    const port = await closedPort();
    prometheus = spawn(
      "prometheus",
      [`--config.file=${config}`, `--storage.tsdb.path=${join(dir.path, "tsdb")}`, `--web.listen-address=127.0.0.1:${port}`],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    prometheus.stdout?.on("data", (chunk: Buffer) => {
      log += chunk.toString();
    });
    prometheus.stderr?.on("data", (chunk: Buffer) => {
      log += chunk.toString();
    });

    // Prometheus answers queries once it has started; poll until both series arrived (60 s at most)
    const query = async (promql: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> => {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(promql)}`);
        if (res.status !== 200) return [];
        return ((await res.json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } }).data.result;
      } catch {
        return [];
      }
    };
    let pings: Awaited<ReturnType<typeof query>> = [],
      total: Awaited<ReturnType<typeof query>> = [];
    for (let tries = 0; tries < 120 && (pings.length === 0 || total.length === 0); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      pings = await query('hcd_pings_total{kind="success",outcome="ok"}');
      total = await query("hc_checks_total");
    }
    assert.is(pings.length, 1, `no hcd_pings_total in Prometheus; its log:\n${log}`);
    assert.is(pings[0].metric.job, "hcd");
    assert.is(pings[0].value[1], "2");
    assert.is(total.length, 1, `no hc_checks_total in Prometheus; its log:\n${log}`);
    assert.is(total[0].metric.job, "healthchecks");
    assert.is(total[0].value[1], "2");
    const up = await query('up{job="hcd"}');
    assert.is(up[0]?.value[1], "1", "the hcd target is up");
  } finally {
    if (prometheus !== null && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus?.once("exit", resolve));
      prometheus.kill("SIGTERM");
      await exited;
    }
    await stopServer(server);
    dir.remove();
  }
});

test.run();
