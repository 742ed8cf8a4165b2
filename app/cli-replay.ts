// `hcd replay FILE`: a scenario file run on a fresh in-memory engine (replay-lines.ts); JSON lines on stdout.
import { readFileSync } from "node:fs";
import { reasonOf } from "../http/errors.ts";
import { replayLines } from "./replay-lines.ts";

export const REPLAY_HELP = `  hcd replay FILE
        runs a scenario (docs/simulation-and-replay.md) on a fresh engine with a virtual clock and prints
        every flip, notification and refused command as a JSON line, then {"digest": ...} of the final state`;

/** Runs `hcd replay`; returns the exit status (0 ok, 1 bad or unreadable file, 2 usage error). */
export function runReplay(words: readonly string[], write: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): number {
  if (words.length !== 1) {
    console.error(`hcd: replay needs exactly one FILE\n\n${REPLAY_HELP}`);
    return 2;
  }
  const file = words[0];
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    console.error(`hcd: ${file}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  const done = replayLines(parsed, write);
  if (done.ok) return 0;
  console.error(`hcd: ${file}: ${reasonOf(done.failure)}`);
  return 1;
}
