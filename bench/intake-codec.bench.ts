// What an owner spends decoding intake messages (cluster/intake-stream.ts), every node reading every one:
// the message's envelope alone (a node serving none of its partitions) and all its pings, against the
// same decoding with the envelope's sections copied out of the message (the same-run baseline: how the
// envelope was read before wireEnvelopePackr). Messages of 1, 5 and 20 pings, each ping of another
// partition; medians of 5 runs of 20,000 decodings each, after a warm-up.
// Run: npm run -s build && node dist/bench/intake-codec.bench.js
import { performance } from "node:perf_hooks";
import { Packr } from "msgpackr";
import { decodeIntake, encodeIntake } from "../cluster/intake-stream.ts";
import type { IntakePing } from "../cluster/intake-stream.ts";
import { wirePackr } from "../cluster/wire-packr.ts";
import { median } from "./measure.ts";
import { finishScenario } from "./report.ts";
import type { Figure } from "./report.ts";
import { pingOf } from "./scenarios.ts";

const RUNS = 5,
  DECODINGS = 20_000;
const copyingEnvelope = new Packr({ copyBuffers: true });

/** The decoding before: the envelope with copied sections, then each wanted section's pings. */
function decodeCopying(bytes: Uint8Array, wanted: (partition: number) => boolean): number {
  const [, sections] = copyingEnvelope.unpack(bytes) as [number, [number, Uint8Array][]];
  let pings = 0;
  for (const [partition, section] of sections) if (wanted(partition)) pings += (wirePackr.unpack(section) as unknown[]).length;
  return pings;
}

/** Median µs per decoding of `bytes` by `decode`. */
function microsPer(decode: () => unknown): number {
  for (let i = 0; i < DECODINGS; i++) decode();
  return median(
    Array.from({ length: RUNS }, () => {
      const started = performance.now();
      for (let i = 0; i < DECODINGS; i++) decode();
      return ((performance.now() - started) * 1000) / DECODINGS;
    }),
  );
}

const figures: Figure[] = [];
const details = [
  "| pings (partitions) in the message | bytes | envelope alone, µs (copied) | every ping, µs (copied) |",
  "|---|---|---|---|",
];
for (const count of [1, 5, 20]) {
  const pings: IntakePing[] = Array.from({ length: count }, (_, i) => [
    i,
    `project-${i}`,
    pingOf({ uuid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}` }, Date.UTC(2026, 0, 1) + i),
  ]);
  const bytes = encodeIntake(pings);
  const none = () => false,
    every = () => true;
  const envelope = microsPer(() => decodeIntake(bytes, none)),
    envelopeBefore = microsPer(() => decodeCopying(bytes, none));
  const all = microsPer(() => decodeIntake(bytes, every)),
    allBefore = microsPer(() => decodeCopying(bytes, every));
  details.push(
    `| ${count} | ${bytes.length} | ${envelope.toFixed(2)} (${envelopeBefore.toFixed(2)}) | ${all.toFixed(2)} (${allBefore.toFixed(2)}) |`,
  );
  figures.push(
    {
      scenario: "intake codec",
      figure: `envelope of ${count} partitions' pings, µs per message`,
      value: envelope,
      unit: "µs",
      baseline: { value: envelopeBefore, label: "sections copied" },
    },
    {
      scenario: "intake codec",
      figure: `every ping of a message of ${count}, µs per message`,
      value: all,
      unit: "µs",
      baseline: { value: allBefore, label: "sections copied" },
    },
  );
}
finishScenario({ scenario: "intake codec", figures, details });
