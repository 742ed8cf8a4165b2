// Many more random histories with restarts and crashes than `npm test` runs (test/host/restarts-model.test.ts),
// longer ones, for a bounded time: a new seed each run unless MODEL_SEED is given; a failure prints its seed
// and the shrunk history, to replay with MODEL_SEED=<seed>.
import { test } from "uvu";
import fc from "fast-check";
import { restartHistoryArb, runOnPool } from "../host/pool-against-model.ts";

const SEED = Number(process.env.MODEL_SEED ?? Date.now() % 2 ** 31);
const SECONDS = Number(process.env.MODEL_SECONDS ?? 60);

test(`a pool restarted and crashed at random points agrees with the reference model for ${SECONDS} s (seed ${SEED})`, async () => {
  const details = await fc.check(
    fc.asyncProperty(restartHistoryArb(30), ({ specs, steps }) => runOnPool(specs, steps)),
    { seed: SEED, numRuns: 1_000_000, interruptAfterTimeLimit: SECONDS * 1000, markInterruptAsFailure: false },
  );
  if (details.failed) throw new Error(fc.defaultReportMessage(details) ?? "failed");
  if (details.numRuns < SECONDS / 10) throw new Error(`only ${details.numRuns} histories in ${SECONDS} s: too few to mean much`);
  console.log(`  ${details.numRuns} histories with restarts and crashes agreed with the model (seed ${SEED})`);
});

test.run();
