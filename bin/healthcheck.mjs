#!/usr/bin/env node
// The container's HEALTHCHECK: asks this server's /api/v3/status/ (PORT, on loopback when HOST listens on
// every address) and exits 0 on 200, 1 otherwise. Needs nothing but Node.js.
const host = process.env.HOST ?? "127.0.0.1";
const port = process.env.PORT ?? "8000";
const target = host === "0.0.0.0" || host === "" ? "127.0.0.1" : host === "::" ? "[::1]" : host.includes(":") ? `[${host}]` : host;
try {
  const res = await fetch(`http://${target}:${port}/api/v3/status/`, { signal: AbortSignal.timeout(5_000) });
  if (res.status !== 200) {
    console.error(`hcd healthcheck: /api/v3/status/ answered ${res.status}`);
    process.exit(1);
  }
} catch (error) {
  console.error(`hcd healthcheck: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
