// Store commit throughput: pings/s with durability flush vs commit, grouped (many commits per event-loop
// turn, one LMDB transaction) vs one at a time, over 10,000 checks; and restore (loadChecks) time.
// Each ping is its own Changes (the check with its new nPings + the ping record), as one request makes.
// Run: node dist/bench/store.bench.js [restoreChecks]
import type { Changes, PingWrite } from "../engine/changes.ts";
import type { Check } from "../engine/model.ts";
import { openStore } from "../persistence/store.ts";
import type { Durability } from "../persistence/open.ts";
import type { Store } from "../persistence/store.ts";
import { check, ping, project, tempDir } from "../test/helpers.ts";
import { finishScenario } from "./report.ts";
import type { Figure, ScenarioResult } from "./report.ts";

/** One measured variant: pings committed per second. */
export type StoreBenchRow = { readonly variant: string; readonly pings: number; readonly seconds: number; readonly pingsPerSec: number };
type Variant = {
  readonly name: string;
  readonly durability: Durability;
  readonly perTurn: number;
  readonly pingsPerCommit: number;
  readonly bodyBytes: number;
};

const KEEP = 20; // small enough that trimming runs during the bench (each check gets > 20 pings)
const VARIANTS: readonly Variant[] = [
  { name: "one at a time, flush", durability: "flush", perTurn: 1, pingsPerCommit: 1, bodyBytes: 0 },
  { name: "one at a time, commit", durability: "commit", perTurn: 1, pingsPerCommit: 1, bodyBytes: 0 },
  { name: "100 commits per turn, flush", durability: "flush", perTurn: 100, pingsPerCommit: 1, bodyBytes: 0 },
  { name: "1,000 commits per turn, flush", durability: "flush", perTurn: 1000, pingsPerCommit: 1, bodyBytes: 0 },
  { name: "1,000 commits per turn, commit", durability: "commit", perTurn: 1000, pingsPerCommit: 1, bodyBytes: 0 },
  { name: "1,000 commits per turn, flush, 1 kB bodies", durability: "flush", perTurn: 1000, pingsPerCommit: 1, bodyBytes: 1000 },
  { name: "1 commit of 1,000 pings per turn, flush", durability: "flush", perTurn: 1, pingsPerCommit: 1000, bodyBytes: 0 },
];

/** Runs every variant for about `seconds` each against `checks` checks; returns one row per variant. */
export async function runStoreBench(options: { checks?: number; seconds?: number } = {}): Promise<StoreBenchRow[]> {
  const { checks: count = 10_000, seconds = 2 } = options;
  const rows: StoreBenchRow[] = [];
  for (const variant of VARIANTS) rows.push(await benchVariant(variant, count, seconds));
  return rows;
}

async function benchVariant(variant: Variant, count: number, seconds: number): Promise<StoreBenchRow> {
  const dir = tempDir("hcd-bench-");
  const store = await openStore(dir.path, { durability: variant.durability });
  try {
    const owner = project({ pingLogLimit: KEEP });
    let checks: Check[] = Array.from({ length: count }, () => check({ projectId: owner.id }));
    await store.commit({ ...empty(), projects: [owner], checks });
    const body = variant.bodyBytes > 0 ? new Uint8Array(variant.bodyBytes).fill(120) : null;
    let next = 0,
      pings = 0,
      at = 0;
    const pingNext = (): { check: Check; write: PingWrite } => {
      const index = next++ % count;
      const updated: Check = { ...checks[index], nPings: checks[index].nPings + 1, lastPingAt: ++at, status: "up" };
      checks[index] = updated;
      return {
        check: updated,
        write: {
          projectId: owner.id,
          checkUuid: updated.uuid,
          keep: KEEP,
          body,
          record: ping({ n: updated.nPings, at, bodySize: body?.length ?? 0 }),
        },
      };
    };
    const started = process.hrtime.bigint(); // benches may time themselves
    const deadline = started + BigInt(Math.round(seconds * 1e9));
    while (process.hrtime.bigint() < deadline) {
      const commits: Promise<void>[] = [];
      for (let i = 0; i < variant.perTurn; i++) {
        const batch = Array.from({ length: variant.pingsPerCommit }, pingNext);
        commits.push(store.commit({ ...empty(), checks: batch.map((b) => b.check), pings: batch.map((b) => b.write) }));
      }
      await Promise.all(commits);
      pings += variant.perTurn * variant.pingsPerCommit;
    }
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
    await verify(store, checks);
    checks = [];
    return { variant: variant.name, pings, seconds: elapsed, pingsPerSec: pings / elapsed };
  } finally {
    await store.close();
    dir.remove();
  }
}

