// Reads the .cpuprofile files that `node --cpu-prof` writes (one per thread) and says where the time went:
// self time grouped by file or package, and the top functions, as markdown lines.
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";

type ProfileNode = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

/** Returns markdown lines summarizing each profile (threads ordered by busy time, the busiest first). */
export function summarizeProfiles(files: readonly string[]): string[] {
  const summaries = files
    .filter((f) => f.endsWith(".cpuprofile"))
    .map(summarize)
    .sort((a, b) => b.busyUs - a.busyUs);
  return summaries.flatMap((s) => s.lines);
}

function summarize(file: string): { busyUs: number; lines: string[] } {
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i + 1] ?? 0)));
  const groups = new Map<string, number>(),
    functions = new Map<string, number>();
  let idleUs = 0,
    busyUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined) continue;
    if (frame.functionName === "(idle)") {
      idleUs += us;
      continue;
    }
    busyUs += us;
    const group = groupOf(frame.url, frame.functionName);
    groups.set(group, (groups.get(group) ?? 0) + us);
    const name = `${frame.functionName || "(anonymous)"} ${shortUrl(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ""}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
  }
  const wallUs = profile.endTime - profile.startTime;
  const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
  const share = (us: number) => `${((us / Math.max(1, busyUs)) * 100).toFixed(1)}%`;
  const thread = /\.(\d+)\.(\d+)\.\d+\.cpuprofile$/.exec(basename(file));
  const lines = [
    `Thread ${thread ? `pid ${thread[1]} thread ${thread[2]}` : basename(file)}: busy ${(busyUs / 1e6).toFixed(1)} s of ${(wallUs / 1e6).toFixed(1)} s profiled ` +
      `(idle ${(idleUs / 1e6).toFixed(1)} s)`,
    "",
    "| self time by file / package | share of busy |",
    "|---|---|",
    ...top(groups, 10).map(([g, us]) => `| ${g} | ${share(us)} |`),
    "",
    "| top functions (self time) | share of busy |",
    "|---|---|",
    ...top(functions, 12).map(([f, us]) => `| ${f.replaceAll("|", "\\|")} | ${share(us)} |`),
    "",
  ];
  return { busyUs, lines };
}

/** Returns the group a frame's self time counts for: a node_modules package, an hcd source dir, a node: module, or a VM state. */
function groupOf(url: string, functionName: string): string {
  if (url === "") return functionName.startsWith("(") ? functionName : "(native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `package ${pkg[1]}`;
  const own = /\/dist\/([^/]+)\//.exec(url);
  if (own) return `hcd ${own[1]}/`;
  if (url.startsWith("node:")) return url.replace(/^node:(internal\/)?/, "node ").replace(/\/[^/]+$/, "");
  return url;
}

function shortUrl(url: string): string {
  return url.replace(/^file:\/\/.*?\/(node_modules|dist)\//, "$1/");
}

/** Returns the details section a bench prints for the profiles written to `dir` (--cpu-prof). */
export function profileDetails(dir: string): string[] {
  return [
    "",
    "Where hcd's time goes (--cpu-prof, self time by file, then the top functions):",
    "",
    ...summarizeProfiles(readdirSync(dir).map((file) => join(dir, file))),
  ];
}
