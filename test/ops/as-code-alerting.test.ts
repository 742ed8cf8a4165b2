// `hcd export` and `hcd apply -f` carry the alerting fields of the third part, the real CLI against a real
// server: a check's run rules (min_duration, alert_on_overlap, max_runs_per_period) and its own escalation
// policy (its steps' channels by name; [] = none, left out = the project's), the project's policy, and a
// channel's every_failure. The export writes them; a changed file plans and makes exactly those changes;
// references to no channel and steps the server refuses are refused with their paths before any request.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { tempDir } from "../helpers.ts";
import { startServer, stopServer } from "../security/real-server.ts";
import type { RealServer } from "../security/real-server.ts";
import { adminCall, everything, hcdIn, remote, richProject, SERVER_ENV } from "./as-code-rig.ts";
import type { Rich } from "./as-code-rig.ts";

type Json = Record<string, unknown>;
type FileProject = Json & { checks: Json[]; channels: Json[] };

let server: RealServer;
let dir: { path: string; remove: () => void };
let rich: Rich;

test.before(async () => {
  dir = tempDir();
  server = await startServer({ dataDir: join(dir.path, "data"), env: SERVER_ENV });
  rich = await richProject(server);
});

test.after(async () => {
  assert.is(await stopServer(server), 0, server.output());
  dir.remove();
});

const exportedProject = async (): Promise<FileProject> => {
  const run = await hcdIn(["export", "--include-secrets", ...remote(server)]);
  assert.is(run.status, 0, run.stderr);
  return (parse(run.stdout) as { projects: FileProject[] }).projects[0];
};
const checkOf = (project: FileProject, uuid: string) => project.checks.find((c) => c.uuid === uuid) as Json;
const channelOf = (project: FileProject, name: string) => project.channels.find((c) => c.name === name) as Json;

test("the export writes the run rules, each escalation policy by channel names, and every_failure", async () => {
  const project = await exportedProject();
  assert.equal(project.escalation, [{ after: 1_800, channels: ["mail"] }], "the project's policy");
  const simple = checkOf(project, rich.checks.simple);
  assert.equal([simple.min_duration, simple.alert_on_overlap, simple.max_runs_per_period], [60, true, 3]);
  assert.equal(simple.escalation, [
    { after: 600, channels: ["slack"] },
    { after: 3_600, channels: ["pagerduty", "sms"] },
  ]);
  assert.equal(checkOf(project, rich.checks.bare).escalation, [], "its own policy of no step");
  const cron = checkOf(project, rich.checks.cron);
  for (const field of ["escalation", "min_duration", "alert_on_overlap", "max_runs_per_period"]) {
    assert.not.ok(Object.hasOwn(cron, field), `${field}: the default (the project's policy, off) is not written`);
  }
  assert.is(channelOf(project, "ntfy").every_failure, true);
  assert.not.ok(Object.hasOwn(channelOf(project, "slack"), "every_failure"), "false is the default, not written");
});

