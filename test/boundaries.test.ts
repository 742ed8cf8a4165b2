// Reads the import lines of every source file and fails on any import that breaks the layering
// rules of STYLE.md: engine/ is pure, only persistence/ imports lmdb, http/ never touches the store.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");
const IMPORT = /^\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']/gm;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sources(path);
    return name.endsWith(".ts") && !name.endsWith(".d.ts") ? [path] : [];
  });
}

function imports(file: string): { spec: string; typeOnly: boolean }[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  return [...text.matchAll(IMPORT)].map((m) => ({ spec: m[1], typeOnly: /^\s*(?:import|export)\s+type\s/.test(m[0]) }));
}

/** Resolves a relative import to a repo path ("engine/model.ts"); packages stay as they are. */
function target(file: string, spec: string): string {
  if (!spec.startsWith(".")) return spec;
  return relative(ROOT, join(ROOT, file, "..", spec));
}

const rules: [string, (file: string, to: string, typeOnly: boolean) => string | null][] = [
  ["engine core is pure: no node: modules, no packages, no host, persistence or http",
    (file, to) => {
      if (!file.startsWith("engine/") || file.startsWith("engine/host/")) return null;
      if (to.startsWith("node:")) return "node module";
      if (!to.startsWith("engine/") && !to.startsWith("bench/")) return "package";
      if (to.startsWith("persistence/") || to.startsWith("http/")) return "outer layer";
      if (to.startsWith("engine/host/")) return "host";
      return null;
    }],
  ["only persistence/ imports lmdb", (file, to) => (to === "lmdb" && !file.startsWith("persistence/") ? "lmdb" : null)],
  ["persistence/ knows nothing of http/ or the host and imports only types from the engine",
    (file, to, typeOnly) => {
      if (!file.startsWith("persistence/")) return null;
      if (to.startsWith("http/") || to.startsWith("engine/host/")) return "outer layer";
      if (to.startsWith("engine/") && !typeOnly && to !== "engine/model.ts") return "engine code";
      return null;
    }],
  ["http/ never imports persistence/ or lmdb", (file, to) => (file.startsWith("http/") && (to.startsWith("persistence/") || to === "lmdb") ? "store" : null)],
];

const files = ["engine", "persistence", "http", "notify", "mail", "ops"].flatMap((dir) => {
  try { return sources(dir); } catch { return []; }
});

test("there are sources to check", () => {
  assert.ok(files.length > 10);
  assert.ok(files.includes("engine/shard.ts"));
  const seen = imports("engine/host/pool.ts");
  assert.ok(seen.some((i) => i.spec === "node:crypto" && !i.typeOnly), "value imports are seen");
  assert.ok(seen.some((i) => i.spec === "./pool-api.ts" && i.typeOnly), "type imports are seen as such");
});

for (const [name, rule] of rules) {
  test(name, () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const { spec, typeOnly } of imports(file)) {
        const why = rule(file, target(file, spec), typeOnly);
        if (why) broken.push(`${file} imports ${spec} (${why})`);
      }
    }
    assert.equal(broken, []);
  });
}

test("no Date.now(), argument-less new Date() or timers outside engine/host, bench and the front ends' edges", () => {
  const offenders = files.filter((f) => f.startsWith("engine/") && !f.startsWith("engine/host/"))
    .filter((f) => /Date\.now\(\)|new Date\(\)|setTimeout\(|setInterval\(/.test(readFileSync(join(ROOT, f), "utf8")));
  assert.equal(offenders, []);
});

test.run();
