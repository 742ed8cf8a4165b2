// contrib/hcd.service: `systemd-analyze verify` accepts it without a single complaint, and it keeps
// its hardening (a dedicated user, a state directory, a read-only system, no new privileges).
import { test } from "uvu";
import * as assert from "uvu/assert";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tempDir } from "../helpers.ts";
import { haveProgram } from "./extras.ts";

const UNIT = fileURLToPath(new URL("../../../contrib/hcd.service", import.meta.url));

/** Returns what `systemd-analyze verify` says about the unit text (its exit status and lines naming the unit). */
function verify(text: string): { status: number | null; complaints: string[] } {
  const dir = tempDir();
  try {
    // the node binary of this machine, wherever it is installed; everything else as shipped
    const file = join(dir.path, "hcd.service");
    writeFileSync(file, text.replace(/^ExecStart=\S+/m, `ExecStart=${process.execPath}`));
    const run = spawnSync("systemd-analyze", ["verify", file], { encoding: "utf8" });
    const complaints = `${run.stdout}\n${run.stderr}`.split("\n").filter((line) => line.includes("hcd.service"));
    return { status: run.status, complaints };
  } finally {
    dir.remove();
  }
}

test("systemd-analyze verify accepts contrib/hcd.service without a warning", () => {
  if (!haveProgram("systemd-analyze", "verifying contrib/hcd.service")) return;
  const text = readFileSync(UNIT, "utf8");
  assert.equal(verify(text), { status: 0, complaints: [] });
  // the same check notices a broken unit (an unknown key, a bad value)
  const broken = verify(text.replace("ProtectSystem=strict", "ProtectSystem=bogus\nFooBar=1"));
  assert.is(broken.complaints.length, 2, broken.complaints.join("\n"));
});

test("the unit is hardened", () => {
  const text = readFileSync(UNIT, "utf8");
  for (const line of [
    "User=hcd",
    "StateDirectory=hcd",
    "Environment=DATA_DIR=/var/lib/hcd",
    "NoNewPrivileges=yes",
    "ProtectSystem=strict",
    "ProtectHome=yes",
    "PrivateTmp=yes",
    "CapabilityBoundingSet=",
    "KillSignal=SIGTERM",
  ]) {
    assert.ok(text.split("\n").includes(line), `missing ${line}`);
  }
});

test.run();
