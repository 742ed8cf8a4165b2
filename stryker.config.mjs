// Mutation testing (npm run mutate, npm run mutate:host, npm run mutate:cluster): StrykerJS changes one
// operator or condition at a time in the engine (or the host's intake, commit and rebuild code, or the
// cluster's partition log and history) and runs the tests that cover it; a mutant every test survives is a rule no test pins down. Not in CI: on 2 cores the engine run
// takes tens of minutes. The tests run from dist/, so the sandbox is compiled once (buildCommand) and
// each run selects its mutant through the environment (Stryker's mutant switching).
// Narrow a run with `npm run mutate -- --mutate engine/transition.ts`; incremental mode keeps earlier
// results in reports/stryker-incremental.json, so a second run only tests what changed.
import { readFileSync } from "node:fs";

const scope = ["host", "cluster"].includes(process.env.MUTATE_SCOPE) ? process.env.MUTATE_SCOPE : "engine";

// The test files (paths under dist/test) that exercise each source file; a run takes the union for the
// files it mutates, so that `--mutate engine/transition.ts` runs a few test files per mutant, not all.
// Every engine file also gets the model-based test, which drives the whole Shard.
const MODEL = "test/engine/status-model";
// the Shard's tests (the slow replay last)
const SHARD = [
  "test/engine/shard",
  "test/engine/alerting",
  "test/engine/own-copy",
  "test/engine/remove-channel",
  "test/engine/outbox-entries",
  "test/engine/downtime",
  "test/engine/maintenance",
  "test/engine/depends-on",
  "test/engine/acknowledge",
  "test/engine/max-duration",
  "test/engine/update-channel",
  "test/engine/failure-streak",
  "test/engine/check-directory",
  "test/engine/ping-targets",
  "test/engine/ping-records",
  "test/engine/taken-changes",
  "test/engine/queued-notifications",
  "test/engine/shard-commands",
  "test/engine/shard-deadlines",
  "test/engine/run-rules",
  "test/engine/escalation",
  "test/engine/every-failure",
  "test/replay",
];
// the shard host's tests: its intake, commits and rebuilds
const SHARD_HOST = [
  "test/host/commit-effects",
  "test/host/intake-truncation",
  "test/host/deadlines-order",
  "test/host/failed-commit",
  "test/host/failed-checkpoint",
  "test/host/rebuild-failures",
  "test/host/intake-write-fails",
  "test/persistence/intake",
  "test/persistence/disk-full",
  "test/host/restarts-model",
  "test/engine/pool",
  "test/host/intake-commits",
  "test/host/intake-replay",
];
const testsOf = {
  "engine/alerting.ts": [
    "test/engine/alerting",
    "test/engine/alerting-rules",
    "test/engine/transition",
    "test/engine/outbox-entries",
    "test/engine/notifications",
    "test/engine/downtime",
    "test/engine/acknowledge",
    "test/engine/depends-on",
    "test/engine/failure-streak",
    "test/engine/max-duration",
    "test/persistence/alerting-records",
    "test/persistence/notice-records",
    "test/engine/run-rules",
    "test/engine/escalation",
    "test/engine/every-failure",
  ],
  "engine/escalation.ts": ["test/engine/escalation", "test/engine/every-failure"],
  "engine/runs.ts": ["test/engine/run-rules", "test/engine/transition"],
  "engine/downtime-periods.ts": ["test/http/uptime", "test/http/downtime-export"],
  "engine/changes.ts": ["test/engine/changes", "test/engine/shard", "test/engine/outbox-entries", "test/engine/remove-channel"],
  "engine/classify.ts": ["test/engine/classify"],
  "engine/commands.ts": [],
  "engine/cron.ts": ["test/engine/cron", "test/engine/schedule"],
  "engine/dependencies.ts": ["test/engine/dependencies", "test/engine/depends-on"],
  "engine/durations.ts": ["test/engine/durations"],
  "engine/ids.ts": ["test/engine/ids"],
  "engine/maintenance.ts": ["test/engine/maintenance"],
  "engine/model.ts": ["test/engine/model", "test/engine/outbox-entries", "test/engine/transition"],
  "engine/oncalendar.ts": ["test/engine/oncalendar", "test/engine/schedule"],
  "engine/outcome.ts": ["test/engine/shard-state"],
  "engine/project-changes.ts": ["test/engine/project-changes", "test/engine/shard-commands", "test/engine/escalation"],
  "engine/replay.ts": ["test/engine/replay-refusals", "test/http/every-failure", "test/replay"],
  "engine/roles.ts": ["test/engine/roles"],
  "engine/schedule.ts": ["test/engine/schedule-rules", "test/engine/schedule"],
  // the shard's state: its own test, then the Shard's, which reads and writes it
  "engine/shard-state.ts": ["test/engine/shard-state", ...SHARD],
  "engine/shard.ts": SHARD,
  // the Shard's parts: each reached through the Shard, so its tests are the Shard's
  "engine/shard-core.ts": SHARD,
  "engine/shard-checks.ts": SHARD,
  "engine/shard-pings.ts": SHARD,
  "engine/shard-projects.ts": SHARD,
  "engine/shard-maintenance.ts": SHARD,
  "engine/shard-notices.ts": SHARD,
  "engine/pending-changes.ts": SHARD,
  "engine/simulate.ts": ["test/engine/simulate", "test/http/alerting-third"],
  "engine/status.ts": ["test/engine/status", "test/engine/transition", "test/engine/downtime", "test/engine/max-duration"],
  "engine/transition.ts": [
    "test/engine/transition",
    "test/engine/status",
    "test/engine/alerting",
    "test/engine/downtime",
    "test/engine/failure-streak",
    "test/engine/run-rules",
  ],
  "engine/wheel.ts": ["test/engine/wheel", "test/engine/shard"],
  "engine/zones.ts": ["test/engine/zones", "test/engine/schedule"],
  "host/intake-ledger.ts": ["test/host/intake-ledger", "test/persistence/intake"],
  "host/ping-intake.ts": [
    "test/host/ping-intake",
    "test/host/intake-truncation",
    "test/host/intake-trim",
    "test/host/deadlines-order",
    "test/host/intake-write-fails",
    "test/persistence/intake",
    "test/host/restarts-model",
    "test/engine/pool",
  ],
  // the intake, commit and rebuild code (`npm run mutate:host` narrows it to those lines)
  "host/shard-host.ts": SHARD_HOST,
  // the pings taken from the intake logs
  "host/shard-intake.ts": SHARD_HOST,
};
// the cluster's partition replica and history: tests on one real nats-server each (a few seconds a file)
const REPLICA = [
  "test/cluster/replica-state",
  "test/cluster/partition-replica",
  "test/cluster/group-commit",
  "test/cluster/partition-fence",
  "test/cluster/partition-downtime",
  "test/cluster/held-pings-takeover",
  "test/cluster/ping-batch",
  "test/cluster/intake",
  "test/cluster/answer-before-history",
  "test/cluster/background-failures",
  "test/cluster/partition-alerting",
  "test/cluster/update-channel",
];
const HISTORY = [
  "test/cluster/golden-codecs",
  "test/cluster/history-chains",
  "test/cluster/ping-segments",
  "test/cluster/held-pings-takeover",
  "test/cluster/answer-before-history",
  "test/cluster/background-failures",
  "test/cluster/group-commit",
  "test/cluster/intake",
  "test/cluster/ping-batch",
];
const clusterTestsOf = {
  "cluster/partition-replica.ts": REPLICA,
  "cluster/replica-appends.ts": REPLICA,
  "cluster/replica-restore.ts": REPLICA,
  "cluster/replica-state.ts": REPLICA,
  "cluster/applied-shard.ts": REPLICA,
  "cluster/record-effects.ts": REPLICA,
  "cluster/partition-history.ts": HISTORY,
  "cluster/history-writer.ts": HISTORY,
  "cluster/history-reader.ts": HISTORY,
  "cluster/history-codec.ts": HISTORY,
};
Object.assign(testsOf, clusterTestsOf);
/** The lines of `file` from the line holding `from` up to the one before the line holding `to`, as Stryker's `file:start-end`. */
function linesOf(file, from, to) {
  const lines = readFileSync(file, "utf8").split("\n");
  const start = lines.findIndex((l) => l.includes(from)) + 1,
    end = lines.findIndex((l) => l.includes(to));
  if (start < 1 || end < start) throw new Error(`stryker.config.mjs: ${from} .. ${to} not found in ${file}`);
  return `${file}:${start}-${end}`;
}
// of the shard host, its batches of pings, commit and rebuild code only (its intake: host/shard-intake.ts)
const hostParts = [
  linesOf("host/shard-host.ts", "  async #pingBatch(", "  #probe(): void {"),
  linesOf("host/shard-host.ts", "  async #commitAfter<T>(", "  #withLogDetails(changes"),
];
const allOf = {
  engine: Object.keys(testsOf).filter((f) => f.startsWith("engine/")),
  host: [...Object.keys(testsOf).filter((f) => f.startsWith("host/") && f !== "host/shard-host.ts"), ...hostParts],
  cluster: Object.keys(clusterTestsOf),
};

