// Reads the import lines of every source file and fails on any import that breaks the layering
// rules: every import points down the layers, engine/ is pure, only persistence/ imports lmdb, the edges
// never touch the store, and no files import each other in a circle.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");
// `import … from "x"` and `export … from "x"` (types too), `import "x"` and `import("x")`
const IMPORT = /^\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|^\s*import\s+["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return sources(path);
    return name.endsWith(".ts") && !name.endsWith(".d.ts") ? [path] : [];
  });
}

function imports(file: string): { spec: string; typeOnly: boolean }[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  return [...text.matchAll(IMPORT)].map((m) => ({ spec: m[1] ?? m[2] ?? m[3], typeOnly: /^\s*(?:import|export)\s+type\s/.test(m[0]) }));
}

/** Resolves a relative import to a repo path ("engine/model.ts"); packages stay as they are. */
function target(file: string, spec: string): string {
  if (!spec.startsWith(".")) return spec;
  return relative(ROOT, join(ROOT, file, "..", spec));
}

/**
 * The layers, from the bottom up; every import points down (or stays in its folder). The edges (one layer,
 * several folders) never import each other. Every top-level folder with sources must be listed here, so a
 * new folder takes a place in the order before it can hold code.
 */
const LAYERS: readonly (readonly string[])[] = [
  ["lib"], // pure helpers that know nothing of checks: HTML escaping, the reference's ISO dates
  ["engine"], // the pure core: check model, status, transitions, schedules, Shard
  ["persistence"], // the store: LMDB + msgpackr
  ["host"], // shards in threads, the pool and directory, real time, the check's API JSON
  ["cluster"], // cluster mode on NATS JetStream: partitions, the replicated command log, partition ownership
  ["http", "notify", "mail"], // the edges: API and pings, outbound notifications, inbound mail
  ["app"], // process entry: configuration, start-up, the CLI, the shard worker
];
const OUTSIDE = new Set(["bench", "test", "bin", "node_modules", "dist", "docs", "contrib"]);
const folderOf = (path: string) => path.split("/")[0];
const layerOf = (folder: string) => LAYERS.findIndex((layer) => layer.includes(folder));

