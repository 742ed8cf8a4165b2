// Mutation testing (npm run mutate, npm run mutate:host): StrykerJS changes one operator or condition at
// a time in the engine (or the host's intake, commit and rebuild code) and runs the fast tests that cover
// it; a mutant every test survives is a rule no test pins down. Not in CI: on 2 cores the engine run
// takes tens of minutes. The tests run from dist/, so the sandbox is compiled once (buildCommand) and
// each run selects its mutant through the environment (Stryker's mutant switching).
// Narrow a run with `npm run mutate -- --mutate engine/transition.ts`; incremental mode keeps earlier
// results in reports/stryker-incremental.json, so a second run only tests what changed.
const scope = process.env.MUTATE_SCOPE === "host" ? "host" : "engine";

// Each scope's sources and the test files that exercise them (paths under dist/test, --bail: the first
// failing file kills the mutant).
const scopes = {
  engine: {
    mutate: ["engine/**/*.ts"],
    tests: ["test/engine/alerting", "test/engine/classify", "test/engine/durations", "test/engine/outbox-entries",
      "test/engine/own-copy", "test/engine/remove-channel", "test/engine/schedule", "test/engine/shard",
      "test/engine/simulate", "test/engine/status", "test/engine/transition", "test/engine/wheel",
      "test/engine/status-model", "test/replay"],
  },
  host: {
    mutate: ["host/intake-ledger.ts", "host/ping-intake.ts", "host/shard-host.ts"],
    tests: ["test/host/intake-ledger", "test/persistence/intake", "test/persistence/store-crash",
      "test/persistence/disk-full", "test/engine/pool", "test/engine/restarts-model"],
  },
};
const { mutate, tests } = scopes[scope];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: "npm",
  testRunner: "command",
  commandRunner: { command: `node test/run.mjs --bail --timeout=120 ${tests.join(" ")}` },
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
