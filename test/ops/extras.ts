// System programs some tests need (promtool, prometheus, systemd-analyze): a test skips with one loud
// line when one is missing, unless HCD_REQUIRE_EXTRAS=1 (CI), where a missing program fails the test.
import { spawnSync } from "node:child_process";

/** Returns true when `program` is on PATH; otherwise prints one SKIP line, or throws under HCD_REQUIRE_EXTRAS=1. */
export function haveProgram(program: string, purpose: string): boolean {
  const found = spawnSync("sh", ["-c", `command -v ${program}`], { encoding: "utf8" }).status === 0;
  if (found) return true;
  if (process.env.HCD_REQUIRE_EXTRAS === "1") throw new Error(`${program} is not installed (needed for ${purpose}; HCD_REQUIRE_EXTRAS=1)`);
  console.log(`SKIP: ${purpose}: ${program} not installed`);
  return false;
}