const rules: [string, (file: string, to: string, typeOnly: boolean) => string | null][] = [
  [
    "every import points down the layers (lib ← engine ← persistence ← host ← cluster ← http, notify, mail ← app)",
    (file, to) => {
      if (!existsSync(join(ROOT, to))) return null; // a package
      const from = folderOf(file),
        into = folderOf(to);
      if (from === into) return null;
      if (layerOf(into) === -1) return `${into}/ is not a layer`;
      if (layerOf(into) > layerOf(from)) return "upward";
      if (layerOf(into) === layerOf(from)) return "sideways between edges";
      return null;
    },
  ],
  [
    "the engine core and lib are pure: no node: modules, no packages",
    (file, to) => {
      if (!file.startsWith("engine/") && !file.startsWith("lib/")) return null;
      if (to.startsWith("node:")) return "node module";
      if (!to.startsWith("engine/") && !to.startsWith("lib/")) return "package";
      return null;
    },
  ],
  ["only persistence/ imports lmdb", (file, to) => (to === "lmdb" && !file.startsWith("persistence/") ? "lmdb" : null)],
  ["only cluster/ imports the NATS client", (file, to) => (/^(nats$|@nats-io\/)/.test(to) && !file.startsWith("cluster/") ? "nats" : null)],
  [
    "persistence/ imports only types from the engine (and engine/model.ts)",
    (file, to, typeOnly) => {
      if (!file.startsWith("persistence/")) return null;
      if (to.startsWith("engine/") && !typeOnly && to !== "engine/model.ts") return "engine code";
      return null;
    },
  ],
  [
    "the edges never open the store: http/, notify/ and mail/ don't import persistence/ or lmdb",
    (file, to) => (/^(http|notify|mail)\//.test(file) && (to.startsWith("persistence/") || to === "lmdb") ? "store" : null),
  ],
];

const folders = readdirSync(ROOT)
  .filter((name) => !name.startsWith(".") && !OUTSIDE.has(name) && statSync(join(ROOT, name)).isDirectory())
  .filter((name) => sources(name).length > 0);
const files = folders.flatMap((dir) => sources(dir));

test("every folder with sources has a layer", () => {
  assert.equal(
    folders.filter((folder) => layerOf(folder) === -1),
    [],
  );
});

test("there are sources to check", () => {
  assert.ok(files.length > 10);
  assert.ok(files.includes("engine/shard.ts"));
  const seen = imports("host/pool.ts");
  assert.ok(
    seen.some((i) => i.spec === "./pool-deadlines.ts" && !i.typeOnly),
    "value imports are seen",
  );
  assert.ok(
    seen.some((i) => i.spec === "./pool-api.ts" && i.typeOnly),
    "type imports are seen as such",
  );
});

test("the layer rule refuses upward and sideways imports and allows downward ones", () => {
  const [, layered] = rules[0];
  assert.is(layered("host/pool.ts", "http/app.ts", false), "upward");
  assert.is(layered("engine/shard.ts", "host/pool.ts", true), "upward");
  assert.is(layered("notify/render.ts", "http/present.ts", false), "sideways between edges");
  assert.is(layered("http/app.ts", "host/pool-api.ts", false), null);
  assert.is(layered("app/main.ts", "http/app.ts", false), null);
  assert.is(layered("cluster/jetstream-log.ts", "http/app.ts", false), "upward");
  assert.is(layered("host/pool.ts", "cluster/partitions.ts", false), "upward");
  assert.is(layered("cluster/ownership.ts", "host/pool-api.ts", true), null);
  assert.is(layered("http/app.ts", "cluster/partitions.ts", false), null);
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

test("no Date.now(), argument-less new Date() or timers in the engine core or lib", () => {
  const offenders = files
    .filter((f) => f.startsWith("engine/") || f.startsWith("lib/"))
    .filter((f) => /Date\.now\(\)|new Date\(\)|setTimeout\(|setInterval\(/.test(readFileSync(join(ROOT, f), "utf8")));
  assert.equal(offenders, []);
});

/**
 * The circles of a graph of files (its strongly connected components of more than one file, or a file
 * importing itself), each as one path around it, a file → b file → … → a file (Tarjan's algorithm).
 */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const index = new Map<string, number>(),
    low = new Map<string, number>(),
    stack: string[] = [],
    onStack = new Set<string>();
  const found: string[] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component = new Set<string>();
    let top: string;
    do {
      top = stack.pop()!;
      onStack.delete(top);
      component.add(top);
    } while (top !== file);
    if (component.size > 1 || (graph.get(file) ?? []).includes(file)) found.push(pathAround(graph, component, file));
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

/** One way around a circle's files from `start` back to it, by breadth-first search inside the component. */
function pathAround(graph: ReadonlyMap<string, readonly string[]>, component: ReadonlySet<string>, start: string): string {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const next of graph.get(file) ?? []) {
      if (!component.has(next)) continue;
      if (next === start) {
        const back: string[] = [];
        for (let at = file; at !== start; at = cameFrom.get(at)!) back.push(at);
        return [start, ...back.reverse(), start].join(" → ");
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, file);
        queue.push(next);
      }
    }
  }
  return [...component].join(", ");
}

test("the circle finder finds circles, with their way around, and nothing in a graph without one", () => {
  const graph = (edges: Record<string, string[]>) => new Map(Object.entries(edges));
  assert.equal(circles(graph({ a: ["b"], b: ["c"], c: [] })), []);
  assert.equal(circles(graph({ a: ["b", "c"], b: ["d"], c: ["d"], d: [] })), [], "a diamond is no circle");
  assert.equal(circles(graph({ a: ["b"], b: ["a"] })), ["a → b → a"]);
  assert.equal(circles(graph({ x: ["a"], a: ["b"], b: ["c"], c: ["a"] })), ["a → b → c → a"]);
  assert.equal(circles(graph({ a: ["a"] })), ["a → a"]);
  assert.equal(circles(graph({ a: ["b"], b: ["a"], c: ["d"], d: ["c"] })).length, 2);
});

test("no import circles: no source file imports itself through others (type imports count: they tie files as much)", () => {
  const graph = new Map(
    files.map((file) => [
      file,
      imports(file)
        .map(({ spec }) => target(file, spec))
        .filter((to) => files.includes(to)),
    ]),
  );
  assert.ok(
    [...graph.values()].some((edges) => edges.length > 0),
    "the graph has edges",
  );
  assert.equal(circles(graph), []);
});

test.run();