/** Spot-checks that what the bench wrote is really there (a bench of a broken store measures nothing). */
async function verify(store: Store, checks: readonly Check[]): Promise<void> {
  await store.checkpoint(); // the tables show the journal's commits from here on (as the shard's reads do)
  const sample = checks[Math.floor(checks.length / 2)];
  const [stored] = store.loadChecks(sample.projectId).filter((c) => c.uuid === sample.uuid);
  const page = store.pingPage(sample.uuid, 1000);
  if (stored?.nPings !== sample.nPings || (sample.nPings > 0 && page[0]?.n !== sample.nPings) || page.length > KEEP) {
    throw new Error(`store bench: check ${sample.uuid} has nPings ${stored?.nPings}, newest ping ${page[0]?.n}, ${page.length} entries`);
  }
}

/** Writes `count` checks over projects of 1,000, reopens the store and times loading them all back. */
export async function benchRestore(count: number): Promise<{ checks: number; writeSeconds: number; restoreSeconds: number }> {
  const dir = tempDir("hcd-bench-");
  try {
    const writer = await openStore(dir.path, { durability: "commit" });
    const started = process.hrtime.bigint();
    for (let first = 0; first < count; first += 1000) {
      const owner = project();
      const checks = Array.from({ length: Math.min(1000, count - first) }, () =>
        check({
          projectId: owner.id,
          status: "up",
          nPings: 5,
          lastPingAt: 1_700_000_000_000,
          name: "nightly backup",
          slug: "nightly-backup",
        }),
      );
      await writer.commit({ ...empty(), projects: [owner], checks });
    }
    const writeSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    await writer.close();
    const reader = await openStore(dir.path, { durability: "commit" });
    const loadStarted = process.hrtime.bigint();
    let loaded = 0;
    for (const owner of reader.loadProjects()) loaded += reader.loadChecks(owner.id).length;
    const restoreSeconds = Number(process.hrtime.bigint() - loadStarted) / 1e9;
    await reader.close();
    if (loaded !== count) throw new Error(`store bench: restored ${loaded} of ${count} checks`);
    return { checks: count, writeSeconds, restoreSeconds };
  } finally {
    dir.remove();
  }
}

function empty(): Changes {
  return { projects: [], channels: [], checks: [], deletedChecks: [], pings: [], flips: [], outbox: [] };
}

/** Returns rows as a fixed-width table. */
export function formatStoreBench(rows: readonly StoreBenchRow[], checks: number): string[] {
  return [
    `Store.commit, ${checks.toLocaleString("en")} checks, each ping its own Changes (check + ping record), keep ${KEEP}`,
    `${"variant".padEnd(44)} ${"pings".padStart(9)} ${"pings/s".padStart(10)}`,
    ...rows.map(
      (r) =>
        `${r.variant.padEnd(44)} ${r.pings.toLocaleString("en").padStart(9)} ${Math.round(r.pingsPerSec).toLocaleString("en").padStart(10)}`,
    ),
  ];
}

/** Prints rows as a fixed-width table. */
export function printStoreBench(rows: readonly StoreBenchRow[], checks: number): void {
  console.log(formatStoreBench(rows, checks).join("\n"));
}

type Restore = Awaited<ReturnType<typeof benchRestore>>;

/** Returns the summary figures (flush next to commit, per grouping) and the tables as details. */
export function storeResult(rows: readonly StoreBenchRow[], checks: number, restore: Restore): ScenarioResult {
  const rate = (variant: string) => rows.find((r) => r.variant === variant)?.pingsPerSec ?? Number.NaN;
  const figures: Figure[] = [
    {
      scenario: "store",
      figure: "pings/s, one commit at a time, flush",
      value: rate("one at a time, flush"),
      unit: "pings/s",
      baseline: { value: rate("one at a time, commit"), label: "durability commit" },
    },
    {
      scenario: "store",
      figure: "pings/s, 1,000 commits per turn, flush",
      value: rate("1,000 commits per turn, flush"),
      unit: "pings/s",
      baseline: { value: rate("1,000 commits per turn, commit"), label: "durability commit" },
    },
    {
      scenario: "store",
      figure: `restore ${restore.checks.toLocaleString("en")} checks (loadProjects + loadChecks)`,
      value: restore.restoreSeconds,
      unit: "s",
    },
  ];
  const restoreLine =
    `restore: ${restore.checks.toLocaleString("en")} checks written in ${restore.writeSeconds.toFixed(1)} s, ` +
    `loaded (loadProjects + loadChecks each) in ${restore.restoreSeconds.toFixed(2)} s`;
  return { scenario: "store", figures, details: ["```", ...formatStoreBench(rows, checks), "", restoreLine, "```"] };
}

if (process.argv[1]?.endsWith("store.bench.js")) {
  const checks = 10_000;
  const rows = await runStoreBench({ checks });
  printStoreBench(rows, checks);
  const restore = await benchRestore(Number(process.argv[2] ?? 100_000));
  const result = storeResult(rows, checks, restore);
  console.log(`\n${result.details[result.details.length - 2]}`);
  finishScenario(result);
}