// `--mutate a.ts,b.ts:10-20` on the command line narrows the files (Stryker reads it too)
const flag = process.argv.findIndex((a) => a === "--mutate" || a === "-m" || a.startsWith("--mutate="));
const given = flag < 0 ? null : process.argv[flag].includes("=") ? process.argv[flag].split("=")[1] : process.argv[flag + 1];
const files = given === null ? allOf[scope] : given.split(",").map((f) => f.split(":")[0]);
const mutate = allOf[scope];
const tests = [
  ...new Set(files.map((f) => f.split(":")[0]).flatMap((f) => [...(testsOf[f] ?? []), ...(f.startsWith("engine/") ? [MODEL] : [])])),
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: "npm",
  testRunner: "command",
  commandRunner: { command: `node test/run.mjs --bail --jobs=1 --timeout=120 ${tests.join(" ")}` },
  buildCommand: "tsc -p tsconfig.json",
  // Stryker would rewrite tsconfig.json's extends/references with TypeScript's JS API, which TypeScript 7
  // no longer has; ours has neither, so point it at a file that does not exist and it leaves ours alone.
  tsconfigFile: "tsconfig.stryker-none.json",
  checkers: [], // no TypeScript checker: a mutant that does not compile is not worth the time here
  coverageAnalysis: "off", // the command runner can't tell which test covers which mutant
  mutate,
  ignorePatterns: ["dist", "reports", ".stryker-tmp", "data", ".scratch", "screenshots"],
  concurrency: 1, // the machine's cores are shared
  incremental: true,
  incrementalFile: `reports/stryker-incremental-${scope}.json`,
  reporters: ["clear-text", "progress", "json", "html"],
  jsonReporter: { fileName: `reports/mutation-${scope}.json` },
  htmlReporter: { fileName: `reports/mutation-${scope}.html` },
  timeoutMS: 20_000,
  thresholds: { high: 90, low: 85, break: null },
  tempDirName: ".stryker-tmp",
  cleanTempDir: true,
};
