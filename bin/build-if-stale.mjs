#!/usr/bin/env node
// `npm start`'s first step: compiles the TypeScript (`npm run build`) only when a source is newer than
// its compiled file in dist/ or has none, so a start on a current dist/ costs a directory walk, not a build.
import { readdirSync, statSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { join, relative } from "node:path";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SKIPPED = new Set(["node_modules", "dist", "data", "reports"]); // never sources; data/ is the default DATA_DIR

/** Modification time in ms, or null when `path` does not exist. */
function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

/** The first source (relative path) whose compiled file is missing or older, or null when dist/ is current. */
export function staleSource(root = ROOT) {
  const config = mtime(join(root, "tsconfig.json"));
  const main = mtime(join(root, "dist", "app", "main.js"));
  if (main === null) return "dist/app/main.js (missing)";
  if (config !== null && config > main) return "tsconfig.json";
  const dirs = [root];
  while (dirs.length > 0) {
    const dir = dirs.pop();
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith(".") || (SKIPPED.has(entry.name) && dir === root)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) dirs.push(path);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) {
        const source = relative(root, path);
        const built = mtime(join(root, "dist", source.slice(0, -".ts".length) + ".js"));
        if (built === null || mtime(path) > built) return source;
      }
    }
  }
  return null;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const stale = staleSource();
  if (stale !== null) {
    console.error(`hcd: compiling (${stale} is newer than dist/)`);
    const tsc = fileURLToPath(new URL("../node_modules/typescript/bin/tsc", import.meta.url));
    const run = spawnSync(process.execPath, [tsc, "-p", join(ROOT, "tsconfig.json")], { stdio: "inherit" });
    if (run.status !== 0) {
      console.error(
        run.error ? `hcd: cannot run the TypeScript compiler: ${run.error.message} (npm ci installs it)` : "hcd: the build failed",
      );
      process.exit(1);
    }
  }
}
