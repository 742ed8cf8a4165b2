#!/usr/bin/env node
// `npx hcd ...`: the admin CLI (app/cli.ts). Runs the compiled code: build first (`npm run build`).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const cli = new URL("../dist/app/cli.js", import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  console.error("hcd: dist/app/cli.js not found; run `npm run build` first");
  process.exit(1);
}
process.umask(0o077); // what the CLI writes into DATA_DIR (or a backup) is the owner's alone, as the server's
const { runCli } = await import(cli.href);
process.exitCode = await runCli(process.argv.slice(2), process.env);
