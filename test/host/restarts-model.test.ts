// Random histories with restarts and crashes at random points, through a real pool on a temp DATA_DIR
// (pool-against-model.ts) against the reference model: after every step status, n_pings, last_ping and
// the flips agree, and every acknowledged ping is logged exactly once. A fixed seed and a few histories
// here (each start of the pool costs a process, so a failure is reported as found, not shrunk);
// test/stress/restarts-model.stress.ts runs many more and shrinks what fails.
import { test } from "uvu";
import fc from "fast-check";
import { restartHistoryArb, runOnPool } from "./pool-against-model.ts";

test("a pool restarted and crashed at random points, at once or after a gap, agrees with the reference model on 6 random histories", async () => {
  await fc.assert(
    fc.asyncProperty(restartHistoryArb(16), ({ specs, steps }) => runOnPool(specs, steps)),
    { seed: 20_261_127, numRuns: 6, endOnFailure: true },
  );
});

test.run();
