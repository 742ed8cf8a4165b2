// Many more random histories against the reference model than `npm test` runs (test/engine/status-model.test.ts),
// for a bounded time: a new seed each run unless MODEL_SEED is given; a failure prints its seed and the
// shrunk history, to replay with MODEL_SEED=<seed>.
import { test } from "uvu";
import fc from "fast-check";
import { historyArb, runOnShard } from "../engine/shard-against-model.ts";

const SEED = Number(process.env.MODEL_SEED ?? Date.now() % 2 ** 31);
const SECONDS = Number(process.env.MODEL_SECONDS ?? 60);

test(`a Shard agrees with the reference model on random histories for ${SECONDS} s (seed ${SEED})`, () => {
  const details = fc.check(
    fc.property(historyArb, ({ specs, steps }) => runOnShard(specs, steps)),
    { seed: SEED, numRuns: 10_000_000, interruptAfterTimeLimit: SECONDS * 1000, markInterruptAsFailure: false },
  );
  if (details.failed) throw new Error(fc.defaultReportMessage(details) ?? "failed");
  if (details.numRuns < 1000) throw new Error(`only ${details.numRuns} histories in ${SECONDS} s: too few to mean much`);
  console.log(`  ${details.numRuns} histories agreed with the model (seed ${SEED})`);
});

test.run();