test("a changed file plans exactly those changes, makes them through the admin API, and then matches", async () => {
  const project = await exportedProject();
  project.escalation = [
    { after: 900, channels: ["telegram"] },
    { after: 7_200, channels: ["mail", "zulip"] },
  ];
  const simple = checkOf(project, rich.checks.simple);
  Object.assign(simple, { min_duration: 120, alert_on_overlap: false, escalation: [{ after: 300, channels: ["sms"] }] });
  delete simple.max_runs_per_period; // back to the default: off
  delete checkOf(project, rich.checks.bare).escalation; // back to the project's policy
  Object.assign(checkOf(project, rich.checks.cron), { escalation: [], max_runs_per_period: 1 });
  channelOf(project, "ntfy").every_failure = false;
  channelOf(project, "slack").every_failure = true;
  const file = join(dir.path, "alerting.json");
  writeFileSync(file, JSON.stringify({ projects: [project] }));

  const dry = await hcdIn(["apply", "-f", file, "--dry-run", ...remote(server)]);
  assert.is(dry.status, 0, dry.stderr);
  assert.equal(
    dry.stdout.split("\n").filter((l) => /^ {2}[+~-] /.test(l)),
    [
      '  ~ update channel "slack" (slack) in project "rich": every_failure false → true',
      '  ~ update channel "ntfy" (ntfy) in project "rich": every_failure true → false',
      '  ~ update project "rich": escalation',
      '  ~ update check "nightly-backup" in project "rich": min_duration 60 → 120; alert_on_overlap true → false; max_runs_per_period 3 → 0; escalation',
      '  ~ update check "hourly-sync" in project "rich": max_runs_per_period 0 → 1; escalation',
      `  ~ update check ${JSON.stringify(rich.checks.bare)} in project "rich": escalation`,
    ],
  );

  const applied = await hcdIn(["apply", "-f", file, ...remote(server)]);
  assert.is(applied.status, 0, applied.stderr + applied.stdout);
  const base = `/admin/v1/projects/${rich.project.id}`;
  const ids = rich.channels;
  const sorted = (...names: string[]) =>
    names
      .map((n) => ids[n])
      .sort()
      .join(",");
  assert.equal((await adminCall<Json>(server, "GET", `${base}/escalation`)).escalation, [
    { after: 900, channels: sorted("telegram") },
    { after: 7_200, channels: sorted("mail", "zulip") },
  ]);
  const nightly = await adminCall<Json>(server, "GET", `${base}/checks/${rich.checks.simple}`);
  assert.equal(
    [nightly.min_duration, nightly.alert_on_overlap, nightly.max_runs_per_period, nightly.escalation],
    [120, false, 0, [{ after: 300, channels: sorted("sms") }]],
  );
  const hourly = await adminCall<Json>(server, "GET", `${base}/checks/${rich.checks.cron}`);
  assert.equal([hourly.max_runs_per_period, hourly.escalation], [1, []]);
  assert.is((await adminCall<Json>(server, "GET", `${base}/checks/${rich.checks.bare}`)).escalation, null, "the project's policy again");
  assert.equal(
    [
      (await adminCall<Json>(server, "GET", `${base}/channels/${ids.ntfy}`)).every_failure,
      (await adminCall<Json>(server, "GET", `${base}/channels/${ids.slack}`)).every_failure,
    ],
    [false, true],
  );

  const again = await hcdIn(["apply", "-f", file, ...remote(server)]);
  assert.equal([again.status, again.stdout.trim()], [0, "No changes: hcd matches the file."]);
  const reexported = await exportedProject();
  assert.equal(reexported.escalation, project.escalation, "exported back as written");
  assert.equal(checkOf(reexported, rich.checks.simple).escalation, simple.escalation);
});

test("escalation steps naming no channel, or that the server refuses, are refused with their paths; nothing changes", async () => {
  const before = await everything(server);
  const cases: [string[], RegExp[]][] = [
    [
      [
        // the schema's rules
        "projects:",
        "  - name: p",
        "    checks:",
        "      - {slug: b, escalation: [{after: 30, channels: [m]}], min_duration: -1, max_runs_per_period: 5000, alert_on_overlap: 1}",
        "      - {slug: c, escalation: [{after: 60, channels: [m]}, {after: 120, channels: [m]}, {after: 180, channels: [m]}]}",
        "      - {slug: d, escalation: [{after: 60, channels: []}]}",
      ],
      [
        /bad\.yaml:4: projects\[0\]\.checks\[0\]\.escalation\[0\]\.after: must be >= 60/,
        /bad\.yaml:4: projects\[0\]\.checks\[0\]\.min_duration: must be >= 0/,
        /bad\.yaml:4: projects\[0\]\.checks\[0\]\.max_runs_per_period: must be <= 1000/,
        /bad\.yaml:4: projects\[0\]\.checks\[0\]\.alert_on_overlap: must be boolean/,
        /bad\.yaml:5: projects\[0\]\.checks\[1\]\.escalation: must NOT have more than 2 items/,
        /bad\.yaml:6: projects\[0\]\.checks\[2\]\.escalation\[0\]\.channels: must NOT have fewer than 1 items/,
      ],
    ],
    [
      [
        // the server's rules and the file's references
        "projects:",
        "  - name: p",
        "    escalation: [{after: 600, channels: [m]}, {after: 300, channels: [m]}]",
        "    channels:",
        "      - {name: m, kind: email, value: a@b.c, every_failure: true}",
        "    checks:",
        "      - {slug: a, escalation: [{after: 600, channels: [nope]}]}",
        "      - {slug: b, escalation: [{after: 600, channels: [m]}, {after: 600, channels: [m]}]}",
      ],
      [
        /bad\.yaml:3: projects\[0\]\.escalation: step 2: after must be later than the step before/,
        /bad\.yaml:7: projects\[0\]\.checks\[0\]\.escalation\[0\]\.channels\[0\]: names no channel of this project: nope/,
        /bad\.yaml:8: projects\[0\]\.checks\[1\]\.escalation: step 2: after must be later than the step before/,
      ],
    ],
  ];
  for (const [lines, expected] of cases) {
    const file = join(dir.path, "bad.yaml");
    writeFileSync(file, lines.join("\n"));
    const run = await hcdIn(["apply", "-f", file, ...remote(server)]);
    assert.is(run.status, 1, run.stdout);
    for (const pattern of expected) assert.match(run.stderr, pattern, `${pattern} in:\n${run.stderr}`);
    assert.is(run.stdout, "");
  }
  assert.is(await everything(server), before, "nothing changed");
});

test.run();
