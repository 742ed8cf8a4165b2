// Scenario files replayed from an empty engine: identical state and flips every time, docs/simulation-and-replay.md's example
// line for line, and `hcd replay` giving the same bytes in two processes.
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { test } from "uvu";
import * as assert from "uvu/assert";
import type { Flip } from "../engine/model.ts";
import { replay } from "../engine/replay.ts";
import type { ShardSnapshot } from "../engine/shard-state.ts";
import { mixedWeek } from "../bench/scenarios.ts";
import { reasonOf } from "../http/errors.ts";
import { replayLines } from "../app/replay-lines.ts";
import type { ScenarioFile } from "../app/scenario-file.ts";
import { scenarioOf } from "../app/scenario-file.ts";
import { tempDir } from "./helpers.ts";

const ROOT = join(import.meta.dirname, "..", "..");

function run(file: ScenarioFile): { snapshot: ShardSnapshot; flips: Flip[]; refused: number } {
  const scenario = scenarioOf(file);
  if (!scenario.ok) throw new Error(reasonOf(scenario.failure));
  const flips: Flip[] = [];
  let refused = 0;
  const snapshot = replay(scenario.value, (event) => {
    if (event.event === "flip") flips.push(event.flip);
    if (event.event === "refused") refused++;
  });
  return { snapshot, flips, refused };
}

test("a mixed week replayed twice from empty gives identical snapshots and flips", () => {
  const first = run(mixedWeek());
  const second = run(mixedWeek());
  assert.is(first.refused, 0);
  assert.ok(first.flips.length > 50, `a meaningful scenario flips often (got ${first.flips.length})`);
  assert.ok(first.flips.some((f) => f.reason === "timeout") && first.flips.some((f) => f.reason === "fail"));
  assert.ok(first.flips.some((f) => f.to === "paused") && first.flips.some((f) => f.from === "paused"));
  assert.equal(second.snapshot, first.snapshot);
  assert.equal(second.flips, first.flips);
});

test("flips of each check are in time order and alternate their statuses", () => {
  const { flips } = run(mixedWeek(11));
  const byCheck = new Map<string, Flip[]>();
  for (const flip of flips) byCheck.set(flip.checkUuid, [...(byCheck.get(flip.checkUuid) ?? []), flip]);
  for (const list of byCheck.values()) {
    list.forEach((flip, i) => {
      assert.is(flip.n, i + 1);
      if (i > 0) {
        assert.ok(flip.at >= list[i - 1].at, "flips in time order");
        assert.is(flip.from, list[i - 1].to);
      }
    });
  }
});

test("a different seed gives a different history", () => {
  assert.not.equal(run(mixedWeek(1)).flips, run(mixedWeek(2)).flips);
});

/** The scenario of docs/simulation-and-replay.md's "Replaying a scenario" section (the JSON block after its marker line). */
function documentedScenario(): unknown {
  const page = readFileSync(join(ROOT, "docs", "simulation-and-replay.md"), "utf8");
  const block = /<!-- replay example -->\s*```json\n([\s\S]*?)```/.exec(page);
  assert.ok(block, "docs/simulation-and-replay.md has the replay example");
  return JSON.parse(block[1]);
}

test("docs/simulation-and-replay.md's example prints the hand-computed flips and notifications", () => {
  const lines: string[] = [];
  const done = replayLines(documentedScenario(), (line) => lines.push(line));
  assert.ok(done.ok);
  const digest = lines.pop() ?? "";
  assert.match(digest, /^\{"digest":"[0-9a-f]{64}"\}$/);
  const flip = (at: string, from: string, to: string, reason: string) =>
    JSON.stringify({ at: `2026-03-28T${at}.000Z`, check: "backup", flip: { from, to, reason } });
  const note = (at: string, status: string) =>
    JSON.stringify({ at: `2026-03-28T${at}.000Z`, check: "backup", notification: { channel: "oncall", kind: "email", status } });
  assert.equal(lines, [
    flip("00:01:00", "new", "up", ""), // the first ping (new → up notifies no one)
    flip("00:55:00", "up", "down", "fail"),
    note("00:55:00", "down"), // exit status 1
    flip("01:05:00", "down", "up", ""),
    note("01:05:00", "up"),
    // last ping 01:05 + timeout 1 h + grace 10 min
    flip("02:15:00", "up", "down", "timeout"),
    note("02:15:00", "down"),
    flip("02:30:00", "down", "paused", ""),
    flip("02:40:00", "paused", "new", ""),
    JSON.stringify({ at: "2026-03-28T02:41:40.000Z", command: 9, refused: "check is not paused" }),
  ]);
});

test("hcd replay prints the same bytes in two processes", async () => {
  const dir = tempDir();
  try {
    const file = join(dir.path, "week.json");
    writeFileSync(file, JSON.stringify(mixedWeek()));
    const hcd = (): Promise<{ stdout: string }> =>
      promisify(execFile)(process.execPath, [join(ROOT, "bin", "hcd.mjs"), "replay", file], { maxBuffer: 64 * 1024 * 1024 });
    const [first, second] = await Promise.all([hcd(), hcd()]);
    assert.ok(first.stdout.split("\n").length > 50, "many lines");
    assert.match(first.stdout, /"flip":\{"from":"up","to":"down","reason":"timeout"\}/);
    assert.match(first.stdout, /"notification":\{"channel":"hook","kind":"webhook","status":"down"\}/);
    assert.match(first.stdout, /\n\{"digest":"[0-9a-f]{64}"\}\n$/);
    assert.ok(first.stdout === second.stdout, "byte-identical output");
    // the digest follows the state: a different history ends elsewhere
    writeFileSync(file, JSON.stringify(mixedWeek(8)));
    const other = await hcd();
    assert.not.equal(other.stdout.trimEnd().split("\n").at(-1), first.stdout.trimEnd().split("\n").at(-1));
  } finally {
    dir.remove();
  }
});

test("a bad scenario file is refused with the command and the API's reason", () => {
  const cases: [unknown, string][] = [
    [[], "the file is not a JSON object"],
    [{ start: "yesterday", commands: [] }, "start must be an ISO 8601 date and time with a zone"],
    [{ start: "2026-01-01T00:00:00Z" }, "commands must be a list"],
    [
      {
        start: "2026-01-01T00:00:00Z",
        commands: [
          { at: 5, do: "advance" },
          { at: 4, do: "advance" },
        ],
      },
      "commands[1].at is earlier than the command before it",
    ],
    [
      { start: "2026-01-01T00:00:00Z", commands: [{ at: 0, do: "create", check: "a", fields: { timeout: 5 } }] },
      "commands[0]: json validation error: timeout is too small",
    ],
    [
      { start: "2026-01-01T00:00:00Z", commands: [{ at: 0, do: "ping", check: "a", exit_status: 256 }] },
      "commands[0]: json validation error: exit_status must be an integer from 0 to 255",
    ],
    [
      { start: "2026-01-01T00:00:00Z", commands: [{ at: 0, do: "jump" }] },
      "commands[0]: json validation error: do must be one of channel, create, update, ping, pause, resume, acknowledge, maintenance, escalation, advance",
    ],
  ];
  for (const [file, reason] of cases) {
    const lines: string[] = [];
    const done = replayLines(file, (line) => lines.push(line));
    assert.equal(done.ok ? "accepted" : reasonOf(done.failure), reason);
    assert.equal(lines, [], "nothing printed");
  }
});

test.run();
